"""Permutation traffic on a 4x4 leaf-spine (1:1): ECMP vs per-packet spraying vs
adaptive choice, steady-state receiver-link utilisation (NDP SIGCOMM'17, DRILL SIGCOMM'17).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..network import NetParams, Network
from ..run import SimConfig
from .base import Published, Scenario, steady_rx_utilisation

WARMUP_NS = 15_000  # a few round trips: the first windows and the queues they build


def sized_variants(
    quick: bool,
    full_bytes: int = 1_000_000,
    quick_bytes: int = 150_000,
    time_limit_ns: int = 3_000_000,
) -> dict[str, SimConfig]:
    """The four variants with flows of `full_bytes` (`quick_bytes` with --quick); the
    larger fabrics (permutation_big) use smaller flows and a shorter time limit."""
    base = SimConfig(
        workload="permutation",
        flow_bytes=quick_bytes if quick else full_bytes,
        transport="dctcp",
        net=NetParams(bin_ns=1_000),
        time_limit_ns=time_limit_ns,
    )
    return {
        "ecmp/dctcp": replace(base, mode="ecmp"),
        "spray/dctcp": replace(base, mode="spray"),
        "adaptive/dctcp": replace(base, mode="adaptive"),
        "ecmp/ndp": replace(base, mode="ecmp", transport="ndp"),
        "spray/ndp": replace(base, mode="spray", transport="ndp"),
        "adaptive/ndp": replace(base, mode="adaptive", transport="ndp"),
    }


def variants(quick: bool) -> dict[str, SimConfig]:
    return sized_variants(quick)


def measure(r: dict[str, Any], net: Network, cfg: SimConfig) -> dict[str, float]:
    """Steady window: from WARMUP_NS to the first flow's completion (every flow active);
    per receiver, bytes on its host link in that window over the link's capacity."""
    fcts = [f["fct_us"] for f in r["flows"] if "fct_us" in f]
    t1 = int(min(fcts) * 1000) if fcts else r["sim_time_us"] * 1000
    t0 = min(WARMUP_NS, t1 // 4)
    utils = steady_rx_utilisation(net, [f["dst"] for f in r["flows"]], t0, int(t1))
    return {
        "steady_pct": 100 * sum(utils) / len(utils) if utils else 0.0,
        "worst_rx_pct": 100 * min(utils) if utils else 0.0,
        "whole_run_pct": r["throughput_pct_of_line_rate"],
        "flows_completed": r["flows_completed"],
        "reordered_pct": r["reordered_pct"],
    }


SCENARIO = Scenario(
    name="permutation",
    paper="NDP (Handley et al., SIGCOMM 2017); DRILL (Ghorbani et al., SIGCOMM 2017)",
    figure="NDP: permutation throughput on a FatTree (per-packet spraying vs single path); "
    "DRILL: per-packet adaptive choice vs ECMP",
    published=(
        Published(
            "NDP with per-packet spraying, permutation",
            "approximately 90-95% of the maximum (read off the plot)",
            "NDP SIGCOMM'17, permutation on a 432-host FatTree (htsim)",
        ),
        Published(
            "single-path ECMP, random permutation",
            "well below line rate: flow collisions on hashed paths; the flow-level "
            "expectation for a 4x4 leaf-spine is about 58% (issue 21's Monte Carlo)",
            "ECMP collisions (e.g. Hedera NSDI'10, CONGA SIGCOMM'14); not a figure value",
        ),
        Published(
            "adaptive per-packet choice (DRILL)",
            "qualitative: at or above spraying, well above ECMP",
            "DRILL SIGCOMM'17 (no single number reproduced here)",
        ),
    ),
    topology="leaf-spine-4x4.yaml",
    workload="a random derangement of the 16 hosts, one flow each (1 MB; --quick 150 kB), all "
    "starting at t=0",
    compared="ecmp, spray and adaptive, each under DCTCP and under the NDP-style transport",
    metric="steady_pct: per receiver, bytes on its host link from 15 us (or a quarter of the "
    "window) to the first flow's completion, over the link's capacity (headers included), "
    "mean over receivers; whole_run_pct includes start-up and the tail",
    variants=variants,
    measure=measure,
    headline="steady_pct",
    differences="16 hosts instead of 432; 1 MB flows (80 us at line rate), so the steady "
    "window is some tens of microseconds; the NDP-style sender keeps 1.5 BDPs in flight "
    "(with exactly one BDP a sprayed permutation's senders run out of credits: see "
    "fabricsim/transports/ndp.py)",
)
