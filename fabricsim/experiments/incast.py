"""N-to-1 incast on a 4x4 leaf-spine: trimming (NDP) vs tail drop vs PFC (lossless), the
receiver link's utilisation after the first round trip (NDP SIGCOMM'17)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..network import NetParams, Network
from ..run import SimConfig
from ..switchnode import PfcParams
from .base import Published, Scenario, steady_rx_utilisation

FIRST_RTT_NS = 10_000  # the senders' first windows land and the queue builds


def variants(quick: bool) -> dict[str, SimConfig]:
    base = SimConfig(
        workload="incast",
        mode="spray",
        flow_bytes=60_000 if quick else 300_000,
        net=NetParams(bin_ns=1_000),
        time_limit_ns=1_000_000 if quick else 3_000_000,
    )
    pfc = NetParams(bin_ns=1_000, pfc=PfcParams(enabled=True))
    return {
        "trim/ndp": replace(base, transport="ndp"),
        "trim/dctcp": replace(base, transport="dctcp"),
        "drop/dctcp": replace(base, transport="dctcp", trim_threshold=None),
        "pfc/dctcp": replace(base, transport="dctcp", trim_threshold=None, net=pfc),
    }


def measure(r: dict[str, Any], net: Network, cfg: SimConfig) -> dict[str, float]:
    """After the first RTT until the last flow completes (or the run's end): bytes on the
    receiver's host link over its capacity."""
    fcts = [f["fct_us"] for f in r["flows"] if "fct_us" in f]
    dst = r["flows"][0]["dst"]
    t1 = int(max(fcts) * 1000) if len(fcts) == len(r["flows"]) else int(r["sim_time_us"] * 1000)
    utils = steady_rx_utilisation(net, [dst], FIRST_RTT_NS, t1)
    return {
        "rx_link_pct": 100 * utils[0] if utils else 0.0,
        "whole_run_pct": r["throughput_pct_of_line_rate"],
        "completed_pct": 100 * len(fcts) / len(r["flows"]),
        "timeouts": r["timeouts"],
        "drops": r["drops"],
        "trims": r["trims"],
        "pfc_pause_us": r["pfc_pause_us"],
    }


SCENARIO = Scenario(
    name="incast",
    paper="NDP (Handley et al., SIGCOMM 2017)",
    figure="NDP: incast to one receiver, trimming with receiver pulls vs loss-based and "
    "lossless (PFC) alternatives",
    published=(
        Published(
            "NDP incast (trimming, pulls paced at the receiver's rate)",
            "receiver link near line rate after the first RTT (approximately >= 95%)",
            "NDP SIGCOMM'17 incast experiments (htsim and the hardware testbed)",
        ),
        Published(
            "tail drop, loss-based TCP",
            "incast collapse: goodput falls by an order of magnitude when losses end in timeouts",
            "Vasudevan et al. SIGCOMM'09 (TCP incast)",
        ),
        Published(
            "PFC (lossless)",
            "receiver link busy, at the cost of pauses spreading upstream",
            "Guo et al. SIGCOMM'16 (RDMA over commodity Ethernet at scale); qualitative",
        ),
    ),
    topology="leaf-spine-4x4.yaml",
    workload="12-to-1 incast (every host on the other three leaves to one receiver), 300 kB "
    "each (--quick 60 kB), all starting at t=0, per-packet spraying",
    compared="trimming + NDP-style pulls; trimming + DCTCP; tail drop (no trimming) + DCTCP; "
    "PFC (no trimming, no drop) + DCTCP",
    metric="rx_link_pct: bytes on the receiver's host link from 10 us to the last flow's "
    "completion (or the run's end), over its capacity",
    variants=variants,
    measure=measure,
    headline="rx_link_pct",
    differences="12 senders instead of hundreds, all on other leaves of one 4x4 "
    "leaf-spine; the trimming threshold is 64 packets (NDP's switches trim at about 8)",
)
