"""Compare two sets of simulation results metric by metric, with bootstrap intervals over seeds.

A side (A, the baseline, or B, the candidate) is one file or a directory of files, each a
run (`sprayfabric sim --json`), a sweep (`sprayfabric sweep -o`: a list of flat rows), an
experiment's JSON (a dict with a `runs` list of such rows) or a demo `summary.json`
(workload -> mode -> figures). Every run becomes a row: its configuration (workload, mode,
transport, load, ...) and its numeric figures. Rows are grouped by configuration, the seed
aside; a configuration field that has one value on each side and different values between
them (`mode=ecmp` against `mode=spray`) is what is being compared and is left out of the
grouping, so two sweeps of different modes line up workload by workload.

For each group and figure: the mean on each side, B - A, and the 95% percentile-bootstrap
interval of the difference of means (resampling each side's seeds with replacement). A
figure with a known good direction is a *regression* when B is worse than A by more than
the threshold (relative to A's mean) and, when both sides have two seeds or more, the
interval excludes 0; with one run on a side there is no interval and the threshold alone
decides. Figures without a known direction are reported, never judged. Host timing
(`wall_s`, `cpu_s`) is machine noise and left out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "Change",
    "Comparison",
    "CompareError",
    "Row",
    "compare",
    "direction",
    "format_comparison",
    "load_rows",
]

# fields of a flat sweep row that describe the run rather than measure it
CONFIG_FIELDS = frozenset(
    {
        "workload",
        "mode",
        "seed",
        "load",
        "size_mix",
        "receiver",
        "reorder_window",
        "transport",
        "pmtu",
        "flow_bytes",
        "flows",
        "pfc",
        "topology",
        "fan_in",
        "experiment",
        "variant",
    }
)
# measured on the host, not in the simulation: not comparable between machines or runs
TIMING_FIELDS = frozenset({"wall_s", "cpu_s", "loop_wall_s", "setup_wall_s"})

_HIGHER = ("throughput_", "goodput_", "flows_completed")
_LOWER = (
    "fct_",
    "slowdown_",
    "reordered_pct",
    "reorder_distance_",
    "dropped_outside_window",
    "spurious_retransmissions",
    "timeouts",
    "drops",
    "retransmissions",
    "max_queue_pkts",
    "queue_pkts_",
    "pfc_pause_us",
    "uplink_max_over_mean",
)


class CompareError(ValueError):
    """A side that cannot be read or compared."""


def direction(metric: str) -> int:
    """+1 when more is better, -1 when less is better, 0 when the figure is not judged."""
    if metric.startswith(_HIGHER):
        return 1
    if metric.startswith(_LOWER):
        return -1
    return 0


@dataclass(frozen=True)
class Row:
    """One run: its configuration (seed included) and its numeric figures."""

    config: Mapping[str, Any]
    metrics: Mapping[str, float]
    source: str


def _scalar_metrics(d: Mapping[str, Any], skip: Iterable[str]) -> dict[str, float]:
    skipped = set(skip) | TIMING_FIELDS
    return {
        k: float(v)
        for k, v in d.items()
        if k not in skipped and isinstance(v, int | float) and not isinstance(v, bool)
    }


def _row_of_run(run: Mapping[str, Any], source: str) -> Row:
    config = dict(run["config"])
    return Row(config, _scalar_metrics(run, ("config",)), source)


def _row_of_flat(flat: Mapping[str, Any], source: str) -> Row:
    config = {
        k: v
        for k, v in flat.items()
        if k in CONFIG_FIELDS or not isinstance(v, int | float) or isinstance(v, bool)
    }
    return Row(config, _scalar_metrics(flat, config), source)


def _rows_of_demo(summary: Mapping[str, Any], source: str) -> list[Row]:
    rows = []
    for wl, modes in summary.items():
        for mode, figures in modes.items():
            rows.append(Row({"workload": wl, "mode": mode}, _scalar_metrics(figures, ()), source))
    return rows


def _is_demo_summary(data: Mapping[str, Any]) -> bool:
    return bool(data) and all(
        isinstance(modes, dict) and modes and all(isinstance(m, dict) for m in modes.values())
        for modes in data.values()
    )


def _rows_of_document(data: Any, source: str) -> list[Row]:
    if isinstance(data, list):
        if not all(isinstance(r, dict) for r in data):
            raise CompareError(f"{source}: a list that is not of result rows")
        return [_row_of_run(r, source) if "config" in r else _row_of_flat(r, source) for r in data]
    if isinstance(data, dict):
        if isinstance(data.get("config"), dict):
            return [_row_of_run(data, source)]
        if isinstance(data.get("runs"), list):
            return _rows_of_document(data["runs"], source)
        if _is_demo_summary(data):
            return _rows_of_demo(data, source)
    raise CompareError(
        f"{source}: not a run, a sweep, an experiment or a demo summary "
        "(expected a 'config' object, a list of rows or a 'runs' list)"
    )


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CompareError(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None


def load_rows(path: str | Path) -> list[Row]:
    """Every run in a file, or in the run and sweep files under a directory."""
    p = Path(path)
    if p.is_dir():
        rows: list[Row] = []
        for f in sorted(p.rglob("*.json")):
            data = _read(f)
            # a directory holds the runs themselves; a demo summary repeats them
            if isinstance(data, dict) and _is_demo_summary(data):
                continue
            rows.extend(_rows_of_document(data, str(f)))
        if not rows:
            raise CompareError(f"{p}: no run or sweep JSON under this directory")
        return rows
    if not p.is_file():
        raise CompareError(f"{p}: no such file or directory")
    rows = _rows_of_document(_read(p), str(p))
    if not rows:
        raise CompareError(f"{p}: holds no runs")
    return rows


def _fmt_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _varying(rows_a: Sequence[Row], rows_b: Sequence[Row]) -> dict[str, tuple[Any, Any]]:
    """Configuration fields that are one value on each side and differ between the sides."""
    out = {}
    keys = {k for r in [*rows_a, *rows_b] for k in r.config} - {"seed"}
    for k in sorted(keys):
        va = {json.dumps(r.config.get(k)) for r in rows_a}
        vb = {json.dumps(r.config.get(k)) for r in rows_b}
        if len(va) == 1 and len(vb) == 1 and va != vb:
            out[k] = (rows_a[0].config.get(k), rows_b[0].config.get(k))
    return out


def _group_key(row: Row, leave_out: Iterable[str]) -> tuple[tuple[str, str], ...]:
    skip = set(leave_out) | {"seed"}
    return tuple(sorted((k, json.dumps(v)) for k, v in row.config.items() if k not in skip))


@dataclass(frozen=True)
class Change:
    """One figure of one group on both sides."""

    metric: str
    a: tuple[float, ...]
    b: tuple[float, ...]
    ci: tuple[float, float] | None  # 95% interval of mean(B) - mean(A); None with one run
    threshold_pct: float

    @property
    def mean_a(self) -> float:
        return float(np.mean(self.a))

    @property
    def mean_b(self) -> float:
        return float(np.mean(self.b))

    @property
    def delta(self) -> float:
        return self.mean_b - self.mean_a

    @property
    def relative_pct(self) -> float | None:
        if self.mean_a == 0:
            return None if self.delta else 0.0
        return 100 * self.delta / abs(self.mean_a)

    @property
    def significant(self) -> bool:
        """The interval excludes 0 (with one run on a side: any difference counts)."""
        if self.ci is None:
            return self.delta != 0
        lo, hi = self.ci
        return lo > 0 or hi < 0

    def _beyond_threshold(self) -> bool:
        rel = self.relative_pct
        return rel is None or abs(rel) > self.threshold_pct

    @property
    def verdict(self) -> str:
        """regression, improvement, worse/better (within the threshold or not significant),
        changed (a figure without a direction), same."""
        if self.delta == 0:
            return "same"
        sign = direction(self.metric)
        if sign == 0:
            return "changed"
        good = self.delta * sign > 0
        if self.significant and self._beyond_threshold():
            return "improvement" if good else "regression"
        return "better" if good else "worse"


@dataclass
class Comparison:
    """Every group's changes, and what was compared."""

    varying: dict[str, tuple[Any, Any]]
    groups: dict[str, list[Change]] = field(default_factory=dict)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    runs_a: int = 0
    runs_b: int = 0

    @property
    def regressions(self) -> list[tuple[str, Change]]:
        return [(g, c) for g, cs in self.groups.items() for c in cs if c.verdict == "regression"]

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": {"a": self.runs_a, "b": self.runs_b},
            "compared": {k: {"a": a, "b": b} for k, (a, b) in self.varying.items()},
            "only_in_a": self.only_a,
            "only_in_b": self.only_b,
            "groups": {
                g: [
                    {
                        "metric": c.metric,
                        "a": list(c.a),
                        "b": list(c.b),
                        "mean_a": c.mean_a,
                        "mean_b": c.mean_b,
                        "delta": c.delta,
                        "relative_pct": c.relative_pct,
                        "ci95": list(c.ci) if c.ci is not None else None,
                        "verdict": c.verdict,
                    }
                    for c in cs
                ]
                for g, cs in self.groups.items()
            },
            "regressions": len(self.regressions),
        }


