"""The v1model pipeline: drops, egress port defaults, multicast, clones, resubmit,
recirculate, truncate, instance types, field lists."""

from __future__ import annotations

from softswitch.v1model.switch import CloneSession
from tests.p4util import program, switch

HDR = "header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; }"
META = "@field_list(1) bit<8> kept; bit<8> lost;"


def pkt(op: int, a: int = 0, b: int = 0, c: int = 0) -> bytes:
    return bytes([op, a, b, c])


def test_default_port_zero_and_mark_to_drop() -> None:
    src = program(decls=HDR, ingress="apply { if (hdr.h.op == 1) { mark_to_drop(sm); } }")
    sw = switch(src)
    assert sw.process(3, pkt(0)) == [(0, pkt(0))]  # egress_spec starts at 0
    assert sw.process(3, pkt(1)) == []
    assert sw.dropped == 1


def test_package_arguments_named_in_another_order() -> None:
    """`V1Switch(p = P(), ig = I(), vr = VC(), ...)`: each block goes to the parameter it
    names (p4c's basic_routing-bmv2.p4 names them out of order; it was refused, its
    ingress taken for the checksum verification)."""
    src = program(decls=HDR, ingress="apply { hdr.h.a = 7; sm.egress_spec = 3; }")
    named = src.replace(
        "V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
        "V1Switch(p = P(), ig = I(), vr = VC(), eg = E(), ck = CC(), dep = D()) main;",
    )
    assert named != src
    assert switch(named).process(0, pkt(1, 2)) == [(3, pkt(1, 7))]


def test_drop_in_egress() -> None:
    src = program(
        decls=HDR, ingress="apply { sm.egress_spec = 2; }", egress="apply { mark_to_drop(sm); }"
    )
    assert switch(src).process(0, pkt(0)) == []


def test_multicast_replicates_with_rid_and_instance_type() -> None:
    src = program(
        decls=HDR,
        ingress="apply { sm.mcast_grp = 7; }",
        egress="apply { hdr.h.a = (bit<8>)sm.egress_rid; hdr.h.b = (bit<8>)sm.instance_type; hdr.h.c = (bit<8>)sm.egress_port; }",
    )
    sw = switch(src)
    sw.mc_group_set(7, [(1, 10), (4, 11)])
    assert sw.process(0, pkt(0)) == [(1, pkt(0, 10, 5, 1)), (4, pkt(0, 11, 5, 4))]
    sw.mc_group_set(7, [])
    assert sw.process(0, pkt(0)) == []


def test_ingress_clone_carries_packet_as_received_and_field_list() -> None:
    src = program(
        decls=HDR,
        meta=META,
        ingress="""apply {
            if (sm.instance_type == 0) {
                meta.kept = 5; meta.lost = 6;
                hdr.h.a = 0xAA;
                sm.egress_spec = 1;
                clone_preserving_field_list(CloneType.I2E, 3, 1);
            }
        }""",
        egress="apply { hdr.h.b = (bit<8>)sm.instance_type; hdr.h.c = meta.kept + meta.lost; }",
    )
    sw = switch(src)
    assert sw.process(0, pkt(0)) == [(1, pkt(0, 0xAA, 0, 11))]  # no session: no clone
    sw.clone_session_set(3, CloneSession([(9, 0)]))
    out = sw.process(0, pkt(0))
    assert (9, pkt(0, 0, 1, 5)) in out  # as received, instance 1, only `kept` preserved
    assert (1, pkt(0, 0xAA, 0, 11)) in out


def test_clone_of_a_dropped_packet_still_goes_out() -> None:
    src = program(
        decls=HDR,
        ingress="apply { clone(CloneType.I2E, 2); mark_to_drop(sm); }",
    )
    sw = switch(src)
    sw.clone_session_set(2, CloneSession([(6, 0)]))
    assert sw.process(0, pkt(1)) == [(6, pkt(1))]


