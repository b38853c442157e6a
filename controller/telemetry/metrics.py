"""Fabric metrics: counter snapshots and INT reports -> Prometheus metrics and a live table.

`FabricMetrics` owns a `prometheus_client.CollectorRegistry` (nothing is registered
globally). Feed it `update(snapshot)` after every counter poll and `on_report(report)` for
every INT report; `exposition()` is the Prometheus text, `rows()` the figures the
`sprayfabric telemetry` table shows.

Metrics (labels in braces):

| metric | what |
| --- | --- |
| `sprayfabric_port_rx_bytes_total`, `_tx_bytes_total`, `_rx_packets_total`, `_tx_packets_total` {switch, port, peer} | port counters |
| `sprayfabric_link_utilization_ratio` {switch, port, peer} | sent bits/s over the link rate, last poll interval |
| `sprayfabric_queue_occupancy_packets` {switch, port} | egress queue depth last recorded by the data plane |
| `sprayfabric_member_packets_total` {switch, group, member, port} | packets per next-hop group member |
| `sprayfabric_member_share_ratio` {switch, group, member, port} | a member's share of its group's packets, last interval |
| `sprayfabric_ecn_marked_total`, `_trimmed_total`, `_cnp_total` {switch, port} | congestion signals |
| `sprayfabric_drops_total` {switch, reason} | packets dropped by the program, by reason |
| `sprayfabric_int_reports_total` {switch} | INT reports received, by reporting switch |
| `sprayfabric_int_hop_latency_seconds` {switch} | histogram of per-hop latency from INT |
| `sprayfabric_int_queue_occupancy_packets` {switch, port} | queue occupancy in the latest INT report |
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from .counters import CounterSnapshot, Rates, rates
from .int_report import IntReport

__all__ = ["FabricMetrics", "PortInfo"]

_LATENCY_BUCKETS = (1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1.0)


@dataclass(frozen=True, slots=True)
class PortInfo:
    """What is at the far end of a switch port, and the link's rate."""

    peer: str
    rate_bps: int


