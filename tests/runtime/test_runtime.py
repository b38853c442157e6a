"""SwitchRuntime: live forwarding on in-process ports, the CPU port, digests, rate-limited
queues served by the scheduler thread, and driven mode on a simulated clock."""

from __future__ import annotations

import threading

import pytest

from softswitch.clock import SimClock
from softswitch.ports import PortClosed, QueuePort, queue_link
from softswitch.runtime import SwitchRuntime
from softswitch.v1model.switch import Digest
from tests.p4util import fail_ingress_when, program

from .programs import compiled

CPU = 64


def frame(dst: int, kind: int = 0, val: int = 0, payload: bytes = b"") -> bytes:
    return bytes([dst, kind, val]) + payload


@pytest.fixture
def live():  # type: ignore[no-untyped-def]
    rt = SwitchRuntime(cpu_port=CPU)
    rt.load(compiled())
    ports = {n: QueuePort(f"p{n}") for n in (1, 2, 3)}
    for n, p in ports.items():
        rt.add_port(n, p)
    rt.start()
    yield rt, ports
    rt.stop()


def test_live_forwarding_between_in_process_ports(live) -> None:  # type: ignore[no-untyped-def]
    rt, ports = live
    for i in range(20):
        ports[1].feed(frame(2 if i % 2 else 3, val=i))
    got2 = [ports[2].take(5.0) for _ in range(10)]
    got3 = [ports[3].take(5.0) for _ in range(10)]
    assert [g[2] for g in got2 if g] == list(range(1, 20, 2))  # in order per port
    assert [g[2] for g in got3 if g] == list(range(0, 20, 2))
    assert ports[1].take(0.05) is None
    assert rt.stats.rx == 20 and rt.stats.tx == 20


def test_cpu_port_listeners_and_packet_out(live) -> None:  # type: ignore[no-untyped-def]
    rt, ports = live
    got: list[bytes] = []
    done = threading.Event()

    def on_cpu(data: bytes) -> None:
        got.append(data)
        done.set()

    rt.add_cpu_listener(on_cpu)
    ports[1].feed(frame(CPU, val=7, payload=b"in"))
    assert done.wait(5.0)
    assert got == [frame(CPU, val=7, payload=b"in")]
    # packet-out: the controller's frame enters on the CPU port
    rt.inject(CPU, frame(2, val=9))
    assert ports[2].take(5.0) == frame(2, val=9)


def test_outputs_to_unattached_ports_are_counted_and_dropped(live) -> None:  # type: ignore[no-untyped-def]
    rt, ports = live
    rt.inject(1, frame(9))
    rt.inject(1, frame(CPU))  # CPU port with no listener: still taken off the switch
    assert rt.stats.unattached == 1
    assert all(p.take(0.05) is None for p in ports.values())


def test_digests_reach_listeners_outside_the_lock() -> None:
    rt = SwitchRuntime()
    rt.load(compiled())
    seen: list[tuple[Digest, bool]] = []

    def on_digest(d: Digest) -> None:
        # a listener may take its own locks: the runtime lock is not held by this thread
        seen.append((d, rt.lock._is_owned()))  # type: ignore[attr-defined]

    rt.add_digest_listener(on_digest)
    rt.inject(5, frame(2, kind=0xD1, val=42))
    rt.inject(5, frame(2))
    assert len(seen) == 1
    digest, locked = seen[0]
    assert not locked
    assert digest.name == "d_t" and digest.receiver == 1
    assert (digest.data.val, digest.data.port) == (42, 5)
    assert rt.switch is not None and rt.switch.digests == []


def test_frames_before_a_pipeline_are_counted() -> None:
    rt = SwitchRuntime()
    p2 = QueuePort()
    rt.add_port(2, p2)
    rt.inject(1, frame(2))
    assert rt.stats.no_pipeline == 1 and p2.take(0) is None
    rt.load(compiled())
    rt.inject(1, frame(2))
    assert p2.take(0) == frame(2)


def test_load_applies_queue_settings_and_replaces_the_switch() -> None:
    rt = SwitchRuntime(queue_depth=3, queue_rate_pps=100.0, priority_queues=4)
    first = rt.load(compiled())
    assert first.tm.default_depth == 3 and first.tm.priorities == 4
    assert 1 in first.tm.shaped  # every port is rate limited
    second = rt.load(compiled())
    assert rt.switch is second and second is not first


def test_live_rate_limited_port_is_served_by_the_scheduler() -> None:
    rt = SwitchRuntime(queue_rate_pps=2000.0)
    rt.load(compiled())
    p2 = QueuePort()
    rt.add_port(2, p2)
    rt.start()
    try:
        for i in range(8):
            rt.inject(1, frame(2, val=i))
        # only the first leaves at once; the scheduler thread sends the rest as time passes
        got = [p2.take(5.0) for _ in range(8)]
        assert [g[2] for g in got if g is not None] == list(range(8))
    finally:
        rt.stop()


