"""The selective-repeat receiver's reorder window under per-packet spraying: throughput
against window size (IRN SIGCOMM'18-style bounded bitmap)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..network import NetParams, Network
from ..run import SimConfig
from .base import Published, Scenario
from .permutation import measure as permutation_measure

WINDOWS = (2, 4, 8, 16, 32, 64, 128)
QUICK_WINDOWS = (2, 16, 128)


def variants(quick: bool) -> dict[str, SimConfig]:
    base = SimConfig(
        workload="permutation",
        mode="spray",
        receiver="selective",
        transport="dctcp",
        flow_bytes=150_000 if quick else 600_000,
        net=NetParams(bin_ns=1_000),
        time_limit_ns=3_000_000,
    )
    out = {
        f"window={w}": replace(base, reorder_window=w)
        for w in (QUICK_WINDOWS if quick else WINDOWS)
    }
    out["tolerant"] = replace(base, receiver="tolerant")
    return out


def measure(r: dict[str, Any], net: Network, cfg: SimConfig) -> dict[str, float]:
    m = permutation_measure(r, net, cfg)
    return {
        "steady_pct": m["steady_pct"],
        "whole_run_pct": m["whole_run_pct"],
        "dropped_outside_window": r["dropped_outside_window"],
        "spurious_retransmissions": r["spurious_retransmissions"],
        "occupancy_p99": r["reorder_window_occupancy"]["p99"],
        "occupancy_max": r["reorder_window_occupancy"]["max"],
    }


SCENARIO = Scenario(
    name="reorder-window",
    paper="IRN (Mittal et al., SIGCOMM 2018); issue 21 item 2",
    figure="IRN: a bounded selective-repeat bitmap of about one BDP is enough",
    published=(
        Published(
            "bitmap size needed",
            "about one bandwidth-delay product of packets (qualitative design rule)",
            "IRN SIGCOMM'18, section on the bitmap size",
        ),
    ),
    topology="leaf-spine-4x4.yaml",
    workload="permutation, 600 kB flows (--quick 150 kB), per-packet spraying",
    compared="selective receiver with windows 2..128 packets; the tolerant (direct "
    "placement) receiver as the unbounded reference",
    metric="steady_pct as in `permutation`; packets dropped for falling outside the window; "
    "window occupancy p99/max",
    variants=variants,
    measure=measure,
    headline="steady_pct",
    differences="one BDP here is about 12 full packets (4 hops of 1 us, 100 Gb/s)",
)
