"""Match values of table entries, one per key field.

The five P4Runtime kinds are `p4rt_proto.matches` (the controller uses the same classes);
the engine adds `Wildcard` and what a match accepts (`covers`).
"""

from __future__ import annotations

from dataclasses import dataclass

from p4rt_proto.matches import Exact, Lpm, Optional, Range, Ternary

__all__ = [
    "Exact",
    "Lpm",
    "Match",
    "Optional",
    "Range",
    "Ternary",
    "Wildcard",
    "covers",
    "lpm_mask",
    "prefix_len_of_mask",
]


@dataclass(frozen=True, slots=True)
class Wildcard:
    """Matches anything (ternary mask 0, lpm /0, full range, optional unset)."""


Match = Exact | Lpm | Ternary | Range | Optional | Wildcard


def prefix_len_of_mask(mask: int, width: int) -> int | None:
    """The prefix length a mask stands for, or None when it is not a prefix."""
    full = (1 << width) - 1
    for plen in range(width + 1):
        if ((full << (width - plen)) & full) == mask:
            return plen
    return None


def lpm_mask(prefix_len: int, width: int) -> int:
    full = (1 << width) - 1
    return (full << (width - prefix_len)) & full


def covers(m: Match, kind: str, width: int, v: int) -> bool:
    """Does match `m` (of a key with this match kind and width) accept key value `v`?"""
    if isinstance(m, Wildcard):
        return True
    if isinstance(m, Exact | Optional):
        return v == m.value
    if isinstance(m, Ternary):
        return (v & m.mask) == (m.value & m.mask)
    if isinstance(m, Lpm):
        mk = lpm_mask(m.prefix_len, width)
        return (v & mk) == (m.value & mk)
    if isinstance(m, Range):
        return m.low <= v <= m.high
    raise TypeError(m)