def bootstrap_ci(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float] | None:
    """95% percentile-bootstrap interval of mean(b) - mean(a); None unless both have 2+ values."""
    if len(a) < 2 or len(b) < 2:
        return None
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    ma = xa[rng.integers(0, len(xa), size=(resamples, len(xa)))].mean(axis=1)
    mb = xb[rng.integers(0, len(xb), size=(resamples, len(xb)))].mean(axis=1)
    lo, hi = np.percentile(mb - ma, [2.5, 97.5])
    return float(lo), float(hi)


def _label(key: tuple[tuple[str, str], ...]) -> str:
    shown = [(k, json.loads(v)) for k, v in key]
    return " ".join(f"{k}={_fmt_value(v)}" for k, v in shown if v is not None) or "all runs"


def compare(
    rows_a: Sequence[Row],
    rows_b: Sequence[Row],
    *,
    threshold_pct: float = 5.0,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
) -> Comparison:
    """Group both sides' runs by configuration and compare every figure they share."""
    if threshold_pct < 0 or math.isnan(threshold_pct):
        raise CompareError(f"threshold must be a percentage >= 0, not {threshold_pct}")
    varying = _varying(rows_a, rows_b)
    groups_a: dict[tuple[tuple[str, str], ...], list[Row]] = {}
    groups_b: dict[tuple[tuple[str, str], ...], list[Row]] = {}
    for rows, groups in ((rows_a, groups_a), (rows_b, groups_b)):
        for r in rows:
            groups.setdefault(_group_key(r, varying), []).append(r)
    out = Comparison(varying, runs_a=len(rows_a), runs_b=len(rows_b))
    out.only_a = [_label(k) for k in groups_a if k not in groups_b]
    out.only_b = [_label(k) for k in groups_b if k not in groups_a]
    if not set(groups_a) & set(groups_b):
        raise CompareError(
            "no configuration is on both sides: A has "
            + "; ".join(out.only_a)
            + ", B has "
            + "; ".join(out.only_b)
        )
    known: set[str] = set()
    for key in sorted(set(groups_a) & set(groups_b)):
        ga, gb = groups_a[key], groups_b[key]
        shared = set.intersection(*(set(r.metrics) for r in [*ga, *gb]))
        known |= {m for r in [*ga, *gb] for m in r.metrics}
        chosen = sorted(shared if metrics is None else shared & set(metrics))
        changes = []
        for i, m in enumerate(chosen):
            va = tuple(r.metrics[m] for r in ga)
            vb = tuple(r.metrics[m] for r in gb)
            changes.append(Change(m, va, vb, bootstrap_ci(va, vb, seed=seed + i), threshold_pct))
        out.groups[_label(key)] = changes
    unknown = sorted(set(metrics or ()) - known)
    if unknown:
        raise CompareError(f"no run has the figure(s) {', '.join(unknown)}")
    return out


