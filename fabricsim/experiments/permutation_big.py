"""The permutation experiment on larger fabrics: a k=8 fat-tree (128 hosts, 80 switches)
and a two-plane leaf-spine (64 servers, each with one NIC in each of two independent
planes, 128 NICs). Same variants and measure as `permutation`; flows are smaller and the
time limit shorter so a sweep of 3 seeds takes minutes on two cores (docs/fabricsim.md).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from . import permutation
from .base import Published

K8_BYTES, K8_QUICK_BYTES = 150_000, 30_000
PLANES_BYTES, PLANES_QUICK_BYTES = 300_000, 60_000  # per server: half on each plane
TIME_LIMIT_NS = 1_000_000

_NDP_FATTREE = Published(
    "NDP with per-packet spraying, permutation",
    "approximately 90-95% of the maximum (read off the plot)",
    "NDP SIGCOMM'17, permutation on a 432-host FatTree (htsim)",
)
_ECMP = Published(
    "single-path ECMP, random permutation",
    "well below line rate from hash collisions: about 40-50% on a FatTree (approximate, "
    "read off the plots)",
    "NDP SIGCOMM'17 and MPTCP (Raiciu et al., SIGCOMM'11) permutation figures",
)


def _flow_level(value: str) -> Published:
    return Published(
        "single-path ECMP, flow-level expectation on this fabric",
        value,
        "fabricsim.experiments.flowlevel.ecmp_expectation (max-min fair rates, uniformly "
        "hashed shortest paths; 100 permutations, seed 1)",
    )


PERMUTATION_K8 = replace(
    permutation.SCENARIO,
    name="permutation-k8",
    figure="NDP: permutation throughput on a FatTree, here k=8 (128 hosts, 80 switches); "
    "spraying and adaptive choice vs ECMP",
    published=(
        _NDP_FATTREE,
        _ECMP,
        _flow_level("47.4% of the NIC rate (43.2-53.4 over the permutations)"),
        permutation.SCENARIO.published[2],
    ),
    topology="fat-tree:8",
    workload="a random derangement of the 128 hosts, one flow each (150 kB; --quick 30 kB), "
    "all starting at t=0; 1 ms time limit",
    variants=partial(
        permutation.sized_variants,
        full_bytes=K8_BYTES,
        quick_bytes=K8_QUICK_BYTES,
        time_limit_ns=TIME_LIMIT_NS,
    ),
    differences="128 hosts instead of 432; 150 kB flows (12 us at line rate) keep a sweep "
    "to minutes, so the steady window (15 us, about one round trip of a 6-link path, to the "
    "first completion) is short and start-up weighs more than in the paper",
)

PERMUTATION_2PLANE = replace(
    permutation.SCENARIO,
    name="permutation-2plane",
    figure="Multi-plane fabric: permutation over two independent leaf-spine planes, each "
    "server striping its flow over its two NICs",
    published=(
        _NDP_FATTREE,
        _flow_level("61.1% of the NIC rate (52.5-69.3 over the permutations)"),
        permutation.SCENARIO.published[2],
    ),
    topology="leaf-spine:8x8x8:planes=2",
    workload="a random derangement of the 64 servers; each server's 300 kB (--quick 60 kB) "
    "is split into one subflow per plane (NIC of plane p to the destination's NIC of plane "
    "p); 128 subflows, all starting at t=0; 1 ms time limit",
    variants=partial(
        permutation.sized_variants,
        full_bytes=PLANES_BYTES,
        quick_bytes=PLANES_QUICK_BYTES,
        time_limit_ns=TIME_LIMIT_NS,
    ),
    differences="the striping is static (half the bytes on each plane, no rebalancing "
    "between planes as a multipath transport would do); planes are independent (8 leaves, "
    "8 spines each, 1:1); per-NIC receiver links are measured, so 100% is both planes full",
)
