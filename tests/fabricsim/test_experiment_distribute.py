"""`sprayfabric experiment NAME --processes N | --scheduler ADDR`: the (variant, seed) runs
go to a forked pool or a Dask cluster, and the result, without its timings, is the same
bytes as the serial run's (assembled in variant, then seed order)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fabricsim.experiments import Scenario, get, run_scenario, without_timing
from sprayfabric.cli import main

TOPO = "leaf-spine:2x2x2"
KEEP = ("ecmp/dctcp", "spray/ndp")


def _tiny() -> Scenario:
    scn = get("permutation")

    def variants(quick: bool) -> dict[str, Any]:
        v = scn.variants(True)
        return {k: replace(v[k], flow_bytes=40_000) for k in KEEP}

    return replace(scn, variants=variants)


def _bytes(res: dict[str, Any]) -> str:
    return json.dumps(without_timing(res), indent=1)


def _check_order(res: dict[str, Any]) -> None:
    assert [(r["variant"], r["seed"]) for r in res["runs"]] == [
        (v, s) for v in KEEP for s in (1, 2)
    ]
    assert list(res["variants"]) == list(KEEP)
    assert res["scenario"]["topology"] == TOPO


def test_process_pool_gives_the_serial_bytes() -> None:
    quiet: Any = lambda _: None  # noqa: E731
    serial = run_scenario(_tiny(), seeds=(1, 2), topology=TOPO, report=quiet)
    lines: list[str] = []
    pooled = run_scenario(_tiny(), seeds=(1, 2), topology=TOPO, processes=2, report=lines.append)
    _check_order(serial)
    assert len(lines) == 4 and pooled["workers"] == 2
    assert _bytes(pooled) == _bytes(serial)
    assert all(r["flows_completed"] == 4 for r in serial["runs"])
    # the seeds do differ (else identical bytes would prove little)
    per = serial["variants"]["ecmp/dctcp"]["per_seed"]["whole_run_pct"]
    assert per[0] != per[1]


CLI = ["experiment", "reorder-window", "--quick", "--seeds", "1", "--topo", "leaf-spine:2x1x1"]


def test_dask_cluster_gives_the_serial_bytes(tmp_path: Path) -> None:
    distributed = pytest.importorskip(
        "distributed", reason="needs dask distributed (the 'dask' extra)"
    )
    serial = run_scenario(_tiny(), seeds=(1, 2), topology=TOPO, report=lambda _: None)
    assert main([*CLI, "--no-timing", "--out", str(tmp_path / "serial")]) == 0
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        addr = cluster.scheduler_address
        res = run_scenario(
            _tiny(), seeds=(1, 2), topology=TOPO, scheduler=addr, report=lambda _: None
        )
        assert main([*CLI, "--no-timing", "--scheduler", addr, "--out", str(tmp_path / "d")]) == 0
        done = cluster.scheduler.task_prefixes["run_task"].state_counts["memory"]
    assert done == 4 + 4  # the tiny scenario's four runs and reorder-window's four
    _check_order(res)
    assert res["workers"] == addr
    assert _bytes(res) == _bytes(serial)
    name = "reorder-window.json"
    assert (tmp_path / "d" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()


def test_cli_no_timing_files_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = CLI
    assert main([*base, "--no-timing", "--out", str(tmp_path / "a")]) == 0
    assert main([*base, "--no-timing", "--processes", "2", "--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a" / "reorder-window.json").read_bytes()
    assert a == (tmp_path / "b" / "reorder-window.json").read_bytes()
    assert "wall_s" not in json.loads(a)
    out = capsys.readouterr().out
    assert "topology leaf-spine:2x1x1" in out


def test_cli_bad_topology_and_processes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "permutation", "--topo", "fat-tree:3"]) == 1
    assert "fat-tree:3" in capsys.readouterr().err
    assert main(["experiment", "permutation", "--processes", "0"]) == 1
    assert "--processes 0" in capsys.readouterr().err