def test_driven_mode_outputs_at_simulated_times() -> None:
    clock = SimClock()
    rt = SwitchRuntime(clock=clock, queue_rate_pps=1000.0)
    rt.load(compiled())
    p2 = QueuePort()
    rt.add_port(2, p2)
    for i in range(3):
        rt.inject(1, frame(2, val=i))
    clock.set(500)
    rt.inject(1, frame(3, val=3))  # to an unattached port, also rate limited (its own queue)
    first = rt.step(1500)
    assert [(o.time_us, o.port, o.data[2]) for o in first] == [(0, 2, 0), (500, 3, 3), (1000, 2, 1)]
    assert clock.now_us() == 1500
    rest = rt.step(10_000)
    assert [(o.time_us, o.data[2]) for o in rest] == [(2000, 2)]
    assert clock.now_us() == 10_000
    assert [d[2] for d in p2.take_all()] == [0, 1, 2]
    assert rt.stats.unattached == 1
    assert rt.step(20_000) == []


def test_driven_mode_is_reproducible() -> None:
    def run() -> list[tuple[int, int, bytes]]:
        clock = SimClock()
        rt = SwitchRuntime(clock=clock, queue_rate_pps=3000.0, queue_depth=4)
        rt.load(compiled())
        for i in range(10):
            clock.set(i * 100)
            rt.inject(1, frame(2 + i % 2, val=i))
        return [(o.time_us, o.port, o.data) for o in rt.step(100_000)]

    a = run()
    assert a == run()
    assert len(a) == 10  # two ports, 5 each, depth 4 + 1 in service: no drop


def test_linked_runtimes_forward_across_a_cable() -> None:
    """Two switches joined by queue_link: s1 port 2 <-> s2 port 1; a host on s2 port 2."""
    s1, s2 = SwitchRuntime(), SwitchRuntime()
    s1.load(compiled())
    s2.load(compiled())
    a, b = queue_link("s1p2", "s2p1")
    host = QueuePort("s2p2")
    s1.add_port(2, a)
    s2.add_port(1, b)
    s2.add_port(2, host)
    s1.start()
    s2.start()
    try:
        for i in range(5):
            s1.inject(1, frame(2, val=i))  # s1 -> port 2 -> cable -> s2 port 1 -> port 2
        got = [host.take(5.0) for _ in range(5)]
        assert [g[2] for g in got if g is not None] == list(range(5))
        assert s2.stats.rx == 5
    finally:
        s1.stop()
        s2.stop()


def test_stop_closes_ports_and_ends_threads() -> None:
    rt = SwitchRuntime()
    rt.load(compiled())
    p = QueuePort()
    rt.add_port(1, p)
    rt.start()
    rt.stop()
    assert not any(t.is_alive() for t in rt._threads)
    with pytest.raises(PortClosed):
        p.recv(0)


def test_port_numbers_are_checked() -> None:
    rt = SwitchRuntime()
    with pytest.raises(ValueError):
        rt.add_port(511, QueuePort())


def test_queue_settings_at_run_time_survive_a_reload() -> None:
    from softswitch.clock import SimClock
    from softswitch.compiler import compile_text
    from softswitch.runtime import SwitchRuntime
    from tests.p4util import program

    src = program(decls="header h_t { bit<8> id; }", ingress="apply { sm.egress_spec = 2; }")
    rt = SwitchRuntime(clock=SimClock())
    rt.load(compile_text(src, "q.p4"))
    rt.set_queue_rate(2, pps=1000)
    for i in range(3):
        rt.inject(1, bytes([i]))
    assert rt.queue_occupancy(2) == 2  # one in service, two waiting
    rt.load(compile_text(src, "q.p4"))
    assert rt.switch is not None and 2 in rt.switch.tm.shaped


class RefusingPort(QueuePort):
    """A port whose interface refuses every frame (as one above its MTU)."""

    def send(self, data: bytes) -> None:
        raise OSError(90, "Message too long")


def test_inject_many_gives_what_inject_gives_frame_by_frame() -> None:
    """A stream injected in chunks: the same outputs in the same order, digests and CPU
    frames delivered outside the lock after their chunk, frames for a port with nothing
    attached and frames a port refuses counted, as are frames before a pipeline."""
    dsts = [2, 3, CPU, 2, 3, CPU, 4, 5]  # 4: refused, 5: nothing attached
    stream = [
        (1 + i % 3, frame(dsts[i % 8], kind=0xD1 if i % 5 == 0 else 0, val=i)) for i in range(160)
    ]

    def run(many: bool) -> tuple[object, ...]:
        rt = SwitchRuntime(cpu_port=CPU)
        rt.load(compiled())
        out = QueuePort("p2")
        rt.add_port(2, out)
        rt.add_port(3, out)
        rt.add_port(4, RefusingPort("p4"))
        cpu_wire = QueuePort("cpu")  # a port on the CPU port: frames go to it and to listeners
        rt.add_port(CPU, cpu_wire)
        cpu: list[bytes] = []
        digests: list[tuple[int, bool]] = []
        rt.add_cpu_listener(cpu.append)
        rt.add_digest_listener(
            lambda d: digests.append((d.data.val, rt.lock._is_owned()))  # type: ignore[attr-defined]
        )
        if many:
            assert rt.inject_many(stream, chunk=16) == len(stream)
        else:
            for port, data in stream:
                rt.inject(port, data)
        return out.take_all(), cpu, digests, rt.stats, cpu_wire.take_all()

    assert run(True) == run(False)
    sent, cpu, digests, stats, wired = run(True)
    assert len(sent) == 80 and len(cpu) == 40 and wired == cpu
    assert [val for val, _ in digests] == list(range(0, 160, 5))
    assert not any(locked for _, locked in digests)
    assert (stats.rx, stats.tx, stats.tx_errors, stats.unattached) == (160, 120, 20, 20)

    idle = SwitchRuntime()
    assert idle.inject_many(stream[:10]) == 10
    assert idle.stats.no_pipeline == 10


