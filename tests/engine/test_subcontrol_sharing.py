"""Sub-controls that use the applying control's header and struct cells directly (no
arguments at the apply) behave exactly as sub-controls given them by reference: what they
write is seen by the caller and by later applies, `exit` and `return` end what they should,
and the instances that cannot share (other arguments, two argument orders, an instance
passed to a constructor) still get their own arguments."""

from __future__ import annotations

import re

from softswitch.codegen.sharing import shared_params
from softswitch.compiler import compile_text
from softswitch.frontend import ast as A
from softswitch.frontend.parse import parse_text
from softswitch.v1model.switch import Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<8> b; bit<8> c; bit<8> d; }}
struct headers_t {{ h_t h; }}
struct pair_t {{ bit<8> x; }}
struct meta_t {{ bit<8> x; bit<8> y; pair_t p1; pair_t p2; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
{controls}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def run(controls: str, data: bytes) -> bytes:
    sw = Switch(compile_text(PROGRAM.format(controls=controls), "sharing.p4"))
    out = sw.process(0, data)
    assert len(out) == 1 and out[0][0] == 1
    return out[0][1]


def test_writes_of_a_sub_control_reach_the_caller_and_its_next_apply() -> None:
    controls = """
    control Bump(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        action add(bit<8> n) { hdr.h.a = hdr.h.a + n; meta.x = meta.x + 1; }
        apply { add(2); hdr.h.b = meta.x; sm.egress_spec = 1; }
    }
    control Inner(inout headers_t hdr, inout meta_t meta) {
        apply { hdr.h.d = hdr.h.d + meta.x; }
    }
    control Middle(inout headers_t hdr, inout meta_t meta) {
        Inner() inner;
        apply { inner.apply(hdr, meta); meta.x = meta.x + 10; inner.apply(hdr, meta); }
    }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        Bump() bump;
        Middle() middle;
        apply {
            bump.apply(hdr, meta, sm);
            bump.apply(hdr, meta, sm);
            hdr.h.c = meta.x;
            middle.apply(hdr, meta);
        }
    }
    """
    # a = 1 + 2 + 2; b = meta.x after the second apply; c = 2; d = 0 + 2 + 12
    assert run(controls, bytes([1, 0, 0, 0])) == bytes([5, 2, 2, 14])


def test_exit_and_return_in_a_sub_control() -> None:
    controls = """
    control Stop(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        apply {
            sm.egress_spec = 1;
            hdr.h.b = 7;
            if (hdr.h.a == 1) { return; }
            hdr.h.c = 8;
            if (hdr.h.a == 2) { exit; }
            hdr.h.d = 9;
        }
    }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        Stop() stop;
        apply { stop.apply(hdr, meta, sm); hdr.h.a = hdr.h.a + 100; }
    }
    """
    assert run(controls, bytes([1, 0, 0, 0])) == bytes([101, 7, 0, 0])  # return: caller goes on
    assert run(controls, bytes([2, 0, 0, 0])) == bytes([2, 7, 8, 0])  # exit: all stops
    assert run(controls, bytes([3, 0, 0, 0])) == bytes([103, 7, 8, 9])


def test_variables_of_a_written_out_sub_control_start_again_at_each_packet() -> None:
    # seen counts within one packet only: a control-level variable is set again at each
    # apply; the nested Inner sees Outer's variables only through its parameters
    controls = """
    control Inner(inout headers_t hdr) {
        bit<8> k = 3;
        apply { k = k + hdr.h.a; hdr.h.d = k; }
    }
    control Outer(inout headers_t hdr, inout standard_metadata_t sm) {
        bit<8> seen = 0;
        Inner() inner;
        apply {
            seen = seen + 1;
            hdr.h.b = seen;
            if (hdr.h.a > 1) { return; }
            inner.apply(hdr);
            sm.egress_spec = 1;
        }
    }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        Outer() outer;
        apply { sm.egress_spec = 1; outer.apply(hdr, sm); hdr.h.c = hdr.h.c + 1; }
    }
    """
    sw = Switch(compile_text(PROGRAM.format(controls=controls), "sharing.p4"))
    for _ in range(2):
        assert sw.process(0, bytes([1, 0, 0, 0])) == [(1, bytes([1, 1, 1, 4]))]
        assert sw.process(0, bytes([5, 0, 0, 0])) == [(1, bytes([5, 1, 1, 0]))]


def test_instances_given_other_arguments_keep_them() -> None:
    # swap is applied with (m1, m2) and with (m2, m1): its parameters cannot be the
    # caller's cells; part takes a part of hdr; copy is given hdr twice
    controls = """
    control Swap(inout pair_t p, inout pair_t q) {
        apply { bit<8> t = p.x; p.x = q.x; q.x = t + 1; }
    }
    control Two(inout pair_t m1, inout pair_t m2) {
        Swap() swap;
        apply {
            swap.apply(m1, m2);   // m1.x = 10, m2.x = 21
            swap.apply(m2, m1);   // m2.x = 10, m1.x = 22
        }
    }
    control Part(inout h_t h) { apply { h.d = h.d + 1; } }
    control Copy(in headers_t src, inout headers_t dst) {
        apply { dst.h.c = src.h.b; dst.h.b = 0; }
    }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        Two() two;
        Part() part;
        Copy() copy;
        apply {
            meta.p1.x = 20;
            meta.p2.x = 10;
            two.apply(meta.p2, meta.p1);
            hdr.h.a = meta.p1.x + meta.p2.x;
            part.apply(hdr.h);
            copy.apply(hdr, hdr);
            sm.egress_spec = 1;
        }
    }
    """
    assert run(controls, bytes([0, 5, 0, 0])) == bytes([32, 0, 5, 1])


def test_which_parameters_are_shared() -> None:
    program = parse_text(
        """
    header h_t { bit<8> a; bit<8> b; }
    struct headers_t { h_t h; }
    struct meta_t { bit<8> x; }
    control C(inout headers_t hdr, inout meta_t meta, in bit<8> v) { apply { hdr.h.a = v; } }
    control R(in meta_t m, inout headers_t hdr) { apply { hdr.h.b = m.x; } }
    control W(in meta_t m, inout headers_t hdr) { apply { m.x = 1; hdr.h.b = m.x; } }
    control Holder(inout headers_t hdr)(C c) { apply { } }
    control I(inout headers_t hdr, inout meta_t meta) {
        C() twice;
        C() part_too;
        C() passed;
        C() swapped;
        R() reads;
        W() writes;
        Holder(passed) holder;
        apply {
            twice.apply(hdr, meta, 1);
            twice.apply(hdr, meta, 2);
            part_too.apply(hdr, meta, hdr.h.b);
            passed.apply(hdr, meta, 2);
            reads.apply(meta, hdr);
            writes.apply(meta, hdr);
        }
    }
    """,
        "sharing.p4",
    )
    decls = {d.name: d for d in program.decls if isinstance(d, A.ControlDecl)}
    parent = decls["I"]
    insts = {d.name: d for d in parent.locals if isinstance(d, A.Instance)}

