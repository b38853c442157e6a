"""The `sprayfabric` fabric commands end to end, as a user runs them: `up` in one process,
`status`, `send`, `set-lb`, `link`, `telemetry` from others, Ctrl-C stopping every switch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.fabric_run.cli import EXE, sf, wait_ready

ROOT = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_up_status_send_set_lb_link_telemetry_stop(tmp_path: Path) -> None:
    r = sf(tmp_path, "status", ok=False)
    assert r.returncode == 1 and "no running fabric here" in r.stderr
    log = open(tmp_path / "up.log", "w")  # noqa: SIM115 -- closed below
    up = subprocess.Popen(
        [
            *EXE,
            "up",
            str(ROOT / "topologies" / "leaf-spine-2x2.yaml"),
            "--free-ports",
            "--policy",
            str(ROOT / "topologies" / "policy-default.yaml"),
        ],
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    pids: list[int] = []
    try:
        wait_ready(up, tmp_path / "up.log")
        state = json.loads((tmp_path / ".sprayfabric" / "run.json").read_text())
        pids = [s["pid"] for s in state["switches"]]
        assert len(pids) == 4 and all(alive(p) for p in pids)

        st = json.loads(sf(tmp_path, "status", "--json").stdout)
        assert all(s["connected"] and s["entries"] > 0 for s in st["switches"].values())

        out = sf(tmp_path, "send", "h1", "h4", "--count", "400", "--rate", "2000").stdout
        assert "400 sent, 400 received, 0 lost" in out
        out = sf(tmp_path, "send", "h2", "h3", "--count", "100", "--roce").stdout
        assert "100 sent, 100 received, 0 lost" in out

        # p4runtime-shell on leaf1 as a backup: it reads what the controller wrote
        shell = subprocess.run(
            [*EXE, "shell", "leaf1"],
            cwd=tmp_path,
            input='print("ROUTES", len(list(table_entry["routing_v4"].read())))\nexit\n',
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "as backup (read-only)" in shell.stdout, (shell.stdout, shell.stderr)
        assert "ROUTES 3" in shell.stdout, (shell.stdout, shell.stderr)  # leaf2's /24, 2 /32s

        out = sf(tmp_path, "set-lb", "ecmp").stdout
        assert out.startswith("every group now ecmp:") and "modified on 4 switches" in out
        out = sf(tmp_path, "link", "down", "leaf1", "spine1").stdout
        assert "links down: leaf1-spine1" in out
        out = sf(tmp_path, "send", "h1", "h4", "--count", "200").stdout
        assert "200 sent, 200 received, 0 lost" in out
        r = sf(tmp_path, "link", "down", "leaf1", "h1", ok=False)
        assert r.returncode == 1 and "no link between switches leaf1 and h1" in r.stderr
        sf(tmp_path, "link", "up", "leaf1", "spine1")

        time.sleep(1.5)  # one counter poll after the traffic
        t = json.loads(sf(tmp_path, "telemetry", "--once", "--json").stdout)
        to_h4 = next(lk for lk in t["links"] if lk["switch"] == "leaf2" and lk["peer"] == "h4")
        assert to_h4["tx_packets"] == 600
        leaf2 = next(s for s in t["switches"] if s["switch"] == "leaf2")
        assert leaf2["int_reports"] == 100  # the RoCEv2 frames were INT-watched
        table = sf(tmp_path, "telemetry", "--once").stdout
        assert "leaf1:3->spine1" in table and "leaf2: INT reports 100" in table
    finally:
        if up.poll() is None:
            up.send_signal(signal.SIGINT)
        try:
            code = up.wait(timeout=60)
        finally:
            log.close()
    assert code == 0
    assert "fabric stopped" in (tmp_path / "up.log").read_text()
    assert not any(alive(p) for p in pids)
    assert not (tmp_path / ".sprayfabric" / "run.json").exists()


def test_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nswitches: [{name: s1, role: leaf}]\n")
    r = sf(tmp_path, "up", str(bad), ok=False)
    assert r.returncode == 1 and "bad.yaml" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1
    for args in (
        ("set-lb", "spray"),
        ("set-lb", "spray_random"),
        ("link", "down", "a", "b"),
        ("telemetry", "--once"),
    ):
        r = sf(tmp_path, *args, ok=False)
        assert r.returncode == 1 and "no running fabric here" in r.stderr, args
    # `up --target bmv2` without BMv2 or root: tests/fabric_run/test_bmv2_up.py
