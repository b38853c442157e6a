"""A switch on an external nanosecond clock (a fabric simulator's): the traffic manager
schedules in ns, the switch never moves the clock, programs still see microseconds;
PFC pause/resume of a queue; queued packets counted per ingress port."""

from __future__ import annotations

import math

import pytest

from softswitch.clock import ExternalClock
from softswitch.v1model.switch import CloneSession
from tests.p4util import program, switch

SRC = program(
    decls="header h_t { bit<8> seq; bit<8> enq; bit<32> waited; bit<48> ts; }",
    ingress="apply { sm.egress_spec = 1; }",
    egress="""apply {
        hdr.h.enq = (bit<8>)sm.enq_qdepth;
        hdr.h.waited = sm.deq_timedelta;
        hdr.h.ts = sm.egress_global_timestamp;
    }""",
)
HDR = 12


def frame(seq: int, length: int = 1500) -> bytes:
    return bytes([seq]) + bytes(HDR - 1) + bytes(length - HDR)


def drain(sw, clock: ExternalClock) -> list[tuple[int, int, int, int, int]]:  # type: ignore[no-untyped-def]
    """Run the switch the way a simulator does: jump the clock to each dequeue time."""
    rows = []
    while (t := sw.next_event_ns()) is not None:
        clock.set(max(clock.now_ns(), int(-(-t // 1))))
        for o in sw.serve():
            d = o.data
            rows.append(
                (
                    o.time_us,
                    d[0],
                    d[1],
                    int.from_bytes(d[2:6], "big"),
                    int.from_bytes(d[6:12], "big"),
                )
            )
    return rows


def test_100g_serialisation_at_ns_precision() -> None:
    clock = ExternalClock(5_000)
    sw = switch(SRC, clock=clock)
    sw.tm.set_rate(bps=100e9)
    for i in range(20):
        sw.inject(0, frame(i))
    assert clock.now_ns() == 5_000  # injecting never moves the clock
    rows = drain(sw, clock)
    times = [r[0] for r in rows]  # Output times are ns on an external clock
    assert times == [5_000 + 120 * i for i in range(20)]  # 1500 B at 100 Gb/s: 120 ns each
    assert [r[1] for r in rows] == list(range(20))
    # enq_qdepth: packet 0 went straight to the server, the rest queued behind it
    assert [r[2] for r in rows] == [0, *range(19)]
    # the program sees microseconds: the last packet waited 19 * 120 ns = 2.28 us -> 2
    assert rows[-1][3] == 2 and rows[-1][4] == (5_000 + 19 * 120) // 1000
    assert sw.tm.ports[1].peak == 19


def test_the_switch_never_advances_an_external_clock() -> None:
    clock = ExternalClock()
    sw = switch(SRC, clock=clock)
    sw.tm.set_rate(bps=100e9)
    sw.inject(0, frame(0))
    sw.inject(0, frame(1))
    assert [o.data[0] for o in sw.serve()] == [0]  # only what is due at t=0
    with pytest.raises(ValueError):
        sw.run_until(1_000)
    assert clock.now_ns() == 0
    clock.set(120)
    assert [o.data[0] for o in sw.serve()] == [1]


def test_pause_holds_a_queue_and_resume_releases_it() -> None:
    clock = ExternalClock()
    sw = switch(SRC, clock=clock)
    sw.tm.set_rate(bps=100e9)
    sw.count_ingress = True
    sw.tm.pause(1, 0, True)
    for i in range(3):
        sw.inject(7, frame(i))
    assert sw.next_event_ns() is None  # paused: nothing will leave
    assert sw.tm.ingress_occupancy[(7, 0)] == 3
    clock.set(1_000)
    assert sw.serve() == []
    sw.tm.pause(1, 0, False, now=clock.now_ns())
    rows = drain(sw, clock)
    assert [r[0] for r in rows] == [1_000, 1_120, 1_240]
    assert sw.tm.ingress_occupancy[(7, 0)] == 0
    with pytest.raises(ValueError):
        sw.tm.pause(1, 3, True)


def test_receive_serves_what_is_due_now_in_ns() -> None:
    """`receive` (and `process`) on an external clock serve up to the clock's ns, not its
    microseconds: a packet reaching an idle rate-limited port leaves at once."""
    clock = ExternalClock(7_000)
    sw = switch(SRC, clock=clock)
    sw.tm.set_rate(bps=100e9)
    out = sw.receive(0, frame(1))
    assert [(o.time_us, o.port, o.data[0]) for o in out] == [(7_000, 1, 1)]
    clock.set(7_060)  # the server is busy with packet 1 until 7_120
    assert sw.process(0, frame(2)) == []
    clock.set(7_120)
    assert [d[0] for _p, d in sw.process(0, frame(3))] == [2]


def test_arrive_and_wake_hand_packets_to_the_output_callback() -> None:
    """`arrive`/`wake` with `set_output`, as a simulator drives a switch, send the same
    packets at the same times as `inject`/`serve`/`next_event_ns`, and return the time
    of the next departure."""

    def burst(sw, clock: ExternalClock, use_arrive: bool) -> list[tuple[int, int, bytes]]:  # type: ignore[no-untyped-def]
        sent: list[tuple[int, int, bytes]] = []
        if use_arrive:
            sw.set_output(lambda port, data: sent.append((clock.now_ns(), port, data)))
        arrivals = [(5_000 + 50 * i, frame(i, 1500 - 100 * i)) for i in range(10)]
        wake: float | None = None
        while arrivals or wake is not None:
            if arrivals and (wake is None or arrivals[0][0] <= wake):
                t, data = arrivals.pop(0)
                clock.set(max(clock.now_ns(), t))
                if use_arrive:
                    wake = sw.arrive(0, data)
                else:
                    sw.inject(0, data)
                    sent.extend((o.time_us, o.port, o.data) for o in sw.serve())
                    wake = sw.next_event_ns()
            else:
                assert wake is not None
                clock.set(max(clock.now_ns(), math.ceil(wake)))  # a departure may fall between ns
                if use_arrive:
                    wake = sw.wake()
                else:
                    sent.extend((o.time_us, o.port, o.data) for o in sw.serve())
                    wake = sw.next_event_ns()
        return sent

    runs = []
    for use_arrive in (False, True):
        clock = ExternalClock()
        sw = switch(SRC, clock=clock)
        sw.tm.set_rate(bps=100e9)
        runs.append(burst(sw, clock, use_arrive))
        if use_arrive:
            assert sw.serve() == []  # nothing was collected: all went to the callback
            sw.set_output(None)
            clock.set(clock.now_ns() + 10_000)
            assert [o.data[0] for o in sw.receive(0, frame(42))] == [42]
    assert runs[0] == runs[1]
    assert [d[0] for _t, _p, d in runs[1]] == list(range(10))
    assert runs[1][-1][0] > 5_000 + 50 * 9  # the burst queued: the last left after it came


def test_arrive_keeps_the_departure_order_of_a_packet_and_its_clone() -> None:
    """A packet and its ingress clone that are both due at once leave by port number, as
    after `inject` and `serve`: the packet does not skip the queue ahead of its clone."""
    src = program(
        decls="header h_t { bit<8> seq; bit<8> enq; bit<32> waited; bit<48> ts; }",
        ingress="apply { sm.egress_spec = 2; clone(CloneType.I2E, 5); }",
        egress="apply { hdr.h.enq = (bit<8>)sm.instance_type; }",
    )
    for clone_port in (1, 3):
        runs = []
        for use_arrive in (False, True):
            clock = ExternalClock(1_000)
            sw = switch(src, clock=clock)
            sw.tm.set_rate(bps=100e9)
            sw.clone_session_set(5, CloneSession([(clone_port, 0)]))
            sent: list[tuple[int, int, int]] = []
            if use_arrive:
                sw.set_output(lambda port, data, sent=sent: sent.append((port, data[0], data[1])))
            for i in range(3):
                clock.set(1_000 + 500 * i)  # the ports are idle again at each arrival
                if use_arrive:
                    sw.arrive(0, frame(i))
                else:
                    sw.inject(0, frame(i))
                    sent.extend((o.port, o.data[0], o.data[1]) for o in sw.serve())
            runs.append(sent)
        assert runs[0] == runs[1]
        assert [p for p, _seq, _kind in runs[1][:2]] == sorted((2, clone_port))


def test_a_truncated_packet_holds_the_port_for_its_cut_length() -> None:
    """The wire carries what is left after `truncate` (a trimmed header) or a clone
    session's packet_length, so the port is busy for that many bytes, not for the frame
    as it arrived: at 100 Gb/s a 1500-byte frame takes 120 ns, one cut to 100 bytes 8 ns."""
    src = program(
        decls="header h_t { bit<8> seq; bit<8> enq; bit<32> waited; bit<48> ts; }",
        ingress="""apply {
            sm.egress_spec = 1;
            if (hdr.h.seq[0:0] == 1) { truncate(100); }
            if (hdr.h.seq == 4) { clone(CloneType.I2E, 5); }
        }""",
    )
    clock = ExternalClock(0)
    sw = switch(src, clock=clock)
    sw.tm.set_rate(bps=100e9)
    sw.clone_session_set(5, CloneSession([(1, 0)], packet_length=200))
    for i in range(5):
        sw.inject(0, frame(i))
    rows = drain(sw, clock)
    # seq 0 (1500 B) at 0, 1 (cut to 100) at 120, 2 (1500) at 128, 3 (100) at 248; the
    # clone of 4 (cut to 200 B, queued first) at 256, then 4 itself (1500 B) at 256 + 16
    assert [(r[0], r[1]) for r in rows] == [
        (0, 0),
        (120, 1),
        (128, 2),
        (248, 3),
        (256, 4),
        (272, 4),
    ]
