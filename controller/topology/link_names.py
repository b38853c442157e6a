"""`A-B` link names whose node names may hold hyphens themselves (`pod0-agg1-core2`)."""

from __future__ import annotations

from collections.abc import Container

__all__ = ["split_link_name"]


def split_link_name(place: str, names: Container[str] | None = None) -> tuple[str, str] | None:
    """The two ends of `place` (`A-B`): where it splits into two known `names` in exactly
    one way, that split; else its two hyphen-separated parts; None when it is no A-B."""
    ends = place.split("-")
    if len(ends) > 2 and names is not None:
        splits = [
            ("-".join(ends[:i]), "-".join(ends[i:]))
            for i in range(1, len(ends))
            if "-".join(ends[:i]) in names and "-".join(ends[i:]) in names
        ]
        if len(splits) == 1:
            ends = list(splits[0])
    if len(ends) != 2 or not all(ends):
        return None
    return ends[0], ends[1]
