"""`Switch.receive_batch`: packets that arrived together run every ingress pass, then the
egress passes in the order ingress sent them; what leaves is what the packets send one at
a time, errors are reported per packet, and queues or tracing fall back to one at a time."""

from __future__ import annotations

import pytest

from softswitch.v1model.switch import STAGE_BATCH, CloneSession, Switch
from tests.p4util import fail_ingress_when, program, switch

HDR = "header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; }"

# one packet per kind of request, each sending something distinguishable
REQUESTS = program(
    decls=HDR,
    meta="@field_list(1) bit<8> kept;",
    ingress="""apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) { clone(CloneType.I2E, 5); }
        if (hdr.h.op == 2) { sm.mcast_grp = 3; }
        if (hdr.h.op == 3 && sm.instance_type == 0) { meta.kept = 7; resubmit_preserving_field_list(1); }
        if (sm.instance_type == 6) { hdr.h.b = meta.kept; }
        if (hdr.h.op == 5) { truncate(2); }
        if (hdr.h.op == 6) { mark_to_drop(sm); }
    }""",
    egress="""apply {
        hdr.h.c = (bit<8>)sm.egress_port;
        if (hdr.h.op == 4 && hdr.h.b == 0) { hdr.h.b = 4; recirculate_preserving_field_list(1); }
    }""",
)


def pkt(op: int, a: int = 0, b: int = 0, c: int = 0) -> bytes:
    return bytes([op, a, b, c])


def with_sessions(src: str, **kw: object) -> Switch:
    sw = switch(src, **kw)
    sw.clone_session_set(5, CloneSession([(9, 0)]))
    sw.mc_group_set(3, [(2, 1), (3, 2)])
    return sw


def test_a_batch_sends_what_its_packets_send_one_at_a_time() -> None:
    frames = [(4, pkt(op, a) + b"data") for a, op in enumerate([0, 1, 2, 3, 4, 5, 6, 0, 1, 2])]
    one = with_sessions(REQUESTS)
    expected = [out for port, data in frames for out in one.process(port, data)]
    batch = with_sessions(REQUESTS)
    got = [(o.port, o.data) for o in batch.receive_batch(frames)]
    assert got == expected
    # every kind of request was there: clone, two replicas, resubmit, recirculate, truncate
    assert (9, pkt(1, 1, 0, 9) + b"data") in got
    assert {(2, pkt(2, 2, 0, 2) + b"data"), (3, pkt(2, 2, 0, 3) + b"data")} <= set(got)
    assert (1, pkt(3, 3, 7, 1) + b"data") in got
    assert (1, pkt(4, 4, 4, 1) + b"data") in got
    assert (1, pkt(5, 5)[:2]) in got
    assert batch.dropped == one.dropped == 1
    assert batch.receive_batch([]) == []


def test_the_ingress_passes_of_a_batch_come_before_its_egress_passes() -> None:
    """Egress writes what the next packet's ingress reads: one at a time the next packet
    sees it, in a batch it sees what the batch found."""
    src = program(
        decls=HDR + " register<bit<8>>(1) last;",
        ingress="apply { sm.egress_spec = 1; bit<8> v; last.read(v, 0); hdr.h.b = v; }",
        egress="apply { last.write(0, hdr.h.a); }",
    )
    frames = [(0, pkt(0, 10)), (0, pkt(0, 20)), (0, pkt(0, 30))]
    one = switch(src)
    assert [one.process(p, d) for p, d in frames] == [
        [(1, pkt(0, 10, 0))],
        [(1, pkt(0, 20, 10))],
        [(1, pkt(0, 30, 20))],
    ]
    batched = switch(src)
    out = [(o.port, o.data) for o in batched.receive_batch(frames)]
    assert out == [(1, pkt(0, 10, 0)), (1, pkt(0, 20, 0)), (1, pkt(0, 30, 0))]
    out = [(o.port, o.data) for o in batched.receive_batch(frames[:1])]
    assert out == [(1, pkt(0, 10, 30))]  # the last egress of the batch before
    # a long batch goes in groups: each group's ingress passes see the group before
    many = [(0, pkt(0, a)) for a in range(1, STAGE_BATCH + 5)]
    seen = [o.data[2] for o in switch(src).receive_batch(many)]
    assert seen == [0] * STAGE_BATCH + [STAGE_BATCH] * 4


def test_a_failing_packet_is_reported_and_the_others_go_out() -> None:
    src = program(decls=HDR, ingress="apply { sm.egress_spec = 2; }")
    sw = switch(src)
    fail_ingress_when(sw, lambda hdr, meta, std: hdr.h.op == 7)
    failed: list[tuple[int, bytes, str]] = []
    frames = [(0, pkt(1)), (5, pkt(7)), (0, pkt(2))]
    out = sw.receive_batch(frames, lambda p, d, e: failed.append((p, d, str(e))))
    assert [(o.port, o.data) for o in out] == [(2, pkt(1)), (2, pkt(2))]
    assert failed == [(5, pkt(7), "boom")]
    # without a callback the failure is raised after the batch; what the batch sent comes
    # with the next call
    with pytest.raises(RuntimeError, match="boom"):
        sw.receive_batch(frames)
    assert [(o.port, o.data) for o in sw.receive(0, pkt(3))] == [
        (2, pkt(1)),
        (2, pkt(2)),
        (2, pkt(3)),
    ]


def test_with_queues_or_tracing_the_packets_go_one_at_a_time() -> None:
    frames = [(4, pkt(op, a)) for a, op in enumerate([0, 1, 2, 0, 3])]
    for queued in (True, False):
        one, batched = (with_sessions(REQUESTS, trace=not queued) for _ in range(2))
        if queued:
            one.tm.set_rate(pps=1e9)
            batched.tm.set_rate(pps=1e9)
        expected = [(o.port, o.data) for p, d in frames for o in one.receive(p, d)]
        expected += [(o.port, o.data) for o in one.run_until(one._ticks() + 10)]
        got = [(o.port, o.data) for o in batched.receive_batch(frames)]
        got += [(o.port, o.data) for o in batched.run_until(batched._ticks() + 10)]
        assert got == expected and len(got) == 7