def test_egress_clone_runs_egress_again_on_the_egress_output() -> None:
    src = program(
        decls=HDR,
        ingress="apply { sm.egress_spec = 1; }",
        egress="""apply {
            hdr.h.a = hdr.h.a + 1;
            hdr.h.b = (bit<8>)sm.instance_type;
            if (sm.instance_type == 0) { clone(CloneType.E2E, 4); }
        }""",
    )
    sw = switch(src)
    sw.clone_session_set(4, CloneSession([(2, 0)]))
    assert sw.process(0, pkt(0)) == [(1, pkt(0, 1, 0)), (2, pkt(0, 2, 2))]


def test_resubmit_preserves_field_list_and_drops_original_pass() -> None:
    src = program(
        decls=HDR,
        meta=META,
        ingress="""apply {
            if (sm.instance_type == 0) {
                meta.kept = 7; meta.lost = 8;
                resubmit_preserving_field_list(1);
            } else {
                hdr.h.a = meta.kept; hdr.h.b = meta.lost; hdr.h.c = (bit<8>)sm.instance_type;
            }
        }""",
    )
    assert switch(src).process(0, pkt(0)) == [(0, pkt(0, 7, 0, 6))]


def test_recirculate_reenters_ingress_with_the_deparsed_packet() -> None:
    src = program(
        decls=HDR,
        meta=META,
        ingress="apply { hdr.h.a = hdr.h.a + 1; hdr.h.c = (bit<8>)sm.instance_type; }",
        egress="apply { if (hdr.h.a < 3) { recirculate_preserving_field_list(1); } }",
    )
    assert switch(src).process(0, pkt(0)) == [(0, pkt(0, 3, 0, 4))]


def test_truncate_cuts_the_output() -> None:
    src = program(decls=HDR, ingress="apply { truncate(2); }")
    assert switch(src).process(0, pkt(1, 2, 3, 4) + b"payload") == [(0, pkt(1, 2, 3, 4)[:2])]


def test_requests_last_for_their_packet_only() -> None:
    """A truncate, clone, digest or recirculate asked for one packet does nothing to the
    next packets (the switch forgets each request once the pass that made it ends)."""
    src = program(
        decls=HDR + " struct d_t { bit<8> a; }",
        ingress="""apply {
            sm.egress_spec = 1;
            if (hdr.h.op == 1) { truncate(2); clone(CloneType.I2E, 5); digest<d_t>(1, { hdr.h.a }); }
            if (sm.instance_type == 4) { hdr.h.b = 4; }
        }""",
        egress="""apply {
            if (hdr.h.op == 2 && hdr.h.c == 0) { hdr.h.c = 9; recirculate_preserving_field_list(0); }
        }""",
    )
    sw = switch(src)
    sw.clone_session_set(5, CloneSession([(9, 0)]))
    out = sw.process(0, pkt(1, 7) + b"payload")
    assert (1, pkt(1, 7)[:2]) in out and [p for p, _ in out].count(9) == 1
    assert [d.data.a for d in sw.digests] == [7]
    assert sw.process(0, pkt(0, 8) + b"payload") == [(1, pkt(0, 8) + b"payload")]
    assert sw.process(0, pkt(2, 8)) == [(1, pkt(2, 8, 4, 9))]  # one recirculation
    assert sw.process(0, pkt(3, 8)) == [(1, pkt(3, 8))]
    assert [d.data.a for d in sw.digests] == [7]


def test_payload_follows_deparsed_headers() -> None:
    src = program(decls=HDR, ingress="apply { hdr.h.setInvalid(); }")
    assert switch(src).process(0, pkt(1, 2, 3, 4) + b"rest") == [(0, b"rest")]


def test_timestamps_follow_the_simulated_clock() -> None:
    from softswitch.clock import SimClock

    clock = SimClock(start_us=1000)
    src = program(
        decls="header h_t { bit<48> t; }",
        ingress="apply { hdr.h.t = sm.ingress_global_timestamp; }",
    )
    sw = switch(src, clock=clock)
    clock.advance(234)
    assert sw.process(0, bytes(6)) == [(0, (1234).to_bytes(6, "big"))]
