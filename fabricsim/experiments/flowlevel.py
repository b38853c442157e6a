"""What a flow-level model expects of ECMP under permutation traffic, to set beside the
packet-level figure: every flow hashed onto one of its equal-cost shortest paths (uniformly,
as per-hop hashing does on a leaf-spine or fat-tree), rates max-min fair over the links.

    ecmp_expectation(load_spec("fat-tree:8"), trials=200, seed=1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["ecmp_expectation", "max_min_rates"]

Edge = tuple[str, str]


def max_min_rates(paths: Sequence[Sequence[Edge]], capacity: dict[Edge, float]) -> list[float]:
    """Max-min fair rates of flows on fixed paths (progressive filling): all unfrozen flows
    grow together until a link fills; the flows through it freeze."""
    users: dict[Edge, list[int]] = {}
    for i, path in enumerate(paths):
        for e in path:
            users.setdefault(e, []).append(i)
    rates = [0.0] * len(paths)
    left = {e: capacity[e] for e in users}
    active = set(range(len(paths)))
    while active:
        counts = {e: sum(1 for f in fs if f in active) for e, fs in users.items()}
        step = min(left[e] / n for e, n in counts.items() if n)
        for f in active:
            rates[f] += step
        full = []
        for e, n in counts.items():
            if n:
                left[e] -= step * n
                if left[e] <= 1e-9 * capacity[e]:
                    full.append(e)
        for e in full:
            active.difference_update(users[e])
    return rates


def ecmp_expectation(topo: Any, trials: int = 100, seed: int = 1) -> dict[str, float]:
    """Mean over `trials` random permutations (the `permutation` workload's, striped over
    planes on multi-plane fabrics) of each flow's max-min rate as a share of its NIC's rate,
    every flow on a uniformly chosen shortest path: mean and the trials' min and max."""
    import networkx as nx

    from ..run import _servers
    from ..workloads import permutation

    g = topo.graph()
    rate = {h.name: h.rate_bps for h in topo.hosts}
    capacity: dict[Edge, float] = {}
    for a, b, data in g.edges(data=True):
        capacity[(a, b)] = capacity[(b, a)] = float(data["rate_bps"])
    cache: dict[Edge, list[list[str]]] = {}
    rng = random.Random(seed)
    means = []
    hosts = [h.name for h in topo.hosts]
    for _ in range(trials):
        flows = permutation(hosts, 2, rng, servers=_servers(topo))
        paths = []
        for f in flows:
            options = cache.get((f.src, f.dst))
            if options is None:
                options = cache[(f.src, f.dst)] = list(nx.all_shortest_paths(g, f.src, f.dst))
            p = rng.choice(options)
            paths.append(list(zip(p, p[1:], strict=False)))
        got = max_min_rates(paths, capacity)
        means.append(sum(r / rate[f.src] for r, f in zip(got, flows, strict=True)) / len(flows))
    return {
        "mean_pct": round(100 * sum(means) / len(means), 2),
        "min_pct": round(100 * min(means), 2),
        "max_pct": round(100 * max(means), 2),
    }