def _num(v: float) -> str:
    return f"{v:.4g}"


def format_comparison(c: Comparison, *, show_all: bool = False) -> str:
    """The comparison as text: one table per group, regressions marked."""
    lines = [f"A: {c.runs_a} run(s)   B: {c.runs_b} run(s)"]
    for k, (a, b) in c.varying.items():
        lines.append(f"  compared: {k} = {_fmt_value(a)} (A) vs {_fmt_value(b)} (B)")
    for name, items in (("A", c.only_a), ("B", c.only_b)):
        for g in items:
            lines.append(f"  only in {name}: {g} (not compared)")
    head = f"  {'figure':<30} {'A':>10} {'B':>10} {'change':>9}  {'95% CI of B-A':<24} verdict"
    for group, changes in c.groups.items():
        na = len(changes[0].a) if changes else 0
        nb = len(changes[0].b) if changes else 0
        lines += ["", f"{group}  (seeds: A {na}, B {nb})", head]
        for ch in changes:
            if not show_all and ch.verdict in ("same", "changed"):
                continue
            rel = ch.relative_pct
            rel_s = "n/a" if rel is None else f"{rel:+.1f}%"
            ci_s = (
                "one run: no interval"
                if ch.ci is None
                else (f"[{_num(ch.ci[0])}, {_num(ch.ci[1])}]")
            )
            mark = "REGRESSION" if ch.verdict == "regression" else ch.verdict
            lines.append(
                f"  {ch.metric:<30} {_num(ch.mean_a):>10} {_num(ch.mean_b):>10} {rel_s:>9}  "
                f"{ci_s:<24} {mark}"
            )
        hidden = sum(ch.verdict in ("same", "changed") for ch in changes)
        if hidden and not show_all:
            lines.append(
                f"  ({hidden} figure(s) unchanged or without a direction; --all shows them)"
            )
    n = len(c.regressions)
    lines += ["", f"{n} regression(s)" if n else "no regression"]
    return "\n".join(lines)
