"""AF_PACKET ports over veth pairs, in a network namespace made for the test:

    h1 ==veth== s1 [switch port 1]  --CROSS program-->  [switch port 2] s2 ==veth== h2

Runs only as root with iproute2; the namespace (and with it every veth) is deleted in a
finalizer. Frames are marked so that nothing else on the wires can confuse the test."""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

from p4rt_proto.netns import in_netns
from softswitch.ports.afpacket import RawSocketPort
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


@pytest.mark.parametrize("ring", [True, False], ids=["ring", "recvmsg"])
def test_forwarding_vlan_tags_and_own_frames(wires, ring: bool) -> None:  # type: ignore[no-untyped-def]
    ns, (h1, s1), (s2, h2) = wires
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    ports = [RawSocketPort(s, netns=ns.name, ring=ring) for s in (s1, s2)]
    assert [p.uses_ring for p in ports] == [ring, ring]
    rt.add_port(1, ports[0])
    rt.add_port(2, ports[1])
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


@pytest.mark.parametrize("ring", [True, False], ids=["ring", "recvmsg"])
def test_partial_checksums_from_a_peer_are_completed(wires, ring: bool) -> None:  # type: ignore[no-untyped-def]
    """h1 keeps its offloads and hands the kernel a UDP frame whose checksum is left to
    the device (virtio-net header NEEDS_CSUM): s1 receives it CHECKSUM_PARTIAL, and the
    frame that leaves on h2 must carry the right checksum."""
    scapy_all = pytest.importorskip("scapy.all")
    ns, (h1, s1), (s2, h2) = wires
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    rt.add_port(1, RawSocketPort(s1, netns=ns.name, ring=ring))
    rt.add_port(2, RawSocketPort(s2, netns=ns.name, ring=ring))
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
        host1._sock.send(vnet + partial)  # the receiving socket takes a virtio-net header
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


def test_ring_keeps_order_across_wrap_arounds_and_bursts(wires) -> None:  # type: ignore[no-untyped-def]
    """Three rounds of 700 frames through a ring of 1,024 slots: every frame comes out
    once, whole and in order, in bursts no longer than asked, and nothing is left over."""
    ns, (a, b), _ = wires
    tx = RawSocketPort(a, netns=ns.name, offloads=True, ring=False)
    rx = RawSocketPort(b, netns=ns.name)
    try:
        assert rx.uses_ring
        for rnd in range(3):
            sent = [eth(MARK + struct.pack("!HH", rnd, i) + bytes(i % 50)) for i in range(700)]
            for f in sent:
                tx.send(f)
            got: list[bytes] = []
            while len(got) < len(sent):
                burst = rx.recv_burst(5.0, 64)
                assert 0 < len(burst) <= 64
                got += [f for f in burst if MARK in f]
            assert got == sent
            assert rx.recv_burst(0.05, 64) == []
        # recv takes one frame at a time out of a burst, in order
        for i in range(3):
            tx.send(eth(MARK + bytes([i])))
        assert collect(rx, 3) == [eth(MARK + bytes([i])) for i in range(3)]
    finally:
        tx.close()
        rx.close()


def test_frames_longer_than_a_ring_slot_are_dropped_and_counted(wires) -> None:  # type: ignore[no-untyped-def]
    """The ring's slots are sized for the MTU at opening; after the MTU is raised, a longer
    frame is dropped (as a NIC drops one above its MTU) and the frames after it still come."""
    ns, (a, b), _ = wires
    rx = RawSocketPort(b, netns=ns.name)
    for iface in (a, b):
        ns.run("ip", "link", "set", "dev", iface, "mtu", "4000")
    tx = RawSocketPort(a, netns=ns.name, offloads=True, ring=False)
    try:
        big = eth(MARK + bytes(3900))
        small = eth(MARK + b"after")
        tx.send(big)
        tx.send(small)
        assert collect(rx, 2, timeout=1.0) == [small]
        assert rx._ring is not None and rx._ring.oversize_dropped == 1
        # without a ring the socket buffer takes any length
        rx2 = RawSocketPort(b, netns=ns.name, ring=False)
        try:
            tx.send(big)
            assert collect(rx2, 1) == [big]
        finally:
            rx2.close()
    finally:
        tx.close()
        rx.close()