class FabricMetrics(Collector):
    def __init__(
        self,
        ports: Mapping[str, Mapping[int, PortInfo]],
        *,
        switch_ids: Mapping[int, str] | None = None,
        drop_names: Mapping[int, str] | None = None,
    ) -> None:
        self.ports = {sw: dict(p) for sw, p in ports.items()}
        self.switch_ids = dict(switch_ids or {})  # INT switch id -> name
        self.drop_names = dict(drop_names or {})
        self._lock = threading.Lock()
        self._latest: dict[str, CounterSnapshot] = {}
        self._rates: dict[str, Rates] = {}
        self._int_counts: dict[str, int] = {}
        self._int_queue: dict[tuple[str, int], int] = {}
        self._int_latency_last: dict[str, int] = {}
        self.registry = CollectorRegistry()
        self.registry.register(self)
        self.hop_latency = Histogram(
            "sprayfabric_int_hop_latency_seconds",
            "Per-hop latency reported by INT",
            ["switch"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )

    # ------------------------------------------------------------ inputs
    def update(self, snap: CounterSnapshot) -> None:
        with self._lock:
            old = self._latest.get(snap.switch)
            self._latest[snap.switch] = snap
            if old is not None:
                self._rates[snap.switch] = rates(old, snap)

    def on_report(self, rep: IntReport) -> None:
        reporter = self.switch_ids.get(rep.node_id, str(rep.node_id))
        with self._lock:
            self._int_counts[reporter] = self._int_counts.get(reporter, 0) + 1
            for hop in rep.hops:
                if hop.switch_id is None:
                    continue
                name = self.switch_ids.get(hop.switch_id, str(hop.switch_id))
                if hop.queue_occupancy is not None and hop.egress_port is not None:
                    self._int_queue[(name, hop.egress_port)] = hop.queue_occupancy
                if hop.hop_latency_ns is not None:
                    self._int_latency_last[name] = hop.hop_latency_ns
        for hop in rep.hops:
            if hop.switch_id is not None and hop.hop_latency_ns is not None:
                name = self.switch_ids.get(hop.switch_id, str(hop.switch_id))
                self.hop_latency.labels(name).observe(hop.hop_latency_ns / 1e9)

    # ------------------------------------------------------------ outputs
    def exposition(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)

    def _peer(self, sw: str, port: int) -> PortInfo:
        return self.ports.get(sw, {}).get(port, PortInfo("", 0))

    def collect(self) -> Iterator[Any]:
        with self._lock:
            latest = dict(self._latest)
            rts = dict(self._rates)
            int_counts = dict(self._int_counts)
            int_queue = dict(self._int_queue)
        port_labels = ["switch", "port", "peer"]
        fams = {
            (key, unit): CounterMetricFamily(
                f"sprayfabric_port_{key}_{unit}", f"Port {unit} {key}", labels=port_labels
            )
            for key in ("rx", "tx")
            for unit in ("bytes", "packets")
        }
        util = GaugeMetricFamily(
            "sprayfabric_link_utilization_ratio", "Sent bits/s over link rate", labels=port_labels
        )
        queue = GaugeMetricFamily(
            "sprayfabric_queue_occupancy_packets",
            "Egress queue depth last recorded by the data plane",
            labels=["switch", "port"],
        )
        member_labels = ["switch", "group", "member", "port"]
        mpk = CounterMetricFamily(
            "sprayfabric_member_packets", "Packets per group member", labels=member_labels
        )
        share = GaugeMetricFamily(
            "sprayfabric_member_share_ratio",
            "A member's share of its group's packets in the last interval",
            labels=member_labels,
        )
        signals = {
            key: CounterMetricFamily(
                f"sprayfabric_{key}", f"Packets {key.replace('_', ' ')}", labels=["switch", "port"]
            )
            for key in ("ecn_marked", "trimmed", "cnp")
        }
        drops = CounterMetricFamily(
            "sprayfabric_drops", "Packets dropped by the program", labels=["switch", "reason"]
        )
        for sw, snap in sorted(latest.items()):
            r = rts.get(sw)
            for key in ("rx", "tx"):
                for port, data in sorted(getattr(snap, key).items()):
                    labels = [sw, str(port), self._peer(sw, port).peer]
                    fams[(key, "bytes")].add_metric(labels, data.bytes)
                    fams[(key, "packets")].add_metric(labels, data.packets)
            if r is not None:
                for port, bps in sorted(r.tx_bps.items()):
                    info = self._peer(sw, port)
                    if info.rate_bps:
                        util.add_metric([sw, str(port), info.peer], bps / info.rate_bps)
            for port, depth in sorted(snap.queue_depth.items()):
                queue.add_metric([sw, str(port)], depth)
            for m in snap.members:
                labels = [sw, str(m.group), str(m.index), str(m.port)]
                mpk.add_metric(labels, m.packets)
                if r is not None and (m.group, m.index) in r.member_share:
                    share.add_metric(labels, r.member_share[(m.group, m.index)])
            for key, fam in signals.items():
                for port, data in sorted(getattr(snap, key).items()):
                    fam.add_metric([sw, str(port)], data.packets)
            for reason, data in sorted(snap.drops.items()):
                drops.add_metric([sw, self.drop_names.get(reason, str(reason))], data.packets)
        int_reports = CounterMetricFamily(
            "sprayfabric_int_reports", "INT reports received", labels=["switch"]
        )
        for sw, n in sorted(int_counts.items()):
            int_reports.add_metric([sw], n)
        int_q = GaugeMetricFamily(
            "sprayfabric_int_queue_occupancy_packets",
            "Queue occupancy in the latest INT report",
            labels=["switch", "port"],
        )
        for (sw, port), q in sorted(int_queue.items()):
            int_q.add_metric([sw, str(port)], q)
        yield from fams.values()
        yield from (util, queue, mpk, share, *signals.values(), drops, int_reports, int_q)

    def rows(self) -> dict[str, Any]:
        """The live table's figures: links, members, congestion and drops per switch."""
        with self._lock:
            latest = dict(self._latest)
            rts = dict(self._rates)
            int_counts = dict(self._int_counts)
            int_latency = dict(self._int_latency_last)
            int_queue = dict(self._int_queue)
        links: list[dict[str, Any]] = []
        members: list[dict[str, Any]] = []
        switches: list[dict[str, Any]] = []
        for sw, snap in sorted(latest.items()):
            r = rts.get(sw)
            for port in sorted(self.ports.get(sw, {})):
                info = self.ports[sw][port]
                tx_bps = r.tx_bps.get(port, 0.0) if r else 0.0
                links.append(
                    {
                        "switch": sw,
                        "port": port,
                        "peer": info.peer,
                        "tx_bps": tx_bps,
                        "rx_bps": r.rx_bps.get(port, 0.0) if r else 0.0,
                        "utilization": tx_bps / info.rate_bps if info.rate_bps else 0.0,
                        # None: the target reads no registers (BMv2's PI)
                        "queue": snap.queue_depth.get(port),
                        # the queue in the latest INT report that crossed this port (None:
                        # no report did), where registers cannot be read (BMv2)
                        "int_queue": int_queue.get((sw, port)),
                        "tx_packets": snap.tx[port].packets if port in snap.tx else 0,
                        "ecn_marked": snap.ecn_marked[port].packets
                        if port in snap.ecn_marked
                        else 0,
                        "trimmed": snap.trimmed[port].packets if port in snap.trimmed else 0,
                        "cnp": snap.cnp[port].packets if port in snap.cnp else 0,
                    }
                )
            for m in snap.members:
                members.append(
                    {
                        "switch": sw,
                        "group": m.group,
                        "member": m.index,
                        "port": m.port,
                        "packets": m.packets,
                        "share": r.member_share.get((m.group, m.index), 0.0) if r else 0.0,
                    }
                )
            switches.append(
                {
                    "switch": sw,
                    "drops": {
                        self.drop_names.get(k, str(k)): v.packets
                        for k, v in sorted(snap.drops.items())
                        if v.packets
                    },
                    "int_reports": int_counts.get(sw, 0),
                    "int_hop_latency_ns": int_latency.get(sw),
                }
            )
        return {"links": links, "members": members, "switches": switches}
