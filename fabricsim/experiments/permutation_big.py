"""The permutation experiment on larger fabrics: a k=8 fat-tree (128 hosts, 80 switches)
and a two-plane leaf-spine (64 servers, each with one NIC in each of two independent
planes, 128 NICs). Same variants and measure as `permutation`; flows are smaller and the
time limit shorter so a sweep of 3 seeds takes minutes on two cores (docs/fabricsim.md).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from ..network import Network
from ..run import SimConfig
from . import permutation
from .base import Published, steady_rx_utilisation

K8_BYTES, K8_QUICK_BYTES = 150_000, 30_000
PLANES_BYTES, PLANES_QUICK_BYTES = 300_000, 60_000  # per server: half on each plane
TIME_LIMIT_NS = 1_000_000


def measure(r: dict[str, Any], net: Network, cfg: SimConfig) -> dict[str, float]:
    """As `permutation.measure`, but the steady window ends at the first completion among
    the flows on the longest paths (most links): on these fabrics a few flows stay inside
    one edge switch or pod, finish early because their round trips are shorter, and would
    otherwise end the window while the other flows are still starting. The window starts
    at 15 us (half the window's end if that is earlier); `steady_pct` is over every
    receiver, `longest_path_pct` over the receivers of the longest paths only."""
    import networkx as nx

    out = permutation.measure(r, net, cfg)
    g = net.topo.graph()
    flows = r["flows"]
    links = [nx.shortest_path_length(g, f["src"], f["dst"]) for f in flows]
    longest = [f for f, n in zip(flows, links, strict=True) if n == max(links)]
    ends = [f["fct_us"] for f in longest if "fct_us" in f]
    t1 = int(min(ends) * 1000) if ends else int(r["sim_time_us"] * 1000)
    t0 = min(permutation.WARMUP_NS, t1 // 2)
    every = steady_rx_utilisation(net, [f["dst"] for f in flows], t0, t1)
    far = steady_rx_utilisation(net, [f["dst"] for f in longest], t0, t1)
    out["first_end_pct"] = out["steady_pct"]  # permutation's window, for comparison
    out["steady_pct"] = 100 * sum(every) / len(every) if every else 0.0
    out["worst_rx_pct"] = 100 * min(every) if every else 0.0
    out["longest_path_pct"] = 100 * sum(far) / len(far) if far else 0.0
    out["window_us"] = (t1 - t0) / 1000
    return out


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
    measure=measure,
    headline="longest_path_pct",
    metric="steady_pct: per receiver, bytes on its host link from 15 us to the first "
    "completion among the flows on the longest (inter-pod) paths, over the link's capacity, "
    "mean over receivers; longest_path_pct: the same over the inter-pod receivers only; "
    "first_end_pct: permutation's window (ending at the very first completion)",
    variants=partial(
        permutation.sized_variants,
        full_bytes=K8_BYTES,
        quick_bytes=K8_QUICK_BYTES,
        time_limit_ns=TIME_LIMIT_NS,
    ),
    differences="128 hosts instead of 432; 150 kB flows (12 us at line rate) keep a sweep "
    "to minutes, so the steady window (15 us, about one round trip of a 6-link path, to the "
    "first inter-pod completion, some 5 us) is short",
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
    measure=measure,
    headline="longest_path_pct",
    metric="steady_pct: per NIC, bytes on its host link from 15 us to the first completion "
    "among the subflows between leaves, over the link's capacity, mean over NICs; "
    "longest_path_pct: the receivers of subflows between leaves only; first_end_pct: "
    "permutation's window (ending at the very first completion)",
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
