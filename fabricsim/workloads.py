"""Workloads: which host sends how many bytes to which, when (all seeded).

- `permutation`: every host sends one flow to another host, a random derangement. On a
  multi-plane fabric (`servers` given) the derangement is of servers, and each server's
  flow is striped over its NICs: one subflow per plane, NIC of plane p to the
  destination's NIC of plane p, the bytes split evenly (planes share no switch).
- `incast`: N senders (default: every host on other leaves, up to 15) to one receiver.
- `all_to_all`: every host sends size/(n-1) bytes to every other host.
- `ring_allreduce`: hosts in a ring; 2(n-1) steps, each host sends size/n bytes to its
  successor per step, a step starting when the host has received the previous step's chunk.
- `poisson`: flows with sizes drawn from a web-search-like distribution between random
  pairs, arriving as a Poisson process at `load` of the hosts' line rate.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["WORKLOADS", "Flow", "make_workload"]


@dataclass(slots=True, frozen=True)
class Flow:
    fid: int
    src: str
    dst: str
    size: int  # bytes
    start_ns: int = 0
    after: tuple[int, ...] = ()  # flows whose completion starts this one


def _derangement(n: int, rng: random.Random) -> list[int]:
    perm = list(range(n))
    while any(i == p for i, p in enumerate(perm)):
        rng.shuffle(perm)
    return perm


def permutation(
    hosts: Sequence[str],
    size: int,
    rng: random.Random,
    servers: Mapping[str, Sequence[str]] | None = None,
    **_: object,
) -> list[Flow]:
    """`servers`: server -> its NICs in plane order (every server with the same number of
    NICs); None or one NIC each: a derangement of `hosts`."""
    if servers is None or all(len(nics) == 1 for nics in servers.values()):
        perm = _derangement(len(hosts), rng)
        return [Flow(i, hosts[i], hosts[perm[i]], size) for i in range(len(hosts))]
    names = list(servers)
    planes = {len(servers[s]) for s in names}
    if len(planes) != 1:
        raise ValueError(f"permutation: servers with different numbers of NICs ({sorted(planes)})")
    (p,) = planes
    if size < p:
        raise ValueError(f"permutation: {size} bytes cannot be striped over {p} planes")
    perm = _derangement(len(names), rng)
    share = [size // p + (1 if k < size % p else 0) for k in range(p)]
    flows: list[Flow] = []
    for i, src in enumerate(names):
        dst = names[perm[i]]
        for k in range(p):
            flows.append(Flow(len(flows), servers[src][k], servers[dst][k], share[k]))
    return flows


def incast(
    hosts: Sequence[str],
    size: int,
    rng: random.Random,
    fan_in: int | None = None,
    leaf_of: dict[str, str] | None = None,
    **_: object,
) -> list[Flow]:
    dst = hosts[rng.randrange(len(hosts))]
    others = [h for h in hosts if h != dst and (leaf_of is None or leaf_of[h] != leaf_of[dst])]
    if not others:
        others = [h for h in hosts if h != dst]
    if fan_in is not None and fan_in > len(others):
        raise ValueError(f"incast fan-in {fan_in}: only {len(others)} hosts can send to {dst}")
    k = len(others) if fan_in is None else fan_in
    senders = sorted(rng.sample(others, k), key=hosts.index)
    return [Flow(i, s, dst, size) for i, s in enumerate(senders)]


def all_to_all(hosts: Sequence[str], size: int, rng: random.Random, **_: object) -> list[Flow]:
    n = len(hosts)
    chunk = max(1, size // (n - 1))
    flows: list[Flow] = []
    for s in hosts:
        for d in hosts:
            if s != d:
                flows.append(Flow(len(flows), s, d, chunk, rng.randrange(1000)))
    return flows


def ring_allreduce(hosts: Sequence[str], size: int, rng: random.Random, **_: object) -> list[Flow]:
    n = len(hosts)
    ring = list(hosts)
    rng.shuffle(ring)
    chunk = max(1, size // n)
    flows: list[Flow] = []
    prev_step: dict[str, int] = {}  # host -> fid it received in the previous step
    for _step in range(2 * (n - 1)):
        this: dict[str, int] = {}
        for i, h in enumerate(ring):
            succ = ring[(i + 1) % n]
            after = (prev_step[h],) if h in prev_step else ()
            f = Flow(len(flows), h, succ, chunk, 0, after)
            flows.append(f)
            this[succ] = f.fid
        prev_step = this
    return flows


# web-search-like flow sizes (bytes) and their cumulative probabilities
_SIZES = (6_000, 13_000, 19_000, 33_000, 53_000, 133_000, 667_000, 1_333_000, 3_333_000)
_CDF = (0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 1.0)


def poisson(
    hosts: Sequence[str],
    size: int,
    rng: random.Random,
    load: float = 0.5,
    rate_bps: float = 100e9,
    flows: int = 200,
    **_: object,
) -> list[Flow]:
    """`flows` flows; sizes scaled so their mean is `size` bytes."""
    mean = sum((c - p) * s for s, c, p in zip(_SIZES, _CDF, (0.0, *_CDF[:-1]), strict=True))
    scale = size / mean
    # arrivals of all hosts together: load * n * rate / mean size bits
    per_ns = load * len(hosts) * rate_bps / (size * 8) / 1e9
    out = []
    t = 0.0
    for fid in range(flows):
        t += rng.expovariate(per_ns)
        u = rng.random()
        sz = next(s for s, c in zip(_SIZES, _CDF, strict=True) if u <= c)
        src, dst = rng.sample(list(hosts), 2)
        out.append(Flow(fid, src, dst, max(1, int(sz * scale)), int(t)))
    return out


WORKLOADS = {
    "permutation": permutation,
    "incast": incast,
    "all_to_all": all_to_all,
    "ring_allreduce": ring_allreduce,
    "poisson": poisson,
}


def make_workload(
    name: str, hosts: Sequence[str], size: int, seed: int, **kw: object
) -> list[Flow]:
    try:
        fn = WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r} (one of {', '.join(WORKLOADS)})") from None
    return fn(hosts, size, random.Random(seed), **kw)  # type: ignore[operator]
