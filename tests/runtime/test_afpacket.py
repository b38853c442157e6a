"""AF_PACKET ports over veth pairs, in a network namespace made for the test:

    h1 ==veth== s1 [switch port 1]  --CROSS program-->  [switch port 2] s2 ==veth== h2

Runs only as root with iproute2; the namespace (and with it every veth) is deleted in a
finalizer. Frames are marked so that nothing else on the wires can confuse the test."""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from softswitch.ports import RawSocketPort
from softswitch.runtime import SwitchRuntime

from .programs import CROSS, Netns, SwitchProcess, compiled, netns_unavailable

reason = netns_unavailable()
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")

MARK = b"softswitch-afpacket-test"
ETH = bytes.fromhex("020000000002 020000000001")  # dst, src (locally administered)


def eth(payload: bytes, ethertype: int = 0x88B5) -> bytes:
    return ETH + struct.pack("!H", ethertype) + payload


@pytest.fixture
def wires() -> Iterator[tuple[Netns, tuple[str, str], tuple[str, str]]]:
    try:
        ns = Netns("v")
    except OSError as e:
        pytest.skip(f"cannot make a network namespace here: {e}")
    try:
        yield ns, ns.veth("h1", "s1"), ns.veth("s2", "h2")
    finally:
        ns.delete()


def collect(port: RawSocketPort, n: int, timeout: float = 5.0) -> list[bytes]:
    """Up to n marked frames arriving within `timeout` s."""
    got: list[bytes] = []
    deadline = time.monotonic() + timeout
    while len(got) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        f = port.recv(left)
        if f is not None and MARK in f:
            got.append(f)
    return got


def test_forwarding_vlan_tags_and_own_frames(wires) -> None:  # type: ignore[no-untyped-def]
    ns, (h1, s1), (s2, h2) = wires
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    rt.add_port(1, RawSocketPort(s1, netns=ns.name))
    rt.add_port(2, RawSocketPort(s2, netns=ns.name))
    host1 = RawSocketPort(h1, netns=ns.name, offloads=True)
    host2 = RawSocketPort(h2, netns=ns.name, offloads=True)
    rt.start()
    try:
        sent = [eth(MARK + bytes([i]) + bytes(40)) for i in range(20)]
        tagged = (
            ETH + struct.pack("!HH", 0x8100, 0x2005) + struct.pack("!H", 0x88B5) + MARK + bytes(40)
        )
        for f in [*sent, tagged]:
            host1.send(f)
        got = collect(host2, 21)
        assert got == [*sent, tagged]  # in order, VLAN tag put back where it was
        # the switch's own transmissions on s2 were not received again and sent back to h1
        assert collect(host1, 1, timeout=0.3) == []
        host2.send(eth(MARK + b"back"))
        assert collect(host1, 1) == [eth(MARK + b"back")]
    finally:
        rt.stop()
        host1.close()
        host2.close()
    assert rt.stats.rx == 22 and rt.stats.tx == 22


def test_partial_checksums_from_a_peer_are_completed(wires) -> None:  # type: ignore[no-untyped-def]
    """h1 keeps its offloads and hands the kernel a UDP frame whose checksum is left to
    the device (virtio-net header NEEDS_CSUM): s1 receives it CHECKSUM_PARTIAL, and the
    frame that leaves on h2 must carry the right checksum."""
    scapy_all = pytest.importorskip("scapy.all")
    ns, (h1, s1), (s2, h2) = wires
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    rt.add_port(1, RawSocketPort(s1, netns=ns.name))
    rt.add_port(2, RawSocketPort(s2, netns=ns.name))
    host1 = RawSocketPort(h1, netns=ns.name, offloads=True)
    host2 = RawSocketPort(h2, netns=ns.name, offloads=True)
    rt.start()
    try:
        pkt = (
            scapy_all.Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
            / scapy_all.IP(src="192.0.2.1", dst="192.0.2.2")
            / scapy_all.UDP(sport=4000, dport=5000)
            / (MARK + b"-csum")
        )
        good = bytes(pkt)
        start, offset = 14 + 20, 6
        l4 = good[start:]
        pseudo = bytes([192, 0, 2, 1, 192, 0, 2, 2, 0, 17]) + struct.pack("!H", len(l4))
        s = sum(struct.unpack("!6H", pseudo))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        partial = good[: start + offset] + struct.pack("!H", s) + good[start + offset + 2 :]
        vnet = struct.pack("=BBHHHH", 1, 0, 0, 0, start, offset)  # NEEDS_CSUM
        host1._sock.send(vnet + partial)
        got = collect(host2, 1)
        assert got == [good]
    finally:
        rt.stop()
        host1.close()
        host2.close()


def test_cli_forwards_between_interfaces(wires, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`softswitch PROG -i 1@s1 -i 2@s2`, started inside the namespace and stopped by PID."""
    ns, (h1, s1), (s2, h2) = wires
    prog = tmp_path / "cross.p4"
    prog.write_text(CROSS)
    args = [str(prog), "-i", f"1@{s1}", "-i", f"2@{s2}", "--", "--grpc-server-addr", "127.0.0.1:0"]
    host1 = RawSocketPort(h1, netns=ns.name, offloads=True)
    host2 = RawSocketPort(h2, netns=ns.name, offloads=True)
    try:
        with SwitchProcess(args, prefix=["ip", "netns", "exec", ns.name]) as sp:
            sp.wait_line("softswitch ready")
            assert f"Adding interface {s1} as port 1" in sp.seen
            frames = [eth(MARK + bytes([i]) * 30) for i in range(10)]
            for f in frames:
                host1.send(f)
            assert collect(host2, 10) == frames
            assert sp.terminate() == 0
    finally:
        host1.close()
        host2.close()
