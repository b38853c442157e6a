"""`sprayfabric sweep --scheduler ADDR`: the grid runs on an existing Dask distributed
cluster (here a LocalCluster in this process, one worker) and gives, run by run, the same
figures as the local pool for the same grid (runs are deterministic by seed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sprayfabric.cli import main

distributed = pytest.importorskip("distributed", reason="needs dask distributed (extra 'dask')")

TOPO = str(Path(__file__).resolve().parents[2] / "topologies" / "leaf-spine-2x2.yaml")
GRID = ["--modes", "ecmp,spray", "--seeds", "1,2", "--flow-bytes", "8000"]


def _sweep(out: Path, *extra: str) -> list[dict]:
    assert main(["sweep", TOPO, *GRID, *extra, "-o", str(out)]) == 0
    return json.loads(out.read_text())


def test_sweep_on_a_dask_scheduler_matches_the_local_pool(tmp_path: Path) -> None:
    local = _sweep(tmp_path / "local.json", "--processes", "1")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        addr = cluster.scheduler_address
        assert addr.startswith(("tcp://", "inproc://"))
        remote = _sweep(tmp_path / "dask.json", "--scheduler", addr)
        # the four runs went through the scheduler: four run_job tasks finished there
        done = cluster.scheduler.task_prefixes["run_job"].state_counts["memory"]
    assert done == 4
    assert len(local) == len(remote) == 4
    assert {(r["mode"], r["seed"]) for r in remote} == {
        (m, s) for m in ("ecmp", "spray") for s in (1, 2)
    }
    assert remote == local  # same figures, same order (sorted by key)
    assert all(r["flows_completed"] > 0 for r in remote)


def test_unreachable_scheduler_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["sweep", TOPO, "--modes", "ecmp", "--scheduler", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert rc == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("sprayfabric: error: Dask scheduler tcp://127.0.0.1:1")
