"""The result of a route computation, kept compact.

Per switch: a list of next-hop groups (shared by every prefix that uses the same next hops
and weights; group ids are per switch, as in the data plane's `next_hop_group` table),
and per destination prefix a group id. Internally a (switches x twin classes) matrix of
group ids stands for the (switches x prefixes) table, which `table()`,
`switch_routes()` and the JSON writer expand on demand.

Each leaf also gets a /32 per attached host whose group has that host as its one next
hop; a leaf has no route for its own subnets (their hosts are the /32s).

The local group ids above are renumbered by every computation. `switch_routes(name,
ids)` gives ids from a `GroupIds` allocator instead, which keeps a next-hop set's id from
one computation to the next (group_ids.py): what a controller writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from controller.topology import TopologyError

from .graph import SwitchGraph
from .group_ids import GroupIds

__all__ = ["NextHops", "RouteSummary", "Routes", "SwitchRoutes"]


@dataclass(slots=True, frozen=True)
class NextHops:
    """A next-hop group: neighbours (switches, or the host of a /32) in port order and
    their integer weights (divided by their gcd; all 1 for plain ECMP)."""

    neighbours: tuple[str, ...]
    weights: tuple[int, ...]


@dataclass(slots=True, frozen=True)
class SwitchRoutes:
    """One switch's forwarding state: `routes[prefix]` is a key of `groups` (group id ->
    next hops)."""

    switch: str
    groups: Mapping[int, NextHops]
    routes: Mapping[str, int]


@dataclass(slots=True, frozen=True)
class RouteSummary:
    switches: int
    failed_switches: int
    destination_classes: int
    groups: int
    entries: int
    entries_min: int
    entries_mean: float
    entries_max: int


@dataclass(slots=True, frozen=True, eq=False)
class Routes:
    """Computed by `compute_routes`. Group ids in the arrays are global (all switches);
    switch u owns groups group_base[u]..group_base[u+1]-1, which are its local groups
    0, 1, ...; its host groups follow them."""

    graph: SwitchGraph
    leaf_class: np.ndarray  # class of each leaf (index into graph.leaves)
    class_of_switch: np.ndarray  # class of each switch, -1 for non-leaves
    leaf_position: np.ndarray  # index into graph.leaves of each switch, -1 for non-leaves
    group_of: np.ndarray  # (switches x classes) group, -1 = no route
    internal: np.ndarray  # group of a leaf towards its own class's other leaves
    direct: np.ndarray  # per graph edge towards a leaf: the group {that leaf}, else -1
    group_base: np.ndarray  # (switches + 1) first group of each switch
    group_ptr: np.ndarray  # (groups + 1) first member of each group
    group_nbr: np.ndarray  # member -> neighbour switch index
    group_w: np.ndarray  # member -> weight

    # -- per switch ----------------------------------------------------------------------
    @property
    def switches(self) -> tuple[str, ...]:
        return self.graph.names

    @property
    def failed(self) -> frozenset[str]:
        return self.graph.failed

    def _index(self, switch: str) -> int:
        try:
            return self.graph.index[switch]
        except KeyError:
            raise TopologyError(f"no switch named {switch!r}") from None

    def leaf_group_ids(self, u: int) -> np.ndarray:
        """Local group id at switch index u towards each leaf (graph.leaves order),
        -1 = no route."""
        gid = self.group_of[u, self.leaf_class]
        c = self.class_of_switch[u]
        if c >= 0:
            gid[self.leaf_class == c] = self.internal[u]
            gid[self.leaf_position[u]] = -1
        s, e = self.graph.indptr[u], self.graph.indptr[u + 1]
        direct = self.direct[s:e]
        hit = direct >= 0
        if hit.any():
            gid[self.leaf_position[self.graph.dst[s:e][hit]]] = direct[hit]
        return np.where(gid >= 0, gid - self.group_base[u], -1)

    def fabric_groups(self, u: int) -> int:
        return int(self.group_base[u + 1] - self.group_base[u])

    def groups_of(self, u: int) -> tuple[NextHops, ...]:
        """The groups of switch index u by local id: fabric groups, then one per host."""
        names = self.graph.names
        out = []
        for gid in range(int(self.group_base[u]), int(self.group_base[u + 1])):
            s, e = self.group_ptr[gid], self.group_ptr[gid + 1]
            out.append(
                NextHops(
                    tuple(names[v] for v in self.group_nbr[s:e].tolist()),
                    tuple(self.group_w[s:e].tolist()),
                )
            )
        out.extend(NextHops((host,), (1,)) for host, _ in self.graph.hosts[u])
        return tuple(out)

    def host_routes(self, u: int) -> list[tuple[str, int]]:
        """(host /32, local group id) at switch index u."""
        base = self.fabric_groups(u)
        return [(f"{ip}/32", base + j) for j, (_, ip) in enumerate(self.graph.hosts[u])]

    def switch_routes(self, switch: str, ids: GroupIds[NextHops] | None = None) -> SwitchRoutes:
        """`switch`'s routes and groups. Group ids: this computation's local ids, or, with
        `ids`, the allocator's for the next-hop sets the routes use (assigned in the order
        of the sets, so the same computations give the same ids)."""
        u = self._index(switch)
        routes: dict[str, int] = {}
        for prefixes, gid in zip(self.graph.prefixes, self.leaf_group_ids(u).tolist(), strict=True):
            if gid >= 0:
                for p in prefixes:
                    routes[p] = gid
        routes.update(self.host_routes(u))
        local = self.groups_of(u)
        if ids is None:
            return SwitchRoutes(switch, dict(enumerate(local)), routes)
        used = sorted(set(routes.values()), key=lambda g: (local[g].neighbours, local[g].weights))
        stable = ids.assign(switch, (local[g] for g in used))
        groups = {stable[local[g]]: local[g] for g in used}
        return SwitchRoutes(
            switch,
            dict(sorted(groups.items())),
            {p: stable[local[g]] for p, g in routes.items()},
        )

    def table(self, switch: str) -> dict[str, NextHops]:
        """prefix -> next hops at `switch`."""
        sr = self.switch_routes(switch)
        return {p: sr.groups[g] for p, g in sr.routes.items()}

    # -- totals --------------------------------------------------------------------------
    def entries_per_switch(self) -> np.ndarray:
        """Number of route entries (prefixes and host /32s) of every switch."""
        g = self.graph
        n_classes = self.group_of.shape[1]
        npref_leaf = np.array([len(p) for p in g.prefixes], dtype=np.int64)
        npref_class = np.bincount(self.leaf_class, weights=npref_leaf, minlength=n_classes)
        npref_class = npref_class.astype(np.int64)
        entries = (self.group_of >= 0).astype(np.int64) @ npref_class
        leaves = g.leaves
        own_class = self.leaf_class
        own = (self.group_of[leaves, own_class] >= 0) * npref_class[own_class]
        inside = (self.internal[leaves] >= 0) * (npref_class[own_class] - npref_leaf)
        entries[leaves] += inside - own
        entries += np.array([len(h) for h in g.hosts], dtype=np.int64)
        return entries

    def summary(self) -> RouteSummary:
        live = np.array([n not in self.failed for n in self.switches], dtype=bool)
        entries = self.entries_per_switch()[live]
        return RouteSummary(
            switches=len(self.switches),
            failed_switches=len(self.failed),
            destination_classes=self.group_of.shape[1],
            groups=int(self.group_base[-1]) + sum(len(h) for h in self.graph.hosts),
            entries=int(entries.sum()),
            entries_min=int(entries.min()) if len(entries) else 0,
            entries_mean=float(entries.mean()) if len(entries) else 0.0,
            entries_max=int(entries.max(initial=0)),
        )
