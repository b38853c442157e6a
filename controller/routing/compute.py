"""Shortest-path ECMP/WCMP routes for every switch and destination prefix.

How (no loop over host pairs, and no Python loop over switches or destinations):

1. Destinations are the leaves (switches that own subnets). Leaves with the same
   neighbours, reached over links of the same capacities, are *twins*: every switch other
   than their neighbours has the same distance, next hops and weights towards each of
   them, so one breadth-first search per class of twins serves the whole class (a healthy
   fat-tree has one class per pod, a leaf-spine one class). A neighbour of a leaf reaches
   it directly (next hop: the leaf itself); towards a twin of its own class a leaf uses
   all its neighbours (distance 2 through any of them).
2. Level-synchronous BFS from the class representatives over the switch graph, all
   classes at once: the frontier is a dense (switches x classes) matrix multiplied by the
   sparse adjacency matrix (scipy.sparse), one product per hop.
3. The next hops of switch u towards class c are its neighbours v with
   dist(v) = dist(u) - 1: every shortest path, and only shortest paths.
4. WCMP weights: the capacity a switch can push towards a destination over the
   shortest-path DAG is cap(d) = infinite at the destination leaf and
   cap(u) = sum over next hops v of min(c(u->v), cap(v)); the weight of next hop v is
   min(c(u->v), cap(v)), divided by the gcd of the group's weights. c(u->v) is the link
   rate, or the capacity supplied for that direction (telemetry), clamped to [1, rate].
   Equal links give equal weights; a thinner link, or a thinner path behind a neighbour,
   gets proportionally less.
5. Per switch, identical (next hops, weights) sets are one shared group. A group is found
   by two independent random 64-bit linear hashes of its weight vector over the switch's
   ports; rows with equal hashes are then compared element by element, so a collision
   raises instead of merging different groups.

Classes are processed in chunks so that the (edges x classes) work arrays stay bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from controller.topology import Topology

from .graph import SwitchGraph
from .result import Routes

__all__ = ["compute_routes"]

_INF = np.int64(1) << np.int64(62)
_CHUNK_CELLS = 2_000_000  # edges x classes per chunk (smaller chunks: less memory, and no slower)
_SEED = 20251201


def _twin_classes(g: SwitchGraph) -> tuple[np.ndarray, np.ndarray]:
    """(class of each leaf, representative switch of each class)."""
    keys: dict[bytes, int] = {}
    leaf_class = np.empty(len(g.leaves), dtype=np.int64)
    reps: list[int] = []
    for i, u in enumerate(g.leaves.tolist()):
        s, e = g.indptr[u], g.indptr[u + 1]
        nbrs = g.dst[s:e].astype(np.int64)
        order = np.argsort(nbrs)
        key = nbrs[order].tobytes() + g.cap[g.rev[s:e]][order].tobytes()
        c = keys.get(key)
        if c is None:
            c = keys[key] = len(reps)
            reps.append(u)
        leaf_class[i] = c
    return leaf_class, np.asarray(reps, dtype=np.int64)


def _bfs(adj: sp.csr_matrix, reps: np.ndarray, n: int) -> np.ndarray:
    """dist[u, c] from switch u to reps[c] in hops, -1 when unreachable."""
    cols = np.arange(len(reps))
    dist = np.full((n, len(reps)), -1, dtype=np.int32)
    dist[reps, cols] = 0
    frontier = np.zeros((n, len(reps)), dtype=np.float32)
    frontier[reps, cols] = 1.0
    level = 0
    while True:
        reached = adj @ frontier
        new = (reached > 0) & (dist < 0)
        if not new.any():
            return dist
        level += 1
        dist[new] = level
        frontier = new.astype(np.float32)


def _weights(g: SwitchGraph, dist: np.ndarray, reps: np.ndarray) -> np.ndarray:
    """W[e, c]: the weight of edge e towards class c (0 when e is not a next hop)."""
    n, cc = dist.shape
    du = dist[g.src]
    ei, ci = np.nonzero((du == dist[g.dst] + 1) & (du > 0))  # next-hop edges
    level = du[ei, ci]
    del du
    order = np.argsort(level, kind="stable")
    ei, ci, level = ei[order], ci[order], level[order]
    bounds = np.searchsorted(level, np.arange(1, int(dist.max(initial=0)) + 2))
    cap_to = np.zeros((n, cc), dtype=np.int64)
    cap_to[reps, np.arange(cc)] = _INF
    w = np.zeros((len(g.src), cc), dtype=np.int64)
    for lv in range(len(bounds) - 1):
        lo, hi = bounds[lv], bounds[lv + 1]
        if lo == hi:
            continue
        e, c = ei[lo:hi], ci[lo:hi]
        vals = np.minimum(g.cap[e], cap_to[g.dst[e], c])
        w[e, c] = vals
        # capacities are far below 2^53, so float sums are exact
        sums = np.bincount(g.src[e].astype(np.int64) * cc + c, weights=vals, minlength=n * cc)
        at_level = dist == lv + 1
        cap_to[at_level] = np.rint(sums.reshape(n, cc)[at_level]).astype(np.int64)
    return w


@dataclass
class _Groups:
    """Candidate groups collected from all sources, deduplicated at the end."""

    g: SwitchGraph
    r1: np.ndarray
    r2: np.ndarray
    starts: np.ndarray  # first edge of each switch that has edges
    owners: np.ndarray  # those switches
    degree: np.ndarray  # their degrees
    keys: list[np.ndarray] = field(default_factory=list)  # (m x 3) uint64: u, h1, h2
    member_cand: list[np.ndarray] = field(default_factory=list)
    member_edge: list[np.ndarray] = field(default_factory=list)
    member_w: list[np.ndarray] = field(default_factory=list)
    count: int = 0

    def add_rows(self, wn: np.ndarray) -> np.ndarray:
        """Candidates for every (switch, column) of normalised weights `wn` (edges x k);
        returns the candidate index of each (switch with edges, column), -1 for none."""
        w64 = wn.astype(np.uint64)
        h1 = np.add.reduceat(w64 * self.r1[:, None], self.starts, axis=0)
        h2 = np.add.reduceat(w64 * self.r2[:, None], self.starts, axis=0)
        any_hop = np.maximum.reduceat(wn, self.starts, axis=0) > 0
        ui, kk = np.nonzero(any_hop)
        keys = np.stack([self.owners[ui].astype(np.uint64), h1[ui, kk], h2[ui, kk]], axis=1)
        uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        # exactness: every row equals the first row with its key
        k_first = np.zeros(any_hop.shape, dtype=np.int64)
        k_first[ui, kk] = kk[first[inverse]]
        k_first_e = np.repeat(k_first, self.degree, axis=0)
        same = np.take_along_axis(wn, k_first_e, axis=1) == wn
        has = np.repeat(any_hop, self.degree, axis=0)
        if not np.all(same | ~has):
            raise RuntimeError("next-hop group hash collision")
        # members of the first rows
        cand = np.full(any_hop.shape, -1, dtype=np.int64)
        cand[ui, kk] = self.count + inverse
        is_first = np.zeros(any_hop.shape, dtype=bool)
        is_first[ui[first], kk[first]] = True
        sel = (wn > 0) & np.repeat(is_first, self.degree, axis=0)
        ee, ck = np.nonzero(sel)
        u_of_e = np.repeat(np.arange(len(self.owners)), self.degree)
        mc = cand[u_of_e[ee], ck]
        order = np.lexsort((ee, mc))
        self._store(uniq, mc[order], ee[order], wn[ee[order], ck[order]])
        return cand

    def add_members(
        self, owner: np.ndarray, edges: np.ndarray, weights: np.ndarray, row: np.ndarray
    ) -> np.ndarray:
        """Candidates given member by member: member i (edge edges[i], weight weights[i])
        belongs to row row[i] (sorted) of switch owner[row]; returns each row's candidate."""
        n_rows = len(owner)
        h1 = np.zeros(n_rows, dtype=np.uint64)
        h2 = np.zeros(n_rows, dtype=np.uint64)
        w64 = weights.astype(np.uint64)
        np.add.at(h1, row, w64 * self.r1[edges])
        np.add.at(h2, row, w64 * self.r2[edges])
        keys = np.stack([owner.astype(np.uint64), h1, h2], axis=1)
        self._store(keys, self.count + row, edges, weights)
        return self.count - n_rows + np.arange(n_rows)

    def _store(self, keys: np.ndarray, mc: np.ndarray, edges: np.ndarray, w: np.ndarray) -> None:
        self.keys.append(keys)
        self.member_cand.append(mc)
        self.member_edge.append(edges)
        self.member_w.append(w)
        self.count += len(keys)

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(group of each candidate, group_base per switch, group_ptr, member switch,
        member weight); groups of a switch are contiguous."""
        n = self.g.n
        keys = np.concatenate(self.keys) if self.keys else np.zeros((0, 3), np.uint64)
        mc = np.concatenate(self.member_cand) if self.member_cand else np.zeros(0, np.int64)
        me = np.concatenate(self.member_edge) if self.member_edge else np.zeros(0, np.int64)
        mw = np.concatenate(self.member_w) if self.member_w else np.zeros(0, np.int64)
        order = np.argsort(mc, kind="stable")
        mc, me, mw = mc[order], me[order], mw[order]
        cstart = np.searchsorted(mc, np.arange(len(keys) + 1))
        uniq, first, group = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        group = group.reshape(-1)
        # exactness across sources: every candidate has its group's first members
        clen = np.diff(cstart)
        rep = first[group]
        if np.any(clen != clen[rep]):
            raise RuntimeError("next-hop group hash collision")
        idx = np.arange(len(me)) - np.repeat(cstart[:-1], clen)
        rep_idx = np.repeat(cstart[rep], clen) + idx
        if np.any(me != me[rep_idx]) or np.any(mw != mw[rep_idx]):
            raise RuntimeError("next-hop group hash collision")
        glen = clen[first]
        gptr = np.zeros(len(uniq) + 1, dtype=np.int64)
        np.cumsum(glen, out=gptr[1:])
        take = np.repeat(cstart[first], glen) + (np.arange(gptr[-1]) - np.repeat(gptr[:-1], glen))
        base = np.searchsorted(uniq[:, 0].astype(np.int64), np.arange(n + 1))
        return group, base, gptr, self.g.dst[me[take]], mw[take]


def _normalise(w: np.ndarray, starts: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Each (switch, class) column of w divided by the gcd of its non-zero weights."""
    gcd = np.gcd.reduceat(w, starts, axis=0)
    gcd[gcd == 0] = 1
    return w // np.repeat(gcd, degree, axis=0)


