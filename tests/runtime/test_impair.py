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
    assert 1350 < len(got) < 1650 and imp.dropped == 2000 - len(got)


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
