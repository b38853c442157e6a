"""Shortest-path ECMP/WCMP routes for every switch and destination prefix.

How (no loop over host pairs, no loop over (switch, destination) pairs in Python):

1. Destinations are the leaves (switches that own subnets). Leaves with the same
   neighbours, reached over links of the same capacities, are *twins*: every other
   switch has the same distance, next hops and weights towards each of them, so one
   breadth-first search per class of twins serves the whole class (a healthy fat-tree
   has one class per pod, a leaf-spine one class). Towards a twin of its own class, a
   leaf uses all its neighbours (distance 2 through any of them).
2. Level-synchronous BFS from the class representatives over the switch graph, all
   classes at once: the frontier is a dense (switches x classes) matrix multiplied by the
   sparse adjacency matrix (scipy.sparse), one product per hop.
3. The next hops of switch u towards class c are its neighbours v with
   dist(v) = dist(u) - 1 (every shortest path, and only shortest paths). The one
   exception to sharing within a class: a neighbour of a leaf reaches that leaf
   directly, so at distance 1 the next hop is the leaf itself.
4. WCMP weights: the capacity a switch can push towards a destination over the
   shortest-path DAG is cap(d) = infinite at the destination leaf and
   cap(u) = sum over next hops v of min(c(u->v), cap(v)); the weight of next hop v is
   min(c(u->v), cap(v)), divided by the gcd of the group's weights. c(u->v) is the link
   rate, or the capacity supplied for that direction (telemetry), clamped to [1, rate].
   Equal links give equal weights; a thinner link or a thinner path behind a neighbour
   gets proportionally less.
5. Per switch, identical (next hops, weights) sets are one shared group.

Classes are processed in chunks so that the (edges x classes) work arrays stay bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import scipy.sparse as sp

from controller.topology import Topology

from .graph import SwitchGraph
from .result import Routes

__all__ = ["compute_routes"]

_INF = np.int64(1) << np.int64(62)
_CHUNK_CELLS = 8_000_000  # edges x classes per chunk


def _twin_classes(g: SwitchGraph) -> tuple[np.ndarray, np.ndarray]:
    """(class of each leaf, representative switch of each class)."""
    keys: dict[tuple, int] = {}
    leaf_class = np.empty(len(g.leaves), dtype=np.int64)
    reps: list[int] = []
    for i, u in enumerate(g.leaves.tolist()):
        s, e = g.indptr[u], g.indptr[u + 1]
        nbrs = g.dst[s:e].tolist()
        cap_in = g.cap[g.rev[s:e]].tolist()
        key = tuple(sorted(zip(nbrs, cap_in, strict=True)))
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
    dv = dist[g.dst]
    on = (dv >= 0) & (du == dv + 1)
    cap_to = np.zeros((n, cc), dtype=np.int64)
    cap_to[reps, np.arange(cc)] = _INF
    w = np.zeros(du.shape, dtype=np.int64)
    top = int(dist.max(initial=0))
    for level in range(1, top + 1):
        ei, ci = np.nonzero(on & (du == level))
        if not len(ei):
            continue
        vals = np.minimum(g.cap[ei], cap_to[g.dst[ei], ci])
        w[ei, ci] = vals
        sums = np.bincount(g.src[ei].astype(np.int64) * cc + ci, weights=vals, minlength=n * cc)
        at_level = dist == level
        cap_to[at_level] = np.rint(sums.reshape(n, cc)[at_level]).astype(np.int64)
    return w


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
    n = g.n
    leaf_class, reps = _twin_classes(g)
    n_classes = len(reps)
    adj = sp.csr_matrix((np.ones(len(g.dst), dtype=np.float32), g.dst, g.indptr), shape=(n, n))
    group_of = np.full((n, n_classes), -1, dtype=np.int32)
    groups: list[dict[bytes, int]] = [{} for _ in range(n)]
    members: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(n)]
    chunk = max(1, _CHUNK_CELLS // max(1, len(g.dst)))
    for start in range(0, n_classes, chunk):
        part = reps[start : start + chunk]
        dist = _bfs(adj, part, n)
        w = _weights(g, dist, part)
        for u in range(n):
            s, e = g.indptr[u], g.indptr[u + 1]
            if s == e:
                continue
            block = w[s:e].T  # classes x neighbours
            rows, inverse = np.unique(block, axis=0, return_inverse=True)
            ids = np.empty(len(rows), dtype=np.int32)
            for r, row in enumerate(rows):
                nz = row > 0
                if not nz.any():
                    ids[r] = -1
                    continue
                wts = row[nz]
                wts = wts // np.gcd.reduce(wts)
                key = np.flatnonzero(nz).tobytes() + wts.tobytes()
                gid = groups[u].get(key)
                if gid is None:
                    gid = groups[u][key] = len(members[u])
                    members[u].append((g.dst[s:e][nz], wts))
                ids[r] = gid
            group_of[u, start : start + len(part)] = ids[inverse.reshape(-1)]

    # a leaf towards the twins of its own class: all neighbours, weight
    # min(c(u->v), c(v->twin)); c(v->twin) = c(v->rep) (same class key)
    class_of_switch = np.full(n, -1, dtype=np.int64)
    class_of_switch[g.leaves] = leaf_class
    class_size = np.bincount(leaf_class, minlength=n_classes)
    internal = np.full(n, -1, dtype=np.int32)
    for u, c in zip(g.leaves.tolist(), leaf_class.tolist(), strict=True):
        s, e = g.indptr[u], g.indptr[u + 1]
        if class_size[c] < 2 or s == e:
            continue
        rep = int(reps[c])
        nbrs = g.dst[s:e]
        if u == rep:
            back = g.cap[g.rev[s:e]]
        else:  # the edge v->rep for each neighbour v (v is a neighbour of rep too)
            back = np.array([_edge_cap(g, int(v), rep) for v in nbrs.tolist()], dtype=np.int64)
        wts = np.minimum(g.cap[s:e], back)
        wts = wts // np.gcd.reduce(wts)
        key = np.arange(e - s).tobytes() + wts.tobytes()
        gid = groups[u].get(key)
        if gid is None:
            gid = groups[u][key] = len(members[u])
            members[u].append((nbrs, wts))
        internal[u] = gid

    # a neighbour of a leaf reaches it directly (its twins share the distance, not
    # this next hop)
    position = np.full(n, -1, dtype=np.int64)
    position[g.leaves] = np.arange(len(g.leaves))
    to_leaf = position[g.dst] >= 0
    direct_gid = np.full(len(g.dst), -1, dtype=np.int32)
    one = np.ones(1, dtype=np.int64)
    for e in np.flatnonzero(to_leaf).tolist():
        u = int(g.src[e])
        k = int(e - g.indptr[u])
        key = np.array([k], dtype=np.int64).tobytes() + one.tobytes()
        gid = groups[u].get(key)
        if gid is None:
            gid = groups[u][key] = len(members[u])
            members[u].append((g.dst[e : e + 1], one))
        direct_gid[e] = gid

    return Routes.assemble(g, leaf_class, class_of_switch, group_of, internal, direct_gid, members)


def _edge_cap(g: SwitchGraph, u: int, v: int) -> int:
    s, e = g.indptr[u], g.indptr[u + 1]
    (hit,) = np.nonzero(g.dst[s:e] == v)
    return int(g.cap[s + hit[0]])
