"""Telemetry: INT reports (decoder and UDP collector), counter polling, Prometheus metrics."""

from .alert_rows import alert_rows
from .alerts import (
    DropReport,
    QueueReport,
    decode_alert,
    decode_alert_frame,
    decode_drop_report,
    decode_drop_report_frame,
)
from .collector import IntCollector
from .counters import CounterSnapshot, MemberCount, Rates, poll_counters, rates
from .int_report import (
    FlowKey,
    HopRecord,
    IntReport,
    ReportError,
    decode_report,
    decode_report_frame,
)
from .metrics import FabricMetrics, PortInfo

__all__ = [
    "CounterSnapshot",
    "FabricMetrics",
    "MemberCount",
    "PortInfo",
    "Rates",
    "poll_counters",
    "rates",
    "DropReport",
    "alert_rows",
    "QueueReport",
    "decode_alert",
    "decode_alert_frame",
    "decode_drop_report",
    "decode_drop_report_frame",
    "FlowKey",
    "HopRecord",
    "IntCollector",
    "IntReport",
    "ReportError",
    "decode_report",
    "decode_report_frame",
]
