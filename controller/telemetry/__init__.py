"""Telemetry: INT reports (decoder and UDP collector), counter polling, Prometheus metrics."""

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
    "FlowKey",
    "HopRecord",
    "IntCollector",
    "IntReport",
    "ReportError",
    "decode_report",
    "decode_report_frame",
]