def test_pcap_output_is_in_the_file_after_each_batch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A pcap-file port keeps frames in memory only while the runtime delivers a batch:
    once `inject`/`inject_many` returns, the file holds them (no flush thread, no stop)."""
    from softswitch.ports import PcapFilePort, read_pcap

    rt = SwitchRuntime()
    rt.load(compiled())
    rt.add_port(2, PcapFilePort(tmp_path / "p2.pcap"))
    rt.add_port(3, PcapFilePort(tmp_path / "p3.pcap"))
    rt.inject(1, frame(2, val=1))
    assert [r.data for r in read_pcap(tmp_path / "p2.pcap")] == [frame(2, val=1)]
    assert rt.inject_many([(1, frame(3 - i % 2, val=i)) for i in range(10)], chunk=4) == 10
    p2 = [r.data[2] for r in read_pcap(tmp_path / "p2.pcap")]
    p3 = [r.data[2] for r in read_pcap(tmp_path / "p3.pcap")]
    assert p2 == [1, 1, 3, 5, 7, 9] and p3 == [0, 2, 4, 6, 8]
    rt.stop()


TIMESTAMPS = program(
    decls="header h_t { bit<8> dst; bit<48> ts_in; bit<48> ts_out; }",
    ingress="""apply {
        sm.egress_spec = (bit<9>)hdr.h.dst; hdr.h.ts_in = sm.ingress_global_timestamp;
    }""",
    egress="apply { hdr.h.ts_out = sm.egress_global_timestamp; }",
)


class TickingClock:
    """A wall clock stand-in that moves 10 us every time it is read."""

    def __init__(self) -> None:
        self.reads = 0

    def now_us(self) -> int:
        self.reads += 1
        return 1000 + 10 * self.reads


def test_a_batch_of_frames_reads_the_clock_once() -> None:
    """Frames injected together share one reading of the clock (ingress and egress
    timestamps alike); the next batch reads it again. With a rate-limited queue every
    packet reads the clock as it arrives and leaves."""
    import struct

    def stamps(rate: bool) -> tuple[list[tuple[int, int]], int]:
        clock = TickingClock()
        rt = SwitchRuntime(clock=clock)
        rt.load(compiled(TIMESTAMPS))
        out = QueuePort("p2")
        rt.add_port(2, out)
        if rate:
            rt.set_queue_rate(2, pps=1e6)
        before = clock.reads
        rt.inject_many([(1, bytes([2]) + bytes(12)) for _ in range(6)], chunk=3)
        reads = clock.reads - before
        rt.step(10**9)  # what a rate-limited queue still holds
        got = []
        for f in out.take_all():
            t_in, t_out = struct.unpack("!QQ", b"\0\0" + f[1:7] + b"\0\0" + f[7:13])
            got.append((t_in, t_out))
        return got, reads

    held, reads = stamps(rate=False)
    assert reads == 2
    assert held[:3] == [held[0]] * 3 and held[3:] == [held[3]] * 3
    assert held[0][0] == held[0][1] and held[3][0] == held[0][0] + 10
    live, reads = stamps(rate=True)
    assert len(live) == 6 and reads > 6
    assert len({t_in for t_in, _ in live}) == 6  # every packet its own arrival time
    assert all(t_out > t_in for t_in, t_out in live)


def test_a_frame_that_fails_is_counted_and_its_batch_goes_on(caplog) -> None:  # type: ignore[no-untyped-def]
    """A frame whose processing raises is counted and logged with its port; the frames
    before and after it in the same batch still go out, in order."""
    rt = SwitchRuntime(cpu_port=CPU)
    rt.load(compiled())
    out = QueuePort("p2")
    rt.add_port(2, out)
    sw = rt.switch
    assert sw is not None
    fail_ingress_when(sw, lambda hdr, meta, std: std.ingress_port == 3)
    stream = [(1, frame(2, val=0)), (3, frame(2, val=1)), (1, frame(2, val=2))]
    assert rt.inject_many(stream) == 3
    assert [f[2] for f in out.take_all()] == [0, 2]
    assert rt.stats.errors == 1 and rt.stats.rx == 3 and rt.stats.tx == 2
    assert "port 3: processing a 3-byte frame failed" in caplog.text
    assert "boom" in caplog.text
