"""The queue interface a simulator owning the clock uses (fabricsim's switch node): port
rates and depths, PFC's per-ingress count and pause, background occupancy, and the queue
figures a run samples; nothing of the traffic manager beyond it."""

from __future__ import annotations

from softswitch import Switch, compile_text
from tests.p4util import SKELETON

PROGRAM = SKELETON.format(
    decls="header h_t { bit<8> port; }",
    meta="bit<8> unused;",
    headers="h_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    verify="apply { }",
    ingress="apply { sm.egress_spec = (bit<9>) hdr.h.port; }",
    egress="apply { }",
    compute="apply { }",
)


class Clock:
    """A nanosecond clock the test moves (the switch only reads it)."""

    def __init__(self) -> None:
        self.ns = 0

    def now_ns(self) -> int:
        return self.ns

    def now_us(self) -> int:
        return self.ns // 1000


def _switch() -> tuple[Switch, Clock, list[tuple[int, bytes]]]:
    clock = Clock()
    sw = Switch(compile_text(PROGRAM, "queues.p4"), clock=clock)
    sent: list[tuple[int, bytes]] = []
    sw.set_output(lambda port, data: sent.append((port, data)))
    sw.count_ingress = True
    sw.set_port_rate(2, 8e9)  # 1 ns per byte: a 100-byte frame takes 100 ns
    sw.set_queue_depth(3)
    return sw, clock, sent


def test_a_paced_port_queues_counts_and_drops() -> None:
    sw, clock, sent = _switch()
    frame = bytes([2]) + bytes(99)
    times = [sw.arrive(1, frame) for _ in range(5)]
    assert len(sent) == 1 and times[-1] == 100  # the first left at once, the next at 100 ns
    assert sw.queue_lengths() == [3] and sw.port_queue_lengths() == {2: 3}
    assert sw.queue_peaks() == {2: 3} and sw.queue_drops() == 1  # depth 3: the fifth dropped
    assert sw.ingress_occupancy(1) == 3 and sw.ingress_occupancy(4) == 0
    clock.ns = 100
    assert sw.wake() == 200 and len(sent) == 2 and sw.ingress_occupancy(1) == 2


def test_pause_and_occupy_hold_the_port() -> None:
    sw, clock, sent = _switch()
    frame = bytes([2]) + bytes(99)
    sw.arrive(1, frame)
    sw.arrive(1, frame)
    sw.pause(2, 0, True, clock.ns)
    assert sw.next_event_ns() is None  # paused: nothing leaves
    clock.ns = 500
    sw.pause(2, 0, False, clock.ns)
    assert sw.next_event_ns() == 500  # served again from the resume on
    sw.occupy(2, 900)
    assert sw.next_event_ns() == 900 and sw.wake() == 900 and len(sent) == 1
