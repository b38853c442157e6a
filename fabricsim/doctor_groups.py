"""Evidence of a skewed load-balancing group for `sprayfabric doctor`: how the probes'
5-tuples spread over a switch's equal-cost next hops.

The equal-cost next hops of switch S toward host D are the neighbours one hop closer to
D (from the run's topology). Every probe 5-tuple that crossed S toward D shows which one
S's hash chose (its path). Tuples are counted per (S, next-hop set, the node they came
from): the tuples arriving from one upstream switch were already picked by that switch's
hash, and with one hash function at every switch (fabric.p4's CRC of the 5-tuple) the
choice downstream can be a function of the upstream one (polarisation: a k=4 fat-tree's
aggregation switch sends every tuple from one edge switch to one core). Tuples from hosts
are pooled: they are the switch's unbiased sample.

Each (switch, next-hop set, from) count with at least MIN_TUPLES tuples is a test, unless
all its tuples went to one member (what polarisation does, not a bad weight). A member is
suspect when, over the tests of its switch and next-hop set, it takes a share at least
SKEW_EXCESS above an equal one (1/k) and the tests' binomial z scores for it, combined
(their sum over the square root of their number), reach SKEW_Z.
"""

from __future__ import annotations

from collections import defaultdict, deque
from math import sqrt
from typing import Any

__all__ = ["skew_suspects"]

SKEW_EXCESS = 0.25
SKEW_Z = 5.5
MIN_TUPLES = 12


def _distances(topo: dict[str, Any]) -> tuple[dict[str, set[str]], dict[str, dict[str, int]]]:
    adj: dict[str, set[str]] = defaultdict(set)
    for a, b in topo["links"]:
        adj[a].add(b)
        adj[b].add(a)
    hosts = set(topo["hosts"])
    dist: dict[str, dict[str, int]] = {}
    for h in hosts:
        d = {h: 0}
        todo = deque([h])
        while todo:
            x = todo.popleft()
            for y in adj[x]:
                if y not in d:
                    d[y] = d[x] + 1
                    if y not in hosts:
                        todo.append(y)
        dist[h] = d
    return adj, dist


def skew_suspects(run: dict[str, Any]) -> list[dict[str, Any]]:
    topo = run.get("topology")
    probes = run.get("probes") or []
    if not topo:
        return []
    adj, dist = _distances(topo)
    hosts = set(topo["hosts"])
    # (switch, next-hop set, from) -> next hop -> distinct tuples
    seen: dict[tuple[str, frozenset[str], str], dict[str, set[tuple[str, str, int]]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for agg in probes:
        d = dist.get(agg["dst"])
        if d is None:
            continue
        path = agg["path"]
        for i in range(1, len(path) - 1):
            s, nxt = path[i], path[i + 1]
            if s in hosts or s not in d:
                continue
            choices = frozenset(n for n in adj[s] if d.get(n) == d[s] - 1)
            if len(choices) < 2 or nxt not in choices:
                continue
            came = "hosts" if path[i - 1] in hosts else path[i - 1]
            for sport in agg["sports"]:
                seen[(s, choices, came)][nxt].add((agg["src"], agg["dst"], sport))
    # per (switch, next-hop set): the tests of its in-port groups, pooled below
    groups: dict[tuple[str, frozenset[str]], list[dict[str, int]]] = defaultdict(list)
    for (s, choices, _came), by in sorted(seen.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        counts = {m: len(by.get(m, ())) for m in choices}
        n = sum(counts.values())
        if n >= MIN_TUPLES and max(counts.values()) < n:  # all on one member: polarised
            groups[(s, choices)].append(counts)
    best: dict[str, dict[str, Any]] = {}
    for (s, choices), tests in groups.items():
        k = len(choices)
        p = 1 / k
        for m in sorted(choices):
            # Stouffer: the in-port groups' z scores for m, combined
            zs = [(c[m] - sum(c.values()) * p) / sqrt(sum(c.values()) * p * (1 - p)) for c in tests]
            z = sum(zs) / sqrt(len(zs))
            n = sum(sum(c.values()) for c in tests)
            got = sum(c[m] for c in tests)
            share = got / n
            if share < p + SKEW_EXCESS or z < SKEW_Z:
                continue
            conf = (share - p) / (1 - p)
            if s in best and best[s]["confidence"] >= conf:
                continue
            spread = ", ".join(f"{x} {sum(c[x] for c in tests)}" for x in sorted(choices))
            best[s] = {
                "kind": "switch",
                "where": s,
                "cause": "wcmp-skew",
                "member": m,
                "confidence": round(conf, 3),
                "z": round(z, 2),
                "evidence": f"{got} of {n} probe 5-tuples sent to {m} ({share:.0%}; equal "
                f"share {p:.0%}, z {z:.1f} over {len(tests)} in-port groups): {spread}",
            }
    return sorted(best.values(), key=lambda x: (-x["confidence"], x["where"]))
