"""Per-port counters of a simulated run and its topology, in the run's JSON for the
doctor: what a live fabric's interface counters, queue telemetry and inventory give.

Each switch port facing another node: packets and bytes sent, packets its wire lost, the
time its peer kept it paused (PFC), its carrier transitions (the link going down or up)
and its mean and peak egress queue depth (packets, sampled every `sample_ns`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.topology import Topology

if TYPE_CHECKING:  # network.py needs nothing of this module
    from .network import Network

__all__ = ["port_stats", "topology_json"]


def port_stats(
    net: Network, depth: dict[tuple[str, int], int], samples: int
) -> list[dict[str, Any]]:
    out = []
    peaks = {name: node.sw.queue_peaks() for name, node in net.switches.items()}
    for (a, b), w in sorted(net.wires.items()):
        node = net.switches.get(a)
        if node is None:
            continue
        out.append(
            {
                "switch": a,
                "port": w.a_port,
                "peer": b,
                "tx_packets": w.packets,
                "tx_bytes": w.bytes_sent,
                "lost": w.lost,
                "paused_us": round(node.pause_ns_by_port.get(w.a_port, 0) / 1000, 3),
                "carrier_transitions": net.carrier_transitions.get((a, b), 0),
                "queue_mean": round(depth.get((a, w.a_port), 0) / samples, 3) if samples else 0.0,
                "queue_peak": peaks[a].get(w.a_port, 0),
            }
        )
    return out


def topology_json(topo: Topology) -> dict[str, Any]:
    """The links between nodes (switch links and host links) and where each host sits."""
    links = [[link.a, link.b] for link in topo.links]
    links += [[h.name, h.switch] for h in topo.hosts]
    return {
        "switches": [s.name for s in topo.switches],
        "hosts": {h.name: h.switch for h in topo.hosts},
        "links": links,
    }
