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
from controller.telemetry.alert_rows import alert_rows
from controller.telemetry.alerts import DropReport, QueueReport, decode_alert, is_alert
from controller.telemetry.int_report import ReportError, report_payload

__all__ = ["AlertLog"]


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
        -> the node on the other end (the port the drops came in on, the queue's port).
        The folding is controller.telemetry.alert_rows, which the live prober uses too."""
        names = {v: k for k, v in FabricConstants.load().drop_reasons.items()}
        return alert_rows(self.kept, peers, names)
