"""`sprayfabric up` killed outright leaves its switches running; the next `up` in that
directory (or `sprayfabric down`) stops exactly those, by PID, and takes their ports. A stop
signal while the fabric starts stops every switch started so far."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from controller.targets import free_port
from tests.fabric_run.cli import EXE, sf, wait_ready


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie may wait for a reaper that never comes)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def tiny_topology(tmp: Path) -> Path:
    """One leaf, one spine, one host, on P4Runtime ports free a moment ago (fixed: a
    leftover switch holding one would make the second `up` fail)."""
    path = tmp / "tiny.yaml"
    subprocess.run(
        [*EXE, "topo", "gen", "leaf-spine", "--leaves", "1", "--spines", "1"]
        + ["--hosts-per-leaf", "1", "-o", str(path)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    text = path.read_text()
    for old in ("127.0.0.1:50001", "127.0.0.1:50002"):
        assert old in text
        text = text.replace(old, f"127.0.0.1:{free_port()}")
    path.write_text(text)
    return path


def start_up(tmp: Path, topo: Path, log_name: str) -> subprocess.Popen[bytes]:
    with open(tmp / log_name, "wb") as log:
        return subprocess.Popen([*EXE, "up", str(topo)], cwd=tmp, stdout=log, stderr=log)


def switch_pids(tmp: Path) -> list[int]:
    state = json.loads((tmp / ".sprayfabric" / "run.json").read_text())
    return [s["pid"] for s in state["switches"]]


def killed_up(tmp: Path, topo: Path, log_name: str, ups: list) -> list[int]:
    """Start `up`, wait until the fabric runs, SIGKILL it; its switch PIDs (still running)."""
    ups.append(start_up(tmp, topo, log_name))
    wait_ready(ups[-1], tmp / log_name)
    pids = switch_pids(tmp)
    assert len(pids) == 2
    record = json.loads((tmp / ".sprayfabric" / "switches.json").read_text())
    assert sorted(p["pid"] for p in record["processes"]) == sorted(pids)
    ups[-1].kill()
    ups[-1].wait(timeout=30)
    time.sleep(0.5)
    assert all(running(p) for p in pids)  # nothing stopped them
    return pids


def test_switches_a_killed_up_left_are_stopped_by_the_next_up_or_down(tmp_path: Path) -> None:
    topo = tiny_topology(tmp_path)
    ups: list[subprocess.Popen[bytes]] = []
    pids: list[int] = []
    try:
        # `down` after a killed `up`: its switches, by their record
        pids = killed_up(tmp_path, topo, "up1.log", ups)
        out = sf(tmp_path, "down").stdout
        assert out.startswith("stopped 2 switch processes"), out
        assert all(f"pid {p}," in out for p in pids), out
        assert not any(running(p) for p in pids)
        assert not (tmp_path / ".sprayfabric" / "run.json").exists()
        assert sf(tmp_path, "down").stdout == "no fabric here: nothing to stop\n"

        # `up` after a killed `up`: stops them first, in one line, and takes their ports
        pids = killed_up(tmp_path, topo, "up2.log", ups)
        ups.append(start_up(tmp_path, topo, "up3.log"))
        wait_ready(ups[-1], tmp_path / "up3.log")
        log = (tmp_path / "up3.log").read_text()
        stopped = [ln for ln in log.splitlines() if "switch processes" in ln]
        assert len(stopped) == 1, log
        assert stopped[0].startswith("sprayfabric: WARNING: stopped 2 switch processes")
        assert all(f"pid {p}," in stopped[0] for p in pids), stopped[0]
        assert not any(running(p) for p in pids)
        old, pids = pids, switch_pids(tmp_path)
        assert len(pids) == 2 and not set(pids) & set(old) and all(running(p) for p in pids)

        # `down` with `up` running: SIGTERM to `up`, which stops its switches itself
        out = sf(tmp_path, "down").stdout
        assert out.startswith(f"stopped the fabric of process {ups[-1].pid} (up "), out
        assert ups[-1].wait(timeout=10) == 0
        assert "fabric stopped" in (tmp_path / "up3.log").read_text()
        assert not any(running(p) for p in pids)
        assert not (tmp_path / ".sprayfabric" / "switches.json").exists()
    finally:
        for up in ups:
            if up.poll() is None:
                up.kill()
                up.wait(timeout=30)
        for pid in pids:  # the test started them (through `up`): stop what is left
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_stop_signal_while_starting_stops_every_switch(tmp_path: Path) -> None:
    topo = tiny_topology(tmp_path)
    record = tmp_path / ".sprayfabric" / "switches.json"
    up = start_up(tmp_path, topo, "up.log")
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(pids) < 2:  # both switches started, the fabric not yet programmed
            assert up.poll() is None, (tmp_path / "up.log").read_text()
            assert time.monotonic() < deadline
            try:
                pids = [p["pid"] for p in json.loads(record.read_text())["processes"]]
            except (OSError, ValueError):
                pass
            time.sleep(0.01)
        up.send_signal(signal.SIGHUP)  # the terminal went away
        assert up.wait(timeout=60) == 1
    finally:
        if up.poll() is None:
            up.kill()
            up.wait(timeout=30)
        # switches `up` left running (the test failed): noted, then stopped here
        left = [p for p in pids if running(p)]
        for p in left:
            os.kill(p, signal.SIGKILL)
    log = (tmp_path / "up.log").read_text()
    assert "interrupted while the fabric started; stopped" in log, log
    assert "Traceback" not in log
    assert not left
    assert not record.exists()