def compute_routes(
    topo: Topology,
    *,
    failed_links: Iterable[tuple[str, str]] = (),
    failed_switches: Iterable[str] = (),
    link_capacity: Mapping[tuple[str, str], float] | None = None,
) -> Routes:
    """Routes of every switch of `topo` minus the failed links and switches (a failed
    switch gets no routes and its subnets none either). `link_capacity[(a, b)]` overrides
    the capacity of direction a->b for the weights (e.g. measured spare capacity)."""
    g = SwitchGraph.build(topo, failed_links, failed_switches, link_capacity)
    n, n_edges = g.n, len(g.dst)
    leaf_class, reps = _twin_classes(g)
    n_classes = len(reps)
    degree_all = np.diff(g.indptr)
    owners = np.flatnonzero(degree_all > 0)
    rng = np.random.default_rng(_SEED)
    groups = _Groups(
        g,
        rng.integers(0, 2**63, size=n_edges, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
        rng.integers(0, 2**63, size=n_edges, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
        g.indptr[owners],
        owners,
        degree_all[owners],
    )
    adj = sp.csr_matrix((np.ones(n_edges, dtype=np.float32), g.dst, g.indptr), shape=(n, n))
    cand_of = np.full((n, n_classes), -1, dtype=np.int64)
    if n_edges:
        chunk = max(1, _CHUNK_CELLS // n_edges)
        for start in range(0, n_classes, chunk):
            part = reps[start : start + chunk]
            w = _weights(g, _bfs(adj, part, n), part)
            cand = groups.add_rows(_normalise(w, groups.starts, groups.degree))
            cand_of[owners, start : start + len(part)] = cand

    # a leaf towards the twins of its own class: all neighbours, weight
    # min(c(u->v), c(v->twin)), and c(v->twin) = c(v->u) by the class key
    class_size = np.bincount(leaf_class, minlength=n_classes)
    twins = g.leaves[(class_size[leaf_class] > 1) & (degree_all[g.leaves] > 0)]
    internal_cand = np.full(n, -1, dtype=np.int64)
    if len(twins):
        deg = degree_all[twins]
        edges = np.repeat(g.indptr[twins], deg) + (
            np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
        )
        wi = np.minimum(g.cap[edges], g.cap[g.rev[edges]])
        row = np.repeat(np.arange(len(twins)), deg)
        gcd = np.gcd.reduceat(wi, np.cumsum(deg) - deg)
        internal_cand[twins] = groups.add_members(twins, edges, wi // gcd[row], row)

    # a neighbour of a leaf reaches it directly
    position = np.full(n, -1, dtype=np.int64)
    position[g.leaves] = np.arange(len(g.leaves))
    to_leaf = np.flatnonzero(position[g.dst] >= 0)
    direct_cand = np.full(n_edges, -1, dtype=np.int64)
    if len(to_leaf):
        direct_cand[to_leaf] = groups.add_members(
            g.src[to_leaf], to_leaf, np.ones(len(to_leaf), dtype=np.int64), np.arange(len(to_leaf))
        )

    group, base, gptr, gnbr, gw = groups.finish()

    def to_group(c: np.ndarray) -> np.ndarray:
        return np.where(c >= 0, group[np.maximum(c, 0)] if len(group) else -1, -1).astype(np.int64)

    class_of_switch = np.full(n, -1, dtype=np.int64)
    class_of_switch[g.leaves] = leaf_class
    return Routes(
        graph=g,
        leaf_class=leaf_class,
        class_of_switch=class_of_switch,
        leaf_position=position,
        group_of=to_group(cand_of),
        internal=to_group(internal_cand),
        direct=to_group(direct_cand),
        group_base=base,
        group_ptr=gptr,
        group_nbr=gnbr.astype(np.int64),
        group_w=gw.astype(np.int64),
    )
