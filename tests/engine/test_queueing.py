"""The traffic manager: queue depth metadata, tail drops, rates, priorities, on a
simulated clock so every run gives the same numbers."""

from __future__ import annotations

from softswitch.clock import SimClock
from tests.p4util import program, switch

# egress records the queue metadata into the packet
SRC = program(
    decls="header h_t { bit<8> seq; bit<8> enq; bit<8> deq; bit<32> waited; bit<8> prio; }",
    ingress="apply { sm.egress_spec = 1; sm.priority = (bit<3>)hdr.h.prio; }",
    egress="""apply {
        hdr.h.enq = (bit<8>)sm.enq_qdepth;
        hdr.h.deq = (bit<8>)sm.deq_qdepth;
        hdr.h.waited = sm.deq_timedelta;
    }""",
)


def pkt(seq: int, prio: int = 0) -> bytes:
    return bytes([seq, 0, 0, 0, 0, 0, 0, prio])


def burst(n: int, depth: int, pps: float) -> tuple[list[tuple[int, int, int, int, int]], int]:
    clock = SimClock()
    sw = switch(SRC, clock=clock)
    sw.tm.set_depth(depth, port=1)
    sw.tm.set_rate(port=1, pps=pps)
    for i in range(n):
        sw.inject(0, pkt(i))
    outs = sw.run_until(1_000_000)
    rows = [
        (o.time_us, o.data[0], o.data[1], o.data[2], int.from_bytes(o.data[3:7], "big"))
        for o in outs
    ]
    return rows, sw.dropped


def test_burst_builds_a_queue_and_tail_drops() -> None:
    rows, dropped = burst(n=6, depth=3, pps=1000)
    # packet 0 goes straight to the server; 1..3 queue behind it; 4 and 5 find it full
    assert dropped == 2
    assert [r[1] for r in rows] == [0, 1, 2, 3]
    assert [r[2] for r in rows] == [0, 0, 1, 2]  # enq_qdepth
    assert [r[3] for r in rows] == [0, 2, 1, 0]  # deq_qdepth
    assert [r[0] for r in rows] == [0, 1000, 2000, 3000]  # one packet per ms
    assert [r[4] for r in rows] == [0, 1000, 2000, 3000]  # deq_timedelta in microseconds


def test_runs_are_identical() -> None:
    assert burst(n=20, depth=8, pps=5000) == burst(n=20, depth=8, pps=5000)


def test_bits_per_second_rate_uses_frame_length() -> None:
    clock = SimClock()
    sw = switch(SRC, clock=clock)
    sw.tm.set_rate(port=1, bps=8_000_000)  # 1 byte per microsecond
    sw.inject(0, pkt(0) + bytes(92))  # 100-byte frame: 100 us on the wire
    sw.inject(0, pkt(1) + bytes(92))
    outs = sw.run_until(10_000)
    assert [o.time_us for o in outs] == [0, 100]


def test_unthrottled_port_never_queues() -> None:
    sw = switch(SRC, clock=SimClock())
    for i in range(5):
        sw.inject(0, pkt(i))
    outs = sw.run_until(0)
    assert [o.data[1] for o in outs] == [0] * 5 and sw.dropped == 0


def test_strict_priority_serves_high_queue_first() -> None:
    clock = SimClock()
    sw = switch(SRC, clock=clock, priority_queues=2)
    sw.tm.set_rate(port=1, pps=1000)
    sw.inject(0, pkt(0, prio=0))  # takes the server at t=0
    sw.inject(0, pkt(1, prio=0))
    sw.inject(0, pkt(2, prio=1))
    outs = sw.run_until(10_000)
    assert [o.data[0] for o in outs] == [0, 2, 1]


def test_priority_out_of_range_is_dropped() -> None:
    sw = switch(SRC, clock=SimClock())
    assert sw.process(0, pkt(0, prio=3)) == []
    assert sw.dropped == 1


def test_removing_the_rate_keeps_fifo_order() -> None:
    sw = switch(SRC, clock=SimClock())
    sw.tm.set_rate(port=1, pps=1000)
    for i in (1, 2, 3):
        sw.inject(0, pkt(i))
    out = [o.data[0] for o in sw.run_until(0)]
    sw.tm.set_rate(port=1, pps=None)
    sw.inject(0, pkt(4))
    out += [o.data[0] for o in sw.run_until(5000)]
    assert out == [1, 2, 3, 4]
