"""The drop and queue reports a live probe run gives the doctor (the probe JSON's
`alerts`), from the fabric's INT collector.

desired.py turns fabric.p4's drop and queue reports on for the fabric's collector; the
collector keeps them apart from INT reports with the time each arrived
(`IntCollector.timed_alerts`). A window opened when a probe starts and closed when it ends
takes those that arrived in between and folds them as fabricsim's run JSON has them
(controller.telemetry.alert_rows: one row per switch, port and reason, times in ns from
the probe's start, each row's `peer` the node at the other end of its port):

    window = AlertWindow.open(run)
    ...                                         # the probe run
    window.close(seconds, traced, host_of_ip)   # {"drop_gap_us": ..., "reports": [...]}

The TTL-expired drops of the trace's own probes are left out (the prober sent them to
expire) and counted in `trace_drops`; `span_us` is how long the probe ran, the span the
doctor measures queue reports against (fabricsim's `sim_time_us`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..lb import FabricConstants
from ..telemetry.alert_rows import alert_rows
from ..telemetry.alerts import DropReport, QueueReport
from .desired import fabric_collector
from .live_ports import port_peers
from .traffic import ROCE_PORT

__all__ = ["AlertWindow"]


@dataclass(slots=True)
class AlertWindow:
    run: Any  # a FabricRun (its collector, topology, policy and wiring)
    alert_mark: int  # the collector's alerts_received when the window opened
    error_mark: int  # and its errors
    opened_ns: int  # time.time_ns() then (the collector's clock)

    @classmethod
    def open(cls, run: Any) -> AlertWindow:
        c = run.collector
        return cls(
            run,
            c.alerts_received if c is not None else 0,
            c.errors if c is not None else 0,
            time.time_ns(),
        )

    def close(
        self,
        seconds: float,
        traced: set[tuple[str, str, int]],
        host_of_ip: Mapping[str, str],
    ) -> dict[str, Any] | None:
        """The probe JSON's `alerts`; None without a collector or with reports off.
        `traced`: the (src, dst, source port) the prober traced; `host_of_ip`: ip -> host."""
        collector = self.run.collector
        col = fabric_collector(self.run)
        if collector is None or col is None:
            return None
        if not (col.drop_report_gap_us or col.queue_report_threshold):
            return None
        reasons = FabricConstants.load().drop_reasons
        names = {v: k for k, v in reasons.items()}
        switch_of_id = {s.device_id: s.name for s in self.run.topology.switches}
        kept: list[tuple[str, int, DropReport | QueueReport]] = []
        trace_drops = 0
        for t, rep in collector.timed_alerts(self.alert_mark):
            if isinstance(rep, DropReport) and rep.reason == reasons["TTL_EXPIRED"]:
                f = rep.flow
                if f is not None and f.dport == ROCE_PORT:
                    if (host_of_ip.get(f.src), host_of_ip.get(f.dst), f.sport) in traced:
                        trace_drops += 1
                        continue
            name = switch_of_id.get(rep.node_id, str(rep.node_id))
            kept.append((name, max(0, t - self.opened_ns), rep))
        return {
            "drop_gap_us": col.drop_report_gap_us,
            "queue_threshold": col.queue_report_threshold,
            "queue_gap_us": col.queue_report_gap_us,
            "span_us": round(seconds * 1e6),
            "undecoded": collector.errors - self.error_mark,  # any report, INT ones too
            "trace_drops": trace_drops,
            "reports": alert_rows(kept, port_peers(self.run.topology), names),
        }
