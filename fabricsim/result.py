"""What one simulation run returns: `SimResult`, the run's record (the JSON a run writes,
figures explained in `metrics.py`) and the figures every summary of runs shows.

    r = simulate(topology, SimConfig(mode="spray"))
    r.flows_completed, r["fct_p99_us"], r.summary()      # typed, by key, the summary row
    json.dump(r.to_dict(), f)                            # RUN.json

The demo's table, `sprayfabric sim`'s printout and `sprayfabric sweep`'s rows read the
figures named here (`SUMMARY_KEYS`, `COLUMNS`), not lists of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["COLUMNS", "SUMMARY_KEYS", "Column", "SimResult"]

# (record key, table heading, format of its value)
Column = tuple[str, str, str]


@dataclass(slots=True, frozen=True, eq=False)
class SimResult(Mapping[str, Any]):
    """One run's record, read-only; `to_dict()` is the JSON-able dict itself (the same
    keys in the same order as the file a run writes)."""

    record: dict[str, Any]

    # the figures a summary of runs shows for each run (demo summary.json, sweep rows)
    SUMMARY_KEYS: ClassVar[tuple[str, ...]] = (
        "throughput_pct_of_line_rate",
        "steady_rx_pct_of_line_rate",
        "fct_p50_us",
        "fct_p99_us",
        "reordered_pct",
        "ecn_marks",
        "cnps",
        "trims",
        "drops",
        "max_queue_pkts",
        "retransmissions",
        "queue_pkts_p99",
        "slowdown_p99",
        "flows_completed",
    )
    # the figures a table of runs prints (demo table.txt, `sprayfabric sim`)
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        ("throughput_pct_of_line_rate", "thru%", "{:.1f}"),
        ("steady_rx_pct_of_line_rate", "steady%", "{:.1f}"),
        ("fct_p50_us", "fct50us", "{:.1f}"),
        ("fct_p99_us", "fct99us", "{:.1f}"),
        ("reordered_pct", "reord%", "{:.2f}"),
        ("ecn_marks", "ecn", "{}"),
        ("cnps", "cnp", "{}"),
        ("trims", "trim", "{}"),
        ("drops", "drop", "{}"),
        ("retransmissions", "rtx", "{}"),
        ("max_queue_pkts", "maxq", "{}"),
    )

    def __getitem__(self, key: str) -> Any:
        return self.record[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.record)

    def __len__(self) -> int:
        return len(self.record)

    def to_dict(self) -> dict[str, Any]:
        """The record as a run writes it (json.dump it as it is)."""
        return self.record

    def summary(self, *extra: str) -> dict[str, Any]:
        """The SUMMARY_KEYS figures, then `extra` keys, in that order."""
        return {k: self.record[k] for k in (*self.SUMMARY_KEYS, *extra)}

    def column_lines(self) -> list[str]:
        """One `  heading value` line per COLUMNS figure."""
        return [f"  {head:<8} {fmt.format(self.record[key])}" for key, head, fmt in self.COLUMNS]

    @property
    def flows(self) -> int:
        return int(self.record["config"]["flows"])

    @property
    def flows_completed(self) -> int:
        return int(self.record["flows_completed"])

    @property
    def sim_time_us(self) -> float:
        return float(self.record["sim_time_us"])

    @property
    def packet_hops(self) -> int:
        return int(self.record["packet_hops"])

    @property
    def wall_s(self) -> float:
        return float(self.record["wall_s"])


SUMMARY_KEYS = SimResult.SUMMARY_KEYS
COLUMNS = SimResult.COLUMNS