def test_close_wakes_a_waiting_receiver(wires) -> None:  # type: ignore[no-untyped-def]
    """A thread blocked in recv_burst on an idle ring ends with PortClosed when the port is
    closed, and every later call says so too."""
    import threading

    from softswitch.ports import PortClosed

    ns, (_a, b), _ = wires
    rx = RawSocketPort(b, netns=ns.name)
    outcome: list[str] = []

    def wait() -> None:
        try:
            rx.recv_burst(None, 64)
            outcome.append("returned")
        except PortClosed:
            outcome.append("closed")

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.2)
    rx.close()
    t.join(5.0)
    assert outcome == ["closed"]
    with pytest.raises(PortClosed):
        rx.recv(0)


@contextmanager
def tx_rx(
    ns: Netns, a: str, b: str, **rx_options: Any
) -> Iterator[tuple[RawSocketPort, RawSocketPort]]:
    """A port sending on `a` and one receiving on `b` (with `rx_options`), both closed
    afterwards."""
    tx = RawSocketPort(a, netns=ns.name)
    rx = RawSocketPort(b, netns=ns.name, **rx_options)
    try:
        yield tx, rx
    finally:
        tx.close()
        rx.close()


def send_batch(tx: RawSocketPort, frames: list[bytes]) -> int:
    """Queue `frames` on `tx` and flush them; how many the port refused."""
    for f in frames:
        tx.send_later(f)
    return tx.flush()


def test_tx_ring_sends_a_batch_at_flush_in_order_across_wrap_arounds(wires) -> None:  # type: ignore[no-untyped-def]
    """`send_later` frames stay in the transmit ring until `flush`, then all leave in
    order; batches longer than the ring (128 slots) and rounds that wrap around it lose
    nothing and reorder nothing."""
    ns, (a, b), _ = wires
    with tx_rx(ns, a, b) as (tx, rx):
        assert tx.uses_tx_ring
        first = eth(MARK + b"held")
        tx.send_later(first)
        assert collect(rx, 1, timeout=0.2) == []  # nothing leaves before the flush
        assert tx.flush() == 0
        assert collect(rx, 1) == [first]
        for rnd, count in enumerate((50, 300, 90, 128)):
            sent = [eth(MARK + struct.pack("!HH", rnd, i) + bytes(i % 60)) for i in range(count)]
            assert send_batch(tx, sent) == 0
            assert collect(rx, count) == sent
        assert tx.flush() == 0  # nothing queued: nothing sent
        assert collect(rx, 1, timeout=0.2) == []


def test_send_goes_out_after_the_frames_queued_before_it(wires) -> None:  # type: ignore[no-untyped-def]
    ns, (a, b), _ = wires
    with tx_rx(ns, a, b) as (tx, rx):
        queued = [eth(MARK + bytes([i])) for i in range(3)]
        for f in queued:
            tx.send_later(f)
        tx.send(eth(MARK + b"now"))
        assert collect(rx, 4) == [*queued, eth(MARK + b"now")]


def test_tx_ring_frames_above_the_mtu(wires) -> None:  # type: ignore[no-untyped-def]
    """A frame longer than the MTU is refused (counted by `flush`) and the frames around
    it still leave in order; after the MTU is raised, a frame longer than the ring's
    slot size goes out (by a plain send) in its place in the order."""
    ns, (a, b), _ = wires
    # no receive ring: it would drop 3,900 bytes
    with tx_rx(ns, a, b, ring=False) as (tx, rx):
        before, after = eth(MARK + b"before"), eth(MARK + b"after")
        assert send_batch(tx, [before, eth(MARK + bytes(1600)), after]) == 1
        assert collect(rx, 3, timeout=1.0) == [before, after]
        for iface in (a, b):
            ns.run("ip", "link", "set", "dev", iface, "mtu", "4000")
        big = eth(MARK + bytes(3900))
        assert send_batch(tx, [before, big, after]) == 0
        assert collect(rx, 3) == [before, big, after]


