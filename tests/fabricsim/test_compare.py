"""`sprayfabric compare`: grouping, bootstrap intervals, verdicts and exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricsim.compare import (
    CompareError,
    Row,
    bootstrap_ci,
    compare,
    direction,
    load_rows,
)
from sprayfabric.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOPO = ROOT / "topologies" / "leaf-spine-4x4.yaml"
G = "mode=x workload=permutation"  # a group's label: its configuration, sorted


def _rows(
    mode: str, values: dict[int, float], metric: str = "throughput_pct_of_line_rate"
) -> list[Row]:
    return [
        Row({"workload": "permutation", "mode": mode, "seed": s}, {metric: v}, "t")
        for s, v in values.items()
    ]


def test_bootstrap_interval_spans_the_extreme_resamples() -> None:
    # with two seeds a side, drawing the same seed twice on both sides has probability 1/16,
    # more than 2.5%: the 95% interval is exactly the extremes of mean(B) - mean(A)
    assert bootstrap_ci([0.0, 2.0], [10.0, 12.0]) == (8.0, 12.0)
    assert bootstrap_ci([1.0], [3.0, 4.0]) is None


def test_directions() -> None:
    assert direction("throughput_pct_of_line_rate") == 1
    assert direction("fct_p99_us") == -1
    assert direction("timeouts") == -1
    assert direction("ecn_marks") == 0


def test_regression_needs_significance_and_the_threshold() -> None:
    a = _rows("x", {1: 60.0, 2: 62.0})
    # 3% lower, every resample lower: significant, but within the 5% threshold
    small = compare(a, _rows("x", {3: 57.5, 4: 59.5}))
    (ch,) = small.groups[G]
    assert ch.significant and ch.verdict == "worse" and not small.regressions
    # 10% lower and significant: a regression
    big = compare(a, _rows("x", {3: 54.0, 4: 55.8}))
    assert [c.metric for _g, c in big.regressions] == ["throughput_pct_of_line_rate"]
    # 10% lower on average but the seeds overlap: not significant
    noisy = compare(a, _rows("x", {3: 45.0, 4: 65.0}))
    assert not noisy.regressions
    assert noisy.groups[G][0].verdict == "worse"
    # lower is better for FCT: a shorter FCT is an improvement
    fct = compare(
        _rows("x", {1: 100.0, 2: 104.0}, "fct_p99_us"), _rows("x", {3: 80.0, 4: 82.0}, "fct_p99_us")
    )
    assert fct.groups[G][0].verdict == "improvement"


def test_one_run_a_side_is_judged_by_the_threshold_alone() -> None:
    c = compare(_rows("x", {1: 60.0}), _rows("x", {1: 50.0}))
    (ch,) = c.groups[G]
    assert ch.ci is None and ch.verdict == "regression"
    same = compare(_rows("x", {1: 60.0}), _rows("x", {1: 60.0}))
    assert same.groups[G][0].verdict == "same"


def test_a_field_differing_between_the_sides_is_what_is_compared() -> None:
    a = _rows("ecmp", {1: 40.0, 2: 42.0}) + [
        Row(
            {"workload": "incast", "mode": "ecmp", "seed": 1},
            {"throughput_pct_of_line_rate": 70.0},
            "t",
        )
    ]
    b = _rows("spray", {1: 60.0, 2: 62.0})
    c = compare(a, b)
    assert c.varying == {"mode": ("ecmp", "spray")}
    assert list(c.groups) == ["workload=permutation"]
    assert c.only_a == ["workload=incast"]


def test_nothing_in_common_is_an_error() -> None:
    a = [
        Row({"workload": "incast", "load": 0.3, "mode": "m", "seed": 1}, {"drops": 1.0}, "t"),
        Row({"workload": "incast", "load": 0.5, "mode": "m", "seed": 1}, {"drops": 1.0}, "t"),
    ]
    b = [
        Row({"workload": "incast", "load": 0.7, "mode": "m", "seed": 1}, {"drops": 1.0}, "t"),
        Row({"workload": "incast", "load": 0.9, "mode": "m", "seed": 1}, {"drops": 1.0}, "t"),
    ]
    with pytest.raises(CompareError, match="no configuration is on both sides"):
        compare(a, b)
    with pytest.raises(CompareError, match="no run has the figure"):
        compare(a, a, metrics=["nope"])


def test_loads_runs_sweeps_demo_summaries_and_directories(tmp_path: Path) -> None:
    run = {
        "config": {"workload": "permutation", "mode": "spray", "seed": 3},
        "drops": 2,
        "wall_s": 1.5,
        "flows": [{"fid": 1}],
        "pfc": False,
    }
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.json").write_text(json.dumps(run))
    (tmp_path / "summary.json").write_text(json.dumps({"permutation": {"spray": {"drops": 2}}}))
    (rows,) = [load_rows(tmp_path / "runs" / "a.json")]
    assert rows[0].config["seed"] == 3
    # host timing and non-numeric values are not figures
    assert dict(rows[0].metrics) == {"drops": 2.0}
    # a directory reads its runs, not the demo summary that repeats them
    assert len(load_rows(tmp_path)) == 1
    demo = load_rows(tmp_path / "summary.json")
    assert demo[0].config == {"workload": "permutation", "mode": "spray"}
    sweep = tmp_path / "sweep.json"
    sweep.write_text(
        json.dumps([{"workload": "w", "mode": "m", "seed": 1, "load": 0.5, "drops": 4}])
    )
    (row,) = load_rows(sweep)
    assert row.config == {"workload": "w", "mode": "m", "seed": 1, "load": 0.5}
    assert dict(row.metrics) == {"drops": 4.0}
    bad = tmp_path / "bad.json"
    bad.write_text('{"config": \n oops}')
    with pytest.raises(CompareError, match=r"bad.json:2:2: not JSON"):
        load_rows(bad)
    with pytest.raises(CompareError, match="no such file"):
        load_rows(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text('{"x": 1}')
    with pytest.raises(CompareError, match="not a run, a sweep"):
        load_rows(tmp_path / "other.json")


def _sweep(tmp_path: Path, mode: str, seeds: str) -> Path:
    out = tmp_path / f"{mode}-{seeds.replace(',', '_')}.json"
    status = main(
        [
            "sweep",
            str(TOPO),
            "--modes",
            mode,
            "--seeds",
            seeds,
            "--flow-bytes",
            "100000",
            "--transport",
            "dctcp",
            "--processes",
            "1",
            "-o",
            str(out),
        ]
    )
    assert status == 0
    return out


def test_cli_flags_a_real_regression_and_passes_other_seeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spray = _sweep(tmp_path, "spray", "1,2")
    ecmp = _sweep(tmp_path, "ecmp", "1,2")
    spray_other = _sweep(tmp_path, "spray", "3,4")
    capsys.readouterr()
    # hash ECMP collides flows on a permutation: throughput falls, FCT rises, both significant
    assert main(["compare", str(spray), str(ecmp), "--json", str(tmp_path / "c.json")]) == 2
    out = capsys.readouterr().out
    assert "compared: mode = spray (A) vs ecmp (B)" in out
    assert "REGRESSION" in out
    doc = json.loads((tmp_path / "c.json").read_text())
    verdicts = {c["metric"]: c["verdict"] for c in doc["groups"]["workload=permutation"]}
    assert verdicts["throughput_pct_of_line_rate"] == "regression"
    # the same configuration on other seeds is noise, not a regression
    assert main(["compare", str(spray), str(spray_other)]) == 0
    assert "no regression" in capsys.readouterr().out
    # a usage error is status 1, not the regression status
    assert main(["compare", str(spray), str(tmp_path / "none.json")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["compare", str(spray), str(ecmp), "--threshold", "-3"]) == 1
    assert "--threshold: expected a percentage of 0 or more" in capsys.readouterr().err
