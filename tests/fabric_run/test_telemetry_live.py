"""`sprayfabric telemetry` against a running fabric under congestion: `up` with slow egress
queues (`--queue-rate`), ECN-capable RoCEv2 traffic through them, and the live table read
while it flows. The table must show what the switches did: per-link utilisation and queue
occupancy while traffic flows; ECN marks, trims, CNPs, drops by reason, INT reports and
per-hop latency afterwards, consistent with what the receiving host counted."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from controller.fabric.control import RunState
from controller.fabric.traffic import build_frame, send
from tests.fabric_run.cli import EXE, sf, wait_ready

ROOT = Path(__file__).resolve().parents[2]
HEADER = ("link", "tx b/s", "rx b/s", "util", "queue", "int q", "tx pkts", "ecn", "trim", "cnp")


def link_rows(table: str) -> dict[str, list[str]]:
    """The link table of one rendering: link name -> its cells."""
    lines = table.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("link "))
    assert re.split(r"\s{2,}", lines[head].strip()) == list(HEADER)
    rows = {}
    for line in lines[head + 1 :]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = cells[1:]
    return rows


def test_live_table_under_congestion(tmp_path: Path) -> None:
    log = open(tmp_path / "up.log", "w")  # noqa: SIM115 -- closed below
    up = subprocess.Popen(
        [
            *EXE,
            "up",
            str(ROOT / "topologies" / "leaf-spine-2x2.yaml"),
            "--free-ports",
            "--policy",
            str(ROOT / "topologies" / "policy-default.yaml"),
            "--poll-interval",
            "0.3",
            "--queue-rate",
            "400",
            "--priority-queues",
            "2",
        ],
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    live = None
    try:
        wait_ready(up, tmp_path / "up.log")
        state = RunState.load(tmp_path / ".sprayfabric" / "run.json")
        h1, h2, h4 = state.host("h1"), state.host("h2"), state.host("h4")

        # a drop the program counts by reason: frames for a MAC that is not the router's
        bad = bytearray(build_frame(h2, h4, 30000, 0))
        bad[0:6] = bytes.fromhex("020000000099")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(5):
                s.sendto(bytes(bad), h2.switch_address)

        live_out = open(tmp_path / "live.txt", "w")  # noqa: SIM115 -- closed below
        live = subprocess.Popen(
            [*EXE, "telemetry", "--interval", "0.3"],
            cwd=tmp_path,
            stdout=live_out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while "\x1b[2J" not in (tmp_path / "live.txt").read_text():  # it shows its first table
            assert live.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        # 2.5x what leaf1's two uplinks drain (2 x 400 packets/s): their queues fill
        r = send(h1, h4, 5000, flows=16, roce=True, ecn=True, rate_pps=2000, wait=2.0)
        time.sleep(1.0)  # a last poll
        live.send_signal(signal.SIGINT)
        assert live.wait(timeout=30) == 0
        live_out.close()
        assert r.ce_marked > 0 and r.trimmed > 0 and r.received > 0, r

        frames = [f for f in (tmp_path / "live.txt").read_text().split("\x1b[H\x1b[2J") if f]
        assert len(frames) >= 3
        tables = [link_rows(f) for f in frames]
        up1, up2 = "leaf1:3->spine1", "leaf1:4->spine2"
        # while the traffic flowed: the uplinks' utilisation and queues, in some rendering
        assert any(t[link][2] != "0%" for t in tables for link in (up1, up2)), frames
        assert any(int(t[link][3]) > 0 for t in tables for link in (up1, up2)), frames
        assert any(t[link][4] != "-" for t in tables for link in t)  # INT saw the queues too

        # afterwards: the counters, and the same figures as JSON
        table = sf(tmp_path, "telemetry", "--once").stdout
        rows = link_rows(table)
        t = json.loads(sf(tmp_path, "telemetry", "--once", "--json").stdout)
        links = {f"{lk['switch']}:{lk['port']}->{lk['peer']}": lk for lk in t["links"]}
        assert set(rows) == set(links)
        for name, cells in rows.items():
            lk = links[name]
            assert [int(c) for c in cells[5:]] == [
                lk["tx_packets"],
                lk["ecn_marked"],
                lk["trimmed"],
                lk["cnp"],
            ]
        # everything that reached h4 left leaf2 by its port; marks and trims happened on the way
        assert links["leaf2:2->h4"]["tx_packets"] == r.received + r.trimmed
        assert sum(lk["ecn_marked"] for lk in t["links"]) >= r.ce_marked
        assert sum(lk["trimmed"] for lk in t["links"]) >= r.trimmed
        assert links["leaf1:1->h1"]["cnp"] > 0  # CNPs went back toward the sender
        notes = table.split("\n\n")[-1]
        assert re.search(r"leaf1: drops [^;]*not_router_mac=5\b", notes), notes
        assert re.search(r"leaf2: .*INT reports [1-9]", notes), notes
        for sw in ("leaf1", "leaf2", "spine1", "spine2"):  # every hop of the INT path
            assert re.search(rf"{sw}: .*last hop latency [0-9.]+ us", notes), notes
    finally:
        if live is not None and live.poll() is None:
            live.kill()
            live.wait()
        if up.poll() is None:
            up.send_signal(signal.SIGINT)
        try:
            assert up.wait(timeout=60) == 0
        finally:
            log.close()