    def shared(inst: str, child: str) -> dict[str, str]:
        def bind(params, args, pos):  # type: ignore[no-untyped-def]
            return [a.value for a in args]

        def aggregate(p: A.Param) -> bool:
            return p.type_ref.name in ("headers_t", "meta_t")  # type: ignore[attr-defined]

        return shared_params(parent, insts[inst], decls[child], bind, aggregate)

    assert shared("twice", "C") == {"hdr": "hdr", "meta": "meta"}  # v is a scalar
    assert shared("part_too", "C") == {"meta": "meta"}  # hdr is also given in part
    assert shared("passed", "C") == {}  # also given to Holder's constructor
    assert shared("swapped", "C") == {}  # never applied
    assert shared("reads", "R") == {"m": "meta", "hdr": "hdr"}
    assert shared("writes", "W") == {"hdr": "hdr"}  # an `in` struct it writes is a copy


def test_a_sub_control_applied_once_with_the_callers_cells_is_written_out() -> None:
    """`stop` (applied once, with the caller's own hdr, meta and sm) gets no factory and no
    call: its body is written out where it is applied; `swap` (applied with other
    arguments, twice) keeps a factory of its own."""
    controls = """
    control Stop(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        apply { sm.egress_spec = 1; hdr.h.b = 7; }
    }
    control Swap(inout pair_t p, inout pair_t q) { apply { p.x = q.x; } }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
        Stop() stop;
        Swap() swap;
        apply { stop.apply(hdr, meta, sm); swap.apply(meta.p1, meta.p2); swap.apply(meta.p2, meta.p1); }
    }
    """
    source = compile_text(PROGRAM.format(controls=controls), "sharing.p4").source
    factories = set(re.findall(r"def make_(\w+)\(", source))
    assert "i_I_swap" in factories and "i_I_stop" not in factories
    assert run(controls, bytes([0, 0, 0, 0])) == bytes([0, 7, 0, 0])