def test_frames_refused_when_send_flushes_the_queue_are_counted_by_flush(wires) -> None:  # type: ignore[no-untyped-def]
    """`send` sends the queued frames first: a frame of them the interface refuses is not
    lost from the count, the next `flush` reports it (once)."""
    ns, (a, b), _ = wires
    with tx_rx(ns, a, b, ring=False) as (tx, rx):
        before, now = eth(MARK + b"before"), eth(MARK + b"now")
        tx.send_later(before)
        tx.send_later(eth(MARK + bytes(1600)))  # above the MTU: refused
        tx.send(now)
        assert collect(rx, 3, timeout=1.0) == [before, now]
        assert tx.flush() == 1
        assert tx.flush() == 0


def test_tx_ring_frames_refused_while_the_interface_is_down(wires) -> None:  # type: ignore[no-untyped-def]
    """While the interface is down, `flush` counts every queued frame as refused and
    none of them leaves later; once it is up again, the ring sends as before."""
    ns, (a, b), _ = wires
    with tx_rx(ns, a, b) as (tx, rx):
        ns.run("ip", "link", "set", "dev", a, "down")
        assert send_batch(tx, [eth(MARK + b"down" + bytes([i])) for i in range(5)]) == 5
        ns.run("ip", "link", "set", "dev", a, "up")
        time.sleep(0.2)  # the peer's carrier comes back
        sent = [eth(MARK + b"up" + bytes([i])) for i in range(200)]
        assert send_batch(tx, sent) == 0
        assert collect(rx, 205, timeout=2.0) == sent


