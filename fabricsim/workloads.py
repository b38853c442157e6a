"""Workloads: which host sends how many bytes to which, when (all seeded).

- `permutation`: every host sends one flow to another host, a random derangement. On a
  multi-plane fabric (`servers` given) the derangement is of servers, and each server's
  flow is striped over its NICs: one subflow per plane, NIC of plane p to the
  destination's NIC of plane p, the bytes split evenly (planes share no switch).
- `incast`: N senders (default: every host on other leaves, up to 15) to one receiver.
- `all_to_all`: every host sends size/(n-1) bytes to every other host.
- `ring_allreduce`: hosts in a ring; 2(n-1) steps, each host sends size/n bytes to its
  successor per step, a step starting when the host has received the previous step's chunk.
- `allreduce`, `alltoall`: the two collectives' short names.
- `poisson`: flows with sizes drawn from a web-search-like distribution between random
  pairs, arriving as a Poisson process at `load` of the hosts' line rate.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["SIZE_MIXES", "WORKLOADS", "Flow", "make_workload", "mix_mean", "sample_size"]


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


# Published flow-size distributions as (bytes, cumulative %) points, sampled by linear
# interpolation between them: web search (Alizadeh et al., DCTCP, SIGCOMM 2010) and
# Facebook Hadoop (Roy et al., SIGCOMM 2015), the two mixes of HPCC (SIGCOMM 2019).
SIZE_MIXES: dict[str, tuple[tuple[int, float], ...]] = {
    "websearch": (
        (0, 0),
        (10_000, 15),
        (20_000, 20),
        (30_000, 30),
        (50_000, 40),
        (80_000, 53),
        (200_000, 60),
        (1_000_000, 70),
        (2_000_000, 80),
        (5_000_000, 90),
        (10_000_000, 97),
        (30_000_000, 100),
    ),
    "hadoop": (
        (0, 0),
        (100, 1),
        (200, 2),
        (300, 5),
        (350, 15),
        (400, 20),
        (500, 30),
        (600, 40),
        (700, 50),
        (1_000, 60),
        (2_000, 67),
        (7_000, 70),
        (30_000, 72),
        (50_000, 82),
        (80_000, 87),
        (120_000, 90),
        (300_000, 95),
        (1_000_000, 97.5),
        (2_000_000, 99),
        (10_000_000, 100),
    ),
}


def mix_mean(mix: str) -> float:
    """The mean flow size (bytes) of a size mix, as sampled (piecewise linear)."""
    pts = _mix(mix)
    return sum(
        (c1 - c0) / 100 * (s0 + s1) / 2 for (s0, c0), (s1, c1) in zip(pts, pts[1:], strict=False)
    )


def sample_size(mix: str, u: float) -> float:
    """The flow size at cumulative probability `u` (0..1) of a size mix."""
    pts = _mix(mix)
    pct = u * 100
    for (s0, c0), (s1, c1) in zip(pts, pts[1:], strict=False):
        if pct <= c1:
            return s0 + (s1 - s0) * ((pct - c0) / (c1 - c0) if c1 > c0 else 1.0)
    return float(pts[-1][0])


def _mix(mix: str) -> tuple[tuple[int, float], ...]:
    try:
        return SIZE_MIXES[mix]
    except KeyError:
        raise ValueError(f"size mix {mix!r}: one of {', '.join(SIZE_MIXES)}") from None


def poisson(
    hosts: Sequence[str],
    size: int,
    rng: random.Random,
    load: float = 0.5,
    rate_bps: float = 100e9,
    flows: int = 200,
    mix: str = "websearch",
    **_: object,
) -> list[Flow]:
    """`flows` flows between random host pairs, Poisson arrivals offering `load` of every
    host's line rate; sizes drawn from `mix`, scaled so that their mean is `size` bytes."""
    scale = size / mix_mean(mix)
    # arrivals of all hosts together: load * n * rate / mean size bits
    per_ns = load * len(hosts) * rate_bps / (size * 8) / 1e9
    out = []
    t = 0.0
    for fid in range(flows):
        t += rng.expovariate(per_ns)
        sz = sample_size(mix, rng.random())
        src, dst = rng.sample(list(hosts), 2)
        out.append(Flow(fid, src, dst, max(1, int(sz * scale)), int(t)))
    return out


WORKLOADS = {
    "permutation": permutation,
    "incast": incast,
    "all_to_all": all_to_all,
    "ring_allreduce": ring_allreduce,
    "poisson": poisson,
    # the collectives' short names (`sprayfabric sim --workload allreduce|alltoall`)
    "allreduce": ring_allreduce,
    "alltoall": all_to_all,
}


def make_workload(
    name: str, hosts: Sequence[str], size: int, seed: int, **kw: object
) -> list[Flow]:
    try:
        fn = WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r} (one of {', '.join(WORKLOADS)})") from None
    return fn(hosts, size, random.Random(seed), **kw)  # type: ignore[operator]
