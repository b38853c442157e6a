"""A PFC pause storm: one receiver stops taking packets and keeps its switch paused;
victim flows (to other hosts) with and without the switches' PFC watchdog, and how far the
pauses spread, hop by hop (Guo et al. SIGCOMM'16)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..network import NetParams, Network
from ..run import SimConfig
from ..switchnode import PfcParams
from .base import Published, Scenario, steady_rx_utilisation

STORM_HOST = "h1"
STORM_AT_NS = 10_000
WATCHDOG_NS = 20_000
MAX_HOPS = 4


def variants(quick: bool) -> dict[str, SimConfig]:
    base = SimConfig(
        workload="permutation",
        mode="ecmp",
        transport="none",  # a fixed window: the stuck host's sender keeps its window queued
        transport_params=(("window", 64.0),),
        trim_threshold=None,  # lossless: PFC instead of trimming
        flow_bytes=100_000 if quick else 400_000,
        storm=(STORM_HOST, STORM_AT_NS),
        time_limit_ns=150_000 if quick else 400_000,
    )
    return {
        "no-watchdog": replace(base, net=NetParams(bin_ns=1_000, pfc=PfcParams(enabled=True))),
        "watchdog": replace(
            base,
            net=NetParams(bin_ns=1_000, pfc=PfcParams(enabled=True, watchdog_ns=WATCHDOG_NS)),
        ),
        "no-storm": replace(
            base, storm=None, net=NetParams(bin_ns=1_000, pfc=PfcParams(enabled=True))
        ),
    }


def _hops_from(net: Network, host: str) -> dict[str, int]:
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from((a, b) for a, b in net.wires)
    return dict(nx.single_source_shortest_path_length(g, host))


def measure(r: dict[str, Any], net: Network, cfg: SimConfig) -> dict[str, float]:
    """Victims: the flows not to the stuck host. Their receivers' links from the storm to
    the last victim's completion (or the run's end); pause time by hop distance from the
    stuck host (hop 1: its leaf)."""
    victims = [f for f in r["flows"] if f["dst"] != STORM_HOST]
    done = [f for f in victims if "fct_us" in f]
    t1 = (
        int(max(f["fct_us"] for f in done) * 1000)
        if len(done) == len(victims)
        else int(r["sim_time_us"] * 1000)
    )
    utils = steady_rx_utilisation(net, [f["dst"] for f in victims], STORM_AT_NS, t1)
    out: dict[str, float] = {
        "victim_rx_pct": 100 * sum(utils) / len(utils) if utils else 0.0,
        "victims_completed_pct": 100 * len(done) / len(victims),
        "watchdog_trips": r["pfc_watchdog_trips"],
        "watchdog_drops": r["drops_by_cause"]["pfc_watchdog"],
    }
    hops = _hops_from(net, STORM_HOST)
    by_hop = [0.0] * (MAX_HOPS + 1)
    for node, us in r["pfc_pause_us_by_node"].items():
        k = hops.get(node)
        if k is not None and 1 <= k <= MAX_HOPS:
            by_hop[k] += us
    for k in range(1, MAX_HOPS + 1):
        out[f"pause_us_hop{k}"] = by_hop[k]
    return out


SCENARIO = Scenario(
    name="pfc-storm",
    paper="Guo et al., RDMA over Commodity Ethernet at Scale (SIGCOMM 2016)",
    figure="PFC pause storm from a malfunctioning NIC, congestion spreading, and the "
    "NIC/switch watchdogs that stop it",
    published=(
        Published(
            "victims without a watchdog",
            "pauses propagate hop by hop and innocent flows stall (qualitative)",
            "Guo et al. SIGCOMM'16, the PFC pause-frame storm section",
        ),
        Published(
            "victims with the watchdog",
            "the storm is contained at the first switch; other flows recover (qualitative)",
            "Guo et al. SIGCOMM'16, the watchdogs",
        ),
    ),
    topology="leaf-spine-4x4.yaml",
    workload="permutation with PFC (no trimming), 400 kB flows (--quick 100 kB); h1 becomes a "
    "stuck receiver at 10 us and pauses leaf1 for good",
    compared="PFC without watchdog; PFC with a 20 us watchdog; no storm (reference)",
    metric="victim_rx_pct: the victims' receiver links from the storm to the last victim's "
    "completion (or the run's end), over capacity; pause_us_hopK: pause time summed over "
    "nodes K hops from the stuck host",
    variants=variants,
    measure=measure,
    headline="victims_completed_pct",
    differences="one lossless priority; the watchdog drops the stuck port's packets after 20 us "
    "paused (Guo et al.'s watchdog works on the NIC and the switch alike)",
)
