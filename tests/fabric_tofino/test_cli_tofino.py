"""The commands on a Tofino fabric: `up --target tofino` as a process against the fake
switches of this test, `status` through its control endpoint and, once it ended, read
back from the switches, `lb set` while it runs, `down` (stops `up`, forgets the record)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from tests.fabric_run.cli import EXE

from .conftest import TOPOLOGY
from .fake_p4runtime import FakeP4Runtime

READY = "Ctrl-C stops the controller only"


def sf(cwd: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """`sprayfabric ARGS` in `cwd`; with `ok`, it must exit 0."""
    r = subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if ok:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def _start_up(work: Path, bf_out: Path, switches_file: Path) -> tuple[subprocess.Popen, Path]:  # type: ignore[type-arg]
    """`sprayfabric fabric up --target tofino` in `work` (a new directory), its output in
    `work/up.log`, once it says it is ready."""
    work.mkdir()
    log = work / "up.log"
    args = ["fabric", "up", str(TOPOLOGY), "--target", "tofino", "--bf-out", str(bf_out)]
    with log.open("w") as out:
        up = subprocess.Popen(
            [*EXE, *args, "--switches", str(switches_file)],
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    try:
        while READY not in log.read_text():
            assert up.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
    except BaseException:
        up.terminate()
        up.wait(30)
        raise
    return up, log


def test_up_status_down(
    tmp_path: Path, bf_out: Path, switches_file: Path, fakes: dict[str, FakeP4Runtime]
) -> None:
    work = tmp_path / "cwd"
    up, log = _start_up(work, bf_out, switches_file)
    try:
        text = log.read_text()
        assert "4 tofino switches" in text and "pid - (not ours)" in text
        st = sf(work, "fabric", "status").stdout
        assert "on tofino" in st and "leaf1" in st and "DOWN" not in st
        r = sf(work, "fabric", "send", "h1", "h4", ok=False)
        assert r.returncode == 1 and "hosts of a tofino fabric" in r.stderr
        before = len(fakes["leaf1"].write_requests)
        sf(work, "lb", "set", "spray")
        assert len(fakes["leaf1"].write_requests) > before
        down = sf(work, "fabric", "down").stdout
        assert "stopped the fabric of process" in down and "forgot the Tofino fabric" in down
        assert up.wait(30) == 0
        assert "controller stopped" in log.read_text()
        # down forgot it: nothing here any more
        assert "no running fabric here" in sf(work, "fabric", "status", ok=False).stderr
    finally:
        if up.poll() is None:
            up.terminate()
            up.wait(30)


def test_status_after_up_ended_reads_the_switches(
    tmp_path: Path, bf_out: Path, switches_file: Path, fakes: dict[str, FakeP4Runtime]
) -> None:
    work = tmp_path / "cwd"
    up, _log = _start_up(work, bf_out, switches_file)
    up.terminate()
    assert up.wait(30) == 0
    st = sf(work, "fabric", "status").stdout
    assert "no controller running: read back" in st
    rows = {line.split()[0]: line.split() for line in st.splitlines()[2:]}
    assert set(rows) == set(fakes)
    assert all(r[3] == "ours" and int(r[4]) > 0 for r in rows.values())
    assert "forgot the Tofino fabric" in sf(work, "fabric", "down").stdout


def test_wrong_flags_are_one_line(tmp_path: Path, bf_out: Path) -> None:
    topo = str(TOPOLOGY)
    for args, said in (
        (("--target", "tofino2"), "target tofino2 needs --bf-out DIR (bf-p4c's output)"),
        (
            ("--target", "tofino", "--bf-out", str(bf_out), "--queue-rate", "9"),
            "--queue-rate: not for target tofino (its switches are not started here: "
            "their queues are the switch's own configuration)",
        ),
        (("--bf-out", str(bf_out)), "--bf-out: for --target tofino or tofino2 only"),
    ):
        r = sf(tmp_path, "up", topo, *args, ok=False)  # the old spelling: an alias
        assert r.returncode == 1
        assert r.stderr.strip() == f"sprayfabric: error: {said}"