def test_without_a_tx_ring_send_later_sends_at_once(wires, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`tx_ring=False`, or a kernel that refuses the transmit ring: `send_later` puts each
    frame on the wire itself and `flush` has nothing to do."""
    import softswitch.ports.afpacket as afp

    def refuse(*_a: object, **_k: object) -> None:
        raise OSError(22, "Invalid argument")

    ns, (a, b), _ = wires
    rx = RawSocketPort(b, netns=ns.name)
    no_ring = RawSocketPort(a, netns=ns.name, tx_ring=False)
    monkeypatch.setattr(afp, "TxRing", refuse)
    refused = RawSocketPort(a, netns=ns.name)
    try:
        for port, tag in ((no_ring, b"off"), (refused, b"refused")):
            assert not port.uses_tx_ring
            frames = [eth(MARK + tag + bytes([i])) for i in range(3)]
            for f in frames:
                port.send_later(f)
            assert collect(rx, 3) == frames  # before any flush
            assert port.flush() == 0
    finally:
        no_ring.close()
        refused.close()
        rx.close()


def test_runtime_counts_frames_a_tx_ring_refused(wires) -> None:  # type: ignore[no-untyped-def]
    """The switch forwards a frame longer than the out port's MTU: the port refuses it
    at the flush and the runtime counts a transmit error, not a frame sent."""
    ns, (h1, s1), (s2, h2) = wires
    ns.run("ip", "link", "set", "dev", s2, "mtu", "1000")
    rt = SwitchRuntime()
    rt.load(compiled(CROSS))
    rt.add_port(1, RawSocketPort(s1, netns=ns.name))
    rt.add_port(2, RawSocketPort(s2, netns=ns.name))
    host1 = RawSocketPort(h1, netns=ns.name, offloads=True)
    host2 = RawSocketPort(h2, netns=ns.name, offloads=True)
    rt.start()
    try:
        small, big = eth(MARK + b"fits"), eth(MARK + bytes(1200))
        for f in (small, big, small):
            host1.send(f)
        assert collect(host2, 3, timeout=1.0) == [small, small]
    finally:
        rt.stop()
        host1.close()
        host2.close()
    assert (rt.stats.rx, rt.stats.tx, rt.stats.tx_errors) == (3, 2, 1)


def outgoing_tap(ns: Netns, iface: str) -> Any:
    """A packet socket on `iface` in `ns` that sees the frames the interface transmits, in
    the order it puts them on the wire (frames it receives are told apart by `tapped`)."""
    import socket

    def tap() -> socket.socket:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE: a whole batch
        s.bind((iface, 3))
        return s

    return in_netns(ns.name, tap)


def tapped(tap: Any) -> list[bytes]:
    """The marked frames the interface of `outgoing_tap` sent, in order, until none waits."""
    import socket

    out: list[bytes] = []
    tap.setblocking(False)
    while True:
        try:
            data, addr = tap.recvfrom(65535)
        except BlockingIOError:
            return out
        if addr[2] == socket.PACKET_OUTGOING and MARK in data:
            out.append(data)


def test_tx_ring_waits_for_a_qdisc_that_holds_frames_back(wires) -> None:  # type: ignore[no-untyped-def]
    """A rate-limiting qdisc (tbf) holds the frames in their slots and fills the socket's
    small send buffer: `flush` waits for room instead of leaving frames unsent, and a batch
    longer than the ring waits for slots; every frame leaves, in order, and arrives. (The
    far end may see two frames swapped: tbf's timer hands frames over on either CPU, and a
    veth delivers each through the backlog of the CPU that sent it.)"""
    import socket

    ns, (a, b), _ = wires
    try:
        ns.run(
            "tc",
            "qdisc",
            "add",
            "dev",
            a,
            "root",
            "tbf",
            "rate",
            "4mbit",
            "burst",
            "4kb",
            "latency",
            "2s",
        )
    except Exception as e:  # no tc, or no tbf in this kernel
        pytest.skip(f"cannot add a tbf qdisc here: {e}")
    with closing(outgoing_tap(ns, a)) as tap, tx_rx(ns, a, b) as (tx, rx):
        assert tx._txring_sock is not None
        tx._txring_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        sent = [eth(MARK + struct.pack("!H", i) + bytes(60)) for i in range(300)]
        assert send_batch(tx, sent) == 0
        assert sorted(collect(rx, 300, timeout=5.0)) == sorted(sent)
        assert tapped(tap) == sent


def test_flush_after_close_counts_the_frames_as_refused(wires) -> None:  # type: ignore[no-untyped-def]
    ns, (a, _b), _ = wires
    tx = RawSocketPort(a, netns=ns.name)
    assert tx.uses_tx_ring
    tx.close()
    tx.send_later(eth(MARK))
    tx.send_later(eth(MARK))
    assert tx.flush() == 2
    assert tx.flush() == 0


def test_close_while_another_thread_flushes(wires) -> None:  # type: ignore[no-untyped-def]
    """A switch thread may be flushing a batch when the port is closed: its flush ends
    without an exception, counting what it could not send."""
    import threading

    ns, (a, _b), _ = wires
    tx = RawSocketPort(a, netns=ns.name)
    errors: list[BaseException] = []
    refused: list[int] = []
    closed = threading.Event()

    def loop() -> None:
        try:
            while not closed.is_set():
                for _ in range(64):
                    tx.send_later(eth(MARK + bytes(30)))
                refused.append(tx.flush())
            for _ in range(3):
                tx.send_later(eth(MARK))
            refused.append(tx.flush())
        except BaseException as e:  # reported below
            errors.append(e)

    t = threading.Thread(target=loop)
    t.start()
    time.sleep(0.3)
    tx.close()
    closed.set()
    t.join(10.0)
    assert not t.is_alive() and errors == []
    assert refused[-1] == 3  # after the close, nothing goes out
