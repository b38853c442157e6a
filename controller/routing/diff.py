"""What changed between two route computations of the same fabric (e.g. before and after
a failure), per switch, so that the controller rewrites only that."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .result import NextHops, Routes

__all__ = ["RouteDiff", "diff_routes"]


@dataclass(slots=True, frozen=True)
class RouteDiff:
    """Routes of one switch: `added` and `changed` map prefixes to their new next hops,
    `removed` lists prefixes that have no route any more."""

    added: Mapping[str, NextHops]
    changed: Mapping[str, NextHops]
    removed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


def _canonical(routes: Routes, u: int, canon: dict[NextHops, int]) -> np.ndarray:
    """Group ids of switch u towards each leaf, as ids into `canon` (-1 = no route)."""
    table = np.array(
        [canon.setdefault(nh, len(canon)) for nh in routes.groups_of(u)] + [-1], dtype=np.int64
    )
    return table[routes.leaf_group_ids(u)]  # -1 indexes the trailing -1


def diff_routes(old: Routes, new: Routes) -> dict[str, RouteDiff]:
    """Per switch that is up in `new`, the routes to write; switches with no change are
    left out. Both results must come from the same fabric (same switches and subnets);
    a switch that is failed in `new` is left out (nothing can be written to it)."""
    if old.switches != new.switches or old.graph.prefixes != new.graph.prefixes:
        raise ValueError("route diff needs two computations over the same switches and subnets")
    out: dict[str, RouteDiff] = {}
    for u, name in enumerate(new.switches):
        if name in new.failed:
            continue
        canon: dict[NextHops, int] = {}
        a = _canonical(old, u, canon)
        b = _canonical(new, u, canon)
        new_groups = new.groups_of(u)
        old_groups = old.groups_of(u)
        new_ids = new.leaf_group_ids(u)
        added: dict[str, NextHops] = {}
        changed: dict[str, NextHops] = {}
        removed: list[str] = []
        for i in np.flatnonzero(a != b).tolist():
            prefixes = new.graph.prefixes[i]
            if b[i] < 0:
                removed.extend(prefixes)
                continue
            nh = new_groups[new_ids[i]]
            for p in prefixes:
                (added if a[i] < 0 else changed)[p] = nh
        old_hosts = {p: old_groups[j] for p, j in old.host_routes(u)}
        for p, j in new.host_routes(u):
            nh = new_groups[j]
            if p not in old_hosts:
                added[p] = nh
            elif old_hosts.pop(p) != nh:
                changed[p] = nh
        removed.extend(old_hosts)
        d = RouteDiff(added, changed, tuple(removed))
        if d:
            out[name] = d
    return out
