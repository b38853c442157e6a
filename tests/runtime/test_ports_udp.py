"""UDP-over-loopback ports: one frame per datagram, two switches joined without root."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from softswitch.cli import main
from softswitch.ports import PortClosed
from softswitch.ports.udp import UdpEndpoints, UdpPort, parse_udp_spec
from softswitch.runtime import SwitchRuntime

from .programs import CROSS, SwitchProcess, compiled, softswitch_cmd


def free_udp_ports(n: int) -> list[int]:
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def host(port: int) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.settimeout(5)
    return s


def test_spec_round_trip_and_errors() -> None:
    e = parse_udp_spec("udp:127.0.0.1:4000,127.0.0.1:4001")
    assert e == UdpEndpoints(("127.0.0.1", 4000), ("127.0.0.1", 4001))
    assert parse_udp_spec(e.spec()) == e
    for bad, why in [
        ("udp:127.0.0.1:4000", "expected udp:LOCAL"),
        ("udp:127.0.0.1:x,127.0.0.1:1", "local port 'x' is not a number"),
        ("udp:127.0.0.1:1,127.0.0.1:70000", "remote port 70000"),
        ("udp:4000,127.0.0.1:1", "local address must be HOST:PORT"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_udp_spec(bad)


def test_send_recv_and_close_wakes_a_blocked_recv() -> None:
    a_port, b_port = free_udp_ports(2)
    a = UdpPort(f"udp:127.0.0.1:{a_port},127.0.0.1:{b_port}")
    b = UdpPort(UdpEndpoints(("127.0.0.1", b_port), ("127.0.0.1", a_port)))
    try:
        a.send(b"\x01" * 60)
        assert b.recv(timeout=5) == b"\x01" * 60
        b.send(b"\x02" * 1500)
        assert a.recv(timeout=5) == b"\x02" * 1500
        assert a.recv(timeout=0.05) is None
        got: list[BaseException] = []

        def blocked() -> None:
            try:
                a.recv(timeout=None)
            except PortClosed as e:
                got.append(e)

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(0.05)
        a.close()
        t.join(timeout=5)
        assert not t.is_alive() and len(got) == 1
        with pytest.raises(PortClosed):
            a.recv(timeout=0)
    finally:
        a.close()
        b.close()


def test_runtime_forwards_between_udp_ports() -> None:
    h1, p1, p2, h2 = free_udp_ports(4)
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    rt.add_port(1, UdpPort(f"udp:127.0.0.1:{p1},127.0.0.1:{h1}"))
    rt.add_port(2, UdpPort(f"udp:127.0.0.1:{p2},127.0.0.1:{h2}"))
    with host(h1) as s1, host(h2) as s2, rt:
        rt.start()
        s1.sendto(b"frame-1" + bytes(50), ("127.0.0.1", p1))
        assert s2.recvfrom(2048)[0] == b"frame-1" + bytes(50)
        s2.sendto(b"frame-2" + bytes(50), ("127.0.0.1", p2))
        assert s1.recvfrom(2048)[0] == b"frame-2" + bytes(50)


def test_two_switch_processes_joined_by_udp(tmp_path: Path) -> None:
    """h1 -- [sw1] 1..2 ==== 1 [sw2] 2 -- h2, as processes: a frame crosses both."""
    src = tmp_path / "cross.p4"
    src.write_text(CROSS)
    cfg = tmp_path / "cross.json"
    assert main(["compile", str(src), "-o", str(cfg)]) == 0
    h1, a1, a2, b1, b2, h2 = free_udp_ports(6)
    ep = lambda local, remote: f"udp:127.0.0.1:{local},127.0.0.1:{remote}"  # noqa: E731
    args1 = [
        str(cfg),
        "-i",
        f"1@{ep(a1, h1)}",
        "-i",
        f"2@{ep(a2, b1)}",
        "--",
        "--grpc-server-addr",
        "127.0.0.1:0",
    ]
    args2 = [
        str(cfg),
        "-i",
        f"1@{ep(b1, a2)}",
        "-i",
        f"2@{ep(b2, h2)}",
        "--",
        "--grpc-server-addr",
        "127.0.0.1:0",
    ]
    with SwitchProcess(args1) as sw1, SwitchProcess(args2) as sw2, host(h1) as s1, host(h2) as s2:
        sw1.wait_line("softswitch ready")
        sw2.wait_line("softswitch ready")
        s1.sendto(b"through-two-switches", ("127.0.0.1", a1))
        assert s2.recvfrom(2048)[0] == b"through-two-switches"
        s2.sendto(b"and-back", ("127.0.0.1", b2))
        assert s1.recvfrom(2048)[0] == b"and-back"


def test_bad_udp_spec_is_a_start_up_error() -> None:
    r = subprocess.run(
        [
            *softswitch_cmd(),
            "--no-p4",
            "-i",
            "1@udp:127.0.0.1:1",
            "--",
            "--grpc-server-addr",
            "127.0.0.1:0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "expected udp:LOCAL_HOST:PORT,REMOTE_HOST:PORT" in r.stderr


def test_two_switches_in_one_chassis_process(tmp_path: Path) -> None:
    """h1 -- [sw1] 1..2 ==== 1 [sw2] 2 -- h2, both devices of one `--chassis` process (one
    UDP receive thread for all four ports): a frame crosses both, each way."""
    import json

    src = tmp_path / "cross.p4"
    src.write_text(CROSS)
    cfg = tmp_path / "cross.json"
    assert main(["compile", str(src), "-o", str(cfg)]) == 0
    h1, a1, a2, b1, b2, h2 = free_udp_ports(6)
    ep = lambda local, remote: f"udp:127.0.0.1:{local},127.0.0.1:{remote}"  # noqa: E731
    chassis = tmp_path / "chassis.json"
    devices = [
        {"device_id": 1, "name": "sw1", "ports": [[1, ep(a1, h1)], [2, ep(a2, b1)]]},
        {"device_id": 2, "name": "sw2", "ports": [[1, ep(b1, a2)], [2, ep(b2, h2)]]},
    ]
    chassis.write_text(json.dumps({"devices": devices}))
    args = [str(cfg), "--chassis", str(chassis), "--", "--grpc-server-addr", "127.0.0.1:0"]
    with SwitchProcess(args) as sw, host(h1) as s1, host(h2) as s2:
        sw.wait_line("softswitch ready")
        s1.sendto(b"through-two-switches", ("127.0.0.1", a1))
        assert s2.recvfrom(2048)[0] == b"through-two-switches"
        s2.sendto(b"and-back", ("127.0.0.1", b2))
        assert s1.recvfrom(2048)[0] == b"and-back"


def test_bad_chassis_file_is_a_start_up_error(tmp_path: Path) -> None:
    bad = tmp_path / "chassis.json"
    bad.write_text('{"devices": [{"device_id": 1}, {"device_id": 1}]}')
    r = subprocess.run(
        [*softswitch_cmd(), "--no-p4", "--chassis", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "a device_id appears twice" in r.stderr
