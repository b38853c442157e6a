"""The record of a run's switch processes: the next run stops a recorded process only if it
is still that process (PID, start time, boot, command line), never while its run lives."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from controller.targets import LedgerBusy, ProcessLedger, RecordedProcess, process_id

ARGV = ("sleep", "300")


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    p = subprocess.Popen(list(ARGV))
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


def recorded(p: subprocess.Popen[bytes], **changes: object) -> RecordedProcess:
    ident = process_id(p.pid)
    assert ident is not None
    rec = RecordedProcess("sw", p.pid, ident.start_ticks, ident.boot_id, ARGV)
    return replace(rec, **changes)  # type: ignore[arg-type]


def write_record(path: Path, recs: list[RecordedProcess], owner: dict | None = None) -> None:
    path.write_text(json.dumps({"owner": owner, "processes": [asdict(r) for r in recs]}))


def test_a_process_whose_start_time_differs_is_left_alone(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    path = tmp_path / "switches.json"
    rec = recorded(sleeper)
    write_record(path, [replace(rec, start_ticks=rec.start_ticks - 1)])
    assert ProcessLedger(path).claim() == []
    assert sleeper.poll() is None
    assert json.loads(path.read_text())["processes"] == []  # the file is the new run's


@pytest.mark.parametrize(
    "change",
    [
        {"boot_id": "another-boot"},
        {"argv": ("sleep", "301")},
        {"argv": ("softswitch", "--device-id", "1", "sleep", "300")},
    ],
    ids=["other boot", "other arguments", "longer command line"],
)
def test_a_process_that_is_not_the_one_recorded_is_left_alone(
    tmp_path: Path, sleeper: subprocess.Popen[bytes], change: dict
) -> None:
    path = tmp_path / "switches.json"
    write_record(path, [recorded(sleeper, **change)])
    assert ProcessLedger(path).claim() == []
    assert sleeper.poll() is None


def test_the_recorded_process_is_stopped(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    path = tmp_path / "switches.json"
    rec = recorded(sleeper)
    gone = recorded(
        sleeper, name="dead", pid=2**22 + 7
    )  # above the largest pid_max: never a process
    write_record(path, [rec, gone])
    assert ProcessLedger(path).claim() == [rec]
    assert sleeper.wait(timeout=10) == -15  # SIGTERM


def test_nothing_is_stopped_while_the_recording_run_lives(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    path = tmp_path / "switches.json"
    me = process_id(os.getpid())
    assert me is not None
    write_record(path, [recorded(sleeper)], owner=asdict(me))
    with pytest.raises(LedgerBusy, match=f"the fabric of process {os.getpid()} still runs"):
        ProcessLedger(path).claim()
    assert sleeper.poll() is None
    # a dead owner (same PID, another start time) does not hold it
    write_record(path, [recorded(sleeper)], owner={**asdict(me), "start_ticks": 1})
    assert [r.pid for r in ProcessLedger(path).claim()] == [sleeper.pid]


def test_add_discard_close(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    path = tmp_path / "state" / "switches.json"
    ledger = ProcessLedger(path)
    assert ledger.claim() == []
    ledger.add("sw", sleeper.pid, ARGV)
    data = json.loads(path.read_text())
    assert data["owner"]["pid"] == os.getpid()
    assert [RecordedProcess(**{**p, "argv": tuple(p["argv"])}) for p in data["processes"]] == [
        recorded(sleeper)
    ]
    ledger.discard(sleeper.pid)
    assert json.loads(path.read_text())["processes"] == []
    ledger.close()
    assert not path.exists()


def test_a_run_stops_a_recorded_process_it_has_no_handle_for(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """A switch started and recorded when a stop signal cut in before the run kept its
    handle: stopping the run still stops it (the record says it is that process), and
    the record file goes."""
    from controller.fabric.desired import fabric_desired_state
    from controller.fabric.runner import FabricRun
    from controller.topology import load_topology

    root = Path(__file__).resolve().parents[2]
    run = FabricRun(
        load_topology(root / "topologies" / "leaf-spine-2x2.yaml"),
        workdir=tmp_path,
        desired_state=fabric_desired_state,
    )
    run.ledger = ProcessLedger(tmp_path / "switches.json")
    run.ledger.add("leaf1", sleeper.pid, ARGV)
    assert json.loads((tmp_path / "switches.json").read_text())["processes"]
    run.stop()
    assert sleeper.wait(timeout=15) != 0  # ended by our SIGTERM, not on its own
    assert not (tmp_path / "switches.json").exists()
