"""softswitch.impair: what an impaired UDP cable does to the frames sent into it, and the
watcher that applies the impairment file to a runtime's ports."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from softswitch.impair import ImpairWatcher, PortImpairment, parse_impairments
from softswitch.ports.udp import UdpPort


def test_loss_drops_about_its_fraction() -> None:
    imp = PortImpairment(loss=0.25, seed=3)
    got: list[bytes] = []
    for i in range(2000):
        imp.send(bytes([i % 256]), got.append)
    assert 1350 < len(got) < 1650 and imp.counters.dropped == 2000 - len(got)


def test_rate_serialises_frames() -> None:
    imp = PortImpairment(rate_pps=100)  # 10 ms a frame
    arrived: list[float] = []
    done = threading.Event()

    def out(_: bytes) -> None:
        arrived.append(time.monotonic())
        if len(arrived) == 3:
            done.set()

    t0 = time.monotonic()
    for _ in range(3):
        imp.send(b"x", out)
    assert done.wait(2.0)
    # each waits for the ones before it: 10, 20, 30 ms after they were all sent
    assert [round(t - t0, 3) >= 0.01 * (i + 1) - 0.001 for i, t in enumerate(arrived)] == [True] * 3
    imp.close()


def test_flap_is_down_for_its_duty_of_each_period() -> None:
    imp = PortImpairment(flap=(1.0, 0.25, 100.0))
    assert [imp.down(100.0 + t) for t in (0.1, 0.3, 0.9, 1.1, 1.3)] == [
        True,
        False,
        False,
        True,
        False,
    ]
    assert PortImpairment().down(123.0) is False


def test_bad_files_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="keys are"):
        parse_impairments({"1": {"2": {"delay": 3}}})
    with pytest.raises(ValueError, match="probability"):
        parse_impairments({"1": {"2": {"loss": 2}}})
    assert parse_impairments({"1": {"2": {"loss": 0.5}}})[1][2].loss == 0.5


def _pair() -> tuple[UdpPort, UdpPort]:
    import socket

    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    a, b = (s.getsockname()[1] for s in socks)
    for s in socks:
        s.close()
    return (
        UdpPort(f"udp:127.0.0.1:{a},127.0.0.1:{b}"),
        UdpPort(f"udp:127.0.0.1:{b},127.0.0.1:{a}"),
    )


def test_watcher_applies_and_removes_impairments(tmp_path: Path) -> None:
    tx, rx = _pair()
    try:
        path = tmp_path / "impair.json"
        runtime = SimpleNamespace(ports={3: tx})
        w = ImpairWatcher(path, {7: runtime})
        assert w.apply_once() and tx.impair is None  # no file: nothing impaired
        path.write_text(json.dumps({"7": {"3": {"loss": 1.0}}}))
        assert w.apply_once() and tx.impair is not None
        tx.send(b"lost")
        assert rx.recv(timeout=0.2) is None
        assert not w.apply_once()  # unchanged file: nothing done
        path.write_text(json.dumps({"7": {}}))
        assert w.apply_once() and tx.impair is None
        tx.send(b"back")
        assert rx.recv(timeout=1.0) == b"back"
    finally:
        tx.close()
        rx.close()


def test_busy_port_holds_frames_until_its_background_burst_is_served() -> None:
    t0 = time.time()
    # busy 80% of every 0.5 s from t0: 0.4 s busy, then free until t0 + 0.5
    imp = PortImpairment(busy=(0.5, 0.8, t0, 100.0))
    arrived: list[float] = []
    done = threading.Event()

    def out(_: bytes) -> None:
        arrived.append(time.time())
        done.set()

    imp.send(b"x", out)
    assert done.wait(2.0)
    assert 0.38 <= arrived[0] - t0 < 0.5  # waited for the free part
    c = imp.settle(t0 + 0.5)
    # the background burst: 100 pps x 0.4 s = 40 frames falling to 0 over 0.4 s (area 8),
    # plus the one frame waiting about 0.4 s
    assert 8.3 <= c.queue_area <= 8.45 and c.queue_peak == 41
    assert imp.free_at(t0 + 0.1) == pytest.approx(t0 + 0.4) and imp.free_at(t0 + 0.45) == t0 + 0.45
    imp.close()


def test_paused_port_holds_every_frame_until_the_pause_is_lifted() -> None:
    imp = PortImpairment(pause=True)
    got: list[bytes] = []
    done = threading.Event()

    def out(data: bytes) -> None:
        got.append(data)
        if len(got) == 3:
            done.set()

    for i in range(3):
        imp.send(bytes([i]), out)
    time.sleep(0.2)
    assert got == [] and imp.settle().queue_peak == 3
    c = imp.settle()
    assert c.paused_s >= 0.2 and c.queue_area >= 3 * 0.2 - 0.01 and c.dropped == 0
    imp.close()  # the pause lifted: they leave at once, in order
    assert done.wait(1.0) and got == [b"\x00", b"\x01", b"\x02"]


def test_flap_counts_both_edges_of_each_period() -> None:
    imp = PortImpairment(flap=(1.0, 0.25, 100.0))
    imp._settled = 100.0  # noqa: SLF001 -- as if applied at the schedule's start
    assert imp.settle(100.0).carrier_transitions == 0
    assert imp.settle(100.1).carrier_transitions == 0  # the edge at 100.0 itself is not after it
    assert imp.settle(100.3).carrier_transitions == 1  # up at 100.25
    assert imp.settle(102.3).carrier_transitions == 5  # down 101, up 101.25, down 102, up 102.25


def test_watcher_writes_counters_kept_across_impairments(tmp_path: Path) -> None:
    tx, rx = _pair()
    try:
        path, stats = tmp_path / "impair.json", tmp_path / "stats" / "sw.json"
        w = ImpairWatcher(path, {7: SimpleNamespace(ports={3: tx})}, stats)
        path.write_text(json.dumps({"7": {"3": {"loss": 1.0}}}))
        w.apply_once()
        for _ in range(4):
            tx.send(b"lost")
        path.write_text(json.dumps({"7": {"3": {"pause": True}}}))
        w.apply_once()
        time.sleep(0.1)
        w.write_stats()
        got = json.loads(stats.read_text())
        port = got["devices"]["7"]["3"]
        assert port["dropped"] == 4 and port["paused_s"] > 0.05
        assert got["at"] == pytest.approx(time.time(), abs=5)
        path.write_text(json.dumps({}))
        w.apply_once()
        w.write_stats()
        after = json.loads(stats.read_text())["devices"]["7"]["3"]
        assert after["dropped"] == 4 and after["paused_s"] >= port["paused_s"]
    finally:
        tx.close()
        rx.close()


def test_bad_busy_and_pause_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="busy"):
        parse_impairments({"1": {"2": {"busy": [1.0, 0.5, 0.0]}}})
    with pytest.raises(ValueError, match="duty"):
        parse_impairments({"1": {"2": {"busy": [1.0, 1.5, 0.0, 10]}}})
    imp = parse_impairments({"1": {"2": {"busy": [1, 0.5, 0, 10], "pause": True}}})[1][2]
    assert imp.busy == (1.0, 0.5, 0.0, 10.0) and imp.pause


def test_a_flap_counts_its_first_edge() -> None:
    t0 = time.time()
    assert PortImpairment(flap=(10.0, 0.5, t0)).settle(t0 + 1).carrier_transitions == 1
