"""The drop and queue reports of a simulated run (docs/fabric.md, "Drop reports" and
"Queue reports"), as the collector would keep them, for the run's JSON and the doctor.

With `SimConfig.reports` on, every switch's report port (the unwired port toward the
collector) passes its frames through an `AlertLog`: drop reports (D=1) and queue reports
(Q=1) are decoded (`controller.telemetry.decode_alert`) and kept with the time they left
the switch; INT reports go on where they went before. `AlertLog.summary` folds the
reports into one row per (kind, switch, port, reason): count, first and last time, and
for drops the destinations of the packets dropped, for queues the deepest queue seen.

Both kinds are rate-limited in the data plane (one drop report per reason, one queue
report per port, every gap): a row's count is a lower bound on the drops or the
congested packets, at most the run's length over the gap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.lb.constants import FabricConstants
from controller.telemetry.alerts import DropReport, QueueReport, decode_alert, is_alert
from controller.telemetry.int_report import ReportError, report_payload

__all__ = ["AlertLog"]

MAX_DSTS = 16  # destinations kept per drop row (the first ones, sorted)


@dataclass(slots=True)
class AlertLog:
    """The alerts every switch sent, in the order they left: (switch, time ns, report)."""

    now: Callable[[], int]
    kept: list[tuple[str, int, DropReport | QueueReport]] = field(default_factory=list)
    undecoded: int = 0  # alert frames that did not decode (counted, not kept)

    def tap(self, switch: str, then: Callable[[bytes], None]) -> Callable[[bytes], None]:
        """`switch`'s report-port handler: alerts are kept here, the rest go to `then`."""

        def on_report(frame: bytes) -> None:
            try:
                payload = report_payload(frame)
            except ReportError:
                then(frame)
                return
            if not is_alert(payload):
                then(frame)
                return
            try:
                self.kept.append((switch, self.now(), decode_alert(payload)))
            except ReportError:
                self.undecoded += 1

        return on_report

    def summary(self, peers: Mapping[tuple[str, int], str]) -> list[dict[str, Any]]:
        """One row per (kind, switch, port, reason), drops first; `peers`: (switch, port)
        -> the node on the other end (the port the drops came in on, the queue's port)."""
        names = {v: k for k, v in FabricConstants.load().drop_reasons.items()}
        rows: dict[tuple[str, str, int, str], dict[str, Any]] = {}
        for switch, t, rep in self.kept:
            if isinstance(rep, DropReport):
                key = ("drop", switch, rep.ingress_port, names.get(rep.reason, str(rep.reason)))
                port = rep.ingress_port
            else:
                key = ("queue", switch, rep.egress_port, "")
                port = rep.egress_port
            row = rows.get(key)
            if row is None:
                row = rows[key] = {
                    "type": key[0],
                    "switch": switch,
                    "port": port,
                    "peer": peers.get((switch, port)),
                    "count": 0,
                    "first_ns": t,
                    "last_ns": t,
                }
                if isinstance(rep, DropReport):
                    row |= {"reason": key[3], "dsts": []}
                else:
                    row |= {"max_occupancy": 0, "max_latency_ns": 0}
            row["count"] += 1
            row["last_ns"] = t
            if isinstance(rep, DropReport):
                dst = rep.flow.dst if rep.flow is not None else None
                if dst is not None and dst not in row["dsts"] and len(row["dsts"]) < MAX_DSTS:
                    row["dsts"].append(dst)
            else:
                row["max_occupancy"] = max(row["max_occupancy"], rep.queue_occupancy)
                row["max_latency_ns"] = max(row["max_latency_ns"], rep.hop_latency_ns)
        for row in rows.values():
            if row["type"] == "drop":
                row["dsts"].sort()
        return [rows[k] for k in sorted(rows)]
