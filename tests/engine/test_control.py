"""Controls: actions, tables and their results, switch, exit, return, functions, sub-controls."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from softswitch.engine.errors import PermissionDenied
from softswitch.engine.matches import Exact, Lpm, Optional, Range, Ternary, Wildcard
from softswitch.v1model.switch import Switch
from tests.p4util import error_of, line_of, one, program, switch

HDR = "header h_t { bit<8> k; bit<8> r; bit<8> s; }"

TABLE_PROGRAM = program(
    decls=HDR,
    ingress="""
    action set_r(bit<8> v) { hdr.h.r = v; }
    action miss() { hdr.h.r = 0xEE; }
    table t {
        key = { hdr.h.k: exact @name("k"); }
        actions = { set_r; miss; }
        default_action = miss();
    }
    // a second table for the second look-up: BMv2 applies a table once per path
    table t2 {
        key = { hdr.h.k: exact @name("k"); }
        actions = { set_r; miss; }
        default_action = miss();
    }
    apply {
        switch (t.apply().action_run) {
            set_r: { hdr.h.s = 1; }
            miss: { hdr.h.s = 2; }
        }
        if (t2.apply().hit) { hdr.h.s = hdr.h.s + 10; }
    }
    """,
)


def _both(sw: Switch, op: str, *args: object, **kw: object) -> None:
    """The same control-plane call on t and t2."""
    for name in ("I.t", "I.t2"):
        getattr(sw.tables[name], op)(*args, **kw)


def test_table_hit_miss_and_action_run() -> None:
    sw = switch(TABLE_PROGRAM)
    _both(sw, "add", [Exact(5)], "I.set_r", (42,))
    assert sw.process(0, bytes([5, 0, 0])) == [(0, bytes([5, 42, 11]))]
    assert sw.process(0, bytes([6, 0, 0])) == [(0, bytes([6, 0xEE, 2]))]
    _both(sw, "set_default", "I.set_r", (7,))
    assert sw.process(0, bytes([6, 0, 0])) == [(0, bytes([6, 7, 1]))]


def _kind_program(kind: str) -> str:
    return program(
        decls=HDR,
        ingress=f"""
        action set_r(bit<8> v) {{ hdr.h.r = v; }}
        table t {{ key = {{ hdr.h.k: {kind}; }} actions = {{ set_r; NoAction; }} }}
        apply {{ t.apply(); }}
        """,
    )


def test_lpm_longest_prefix_wins() -> None:
    sw = switch(_kind_program("lpm"))
    t = sw.tables["I.t"]
    t.add([Lpm(0x80, 1)], "I.set_r", (1,))
    t.add([Lpm(0xC0, 2)], "I.set_r", (2,))
    t.add([Lpm(0, 0)], "I.set_r", (9,))
    assert sw.process(0, bytes([0xC1, 0, 0]))[0][1][1] == 2
    assert sw.process(0, bytes([0x81, 0, 0]))[0][1][1] == 1
    assert sw.process(0, bytes([0x01, 0, 0]))[0][1][1] == 9


def test_ternary_larger_priority_wins() -> None:
    sw = switch(_kind_program("ternary"))
    t = sw.tables["I.t"]
    t.add([Ternary(0x00, 0x00)], "I.set_r", (1,), priority=1)
    t.add([Ternary(0x10, 0xF0)], "I.set_r", (2,), priority=10)
    assert sw.process(0, bytes([0x1F, 0, 0]))[0][1][1] == 2
    assert sw.process(0, bytes([0x2F, 0, 0]))[0][1][1] == 1


def test_range_and_optional() -> None:
    sw = switch(_kind_program("range"))
    sw.tables["I.t"].add([Range(10, 20)], "I.set_r", (3,), priority=1)
    assert sw.process(0, bytes([15, 0, 0]))[0][1][1] == 3
    assert sw.process(0, bytes([21, 0, 0]))[0][1][1] == 0
    sw = switch(_kind_program("optional"))
    sw.tables["I.t"].add([Optional(4)], "I.set_r", (4,), priority=2)
    sw.tables["I.t"].add([Wildcard()], "I.set_r", (5,), priority=1)
    assert sw.process(0, bytes([4, 0, 0]))[0][1][1] == 4
    assert sw.process(0, bytes([3, 0, 0]))[0][1][1] == 5


def test_const_entries_and_const_default() -> None:
    src = program(
        decls=HDR,
        ingress="""
        action set_r(bit<8> v) { hdr.h.r = v; }
        table t {
            key = { hdr.h.k: ternary; }
            actions = { set_r; }
            const default_action = set_r(0xFF);
            const entries = {
                0x10 &&& 0xF0 : set_r(1);
                0x11 : set_r(2);
                _ : set_r(3);
            }
        }
        apply { t.apply(); }
        """,
    )
    sw = switch(src)
    # the first matching entry in program order wins
    assert sw.process(0, bytes([0x11, 0, 0]))[0][1][1] == 1
    assert sw.process(0, bytes([0x21, 0, 0]))[0][1][1] == 3


ENTRIES_TABLE = """
    action set_r(bit<8> v) { hdr.h.r = v; }
    table t {
        key = { hdr.h.k: ternary; }
        actions = { set_r; NoAction; }
        largest_priority_wins = false;
        priority_delta = 10;
        @noWarn("duplicate-priorities")
        entries = {
            const priority=1:  0x10 &&& 0xF0 : set_r(1);
                  priority=50: 0x11          : set_r(2);
                               0x12          : set_r(3);
            const              0x13 &&& 0xFF : set_r(4);
                               _             : set_r(5);
        }
    }
    apply { t.apply(); }
"""


def test_initial_entries_run_in_program_order_as_on_bmv2() -> None:
    """`priority = N` on initial entries, with `largest_priority_wins` and
    `priority_delta` (p4c's init-entries-bmv2.p4): p4c's BMv2 back end numbers the
    entries by position and leaves the priorities out, so the first matching entry wins
    (checked against BMv2 with overlapping entries)."""
    sw = switch(program(decls=HDR, ingress=ENTRIES_TABLE))
    assert [sw.process(0, bytes([k, 0, 0]))[0][1][1] for k in (0x11, 0x12, 0x13, 0x20)] == [
        1,
        1,
        1,
        5,
    ]


def test_const_marks_single_initial_entries_constant() -> None:
    """`const` before an entry of a non-const `entries` list: that entry cannot be
    changed; the others can, and the table takes new entries."""
    sw = switch(program(decls=HDR, ingress=ENTRIES_TABLE))
    t = sw.tables["I.t"]
    assert [e.const for e in sorted(t.entries.values(), key=lambda e: -e.priority)] == [
        True,
        False,
        False,
        True,
        False,
    ]
    first = max(t.entries.values(), key=lambda e: e.priority)
    with pytest.raises(PermissionDenied):
        t.delete(first.matches, first.priority)
    loose = [e for e in t.entries.values() if not e.const]
    for e in loose:
        t.delete(e.matches, e.priority)
    assert len(t.entries) == 2
    assert sw.process(0, bytes([0x12, 0, 0]))[0][1][1] == 1  # the const entry, still there
    assert sw.process(0, bytes([0x20, 0, 0]))[0][1][1] == 0  # set_r(5) is gone: NoAction


def test_const_entries_keyed_by_list_expressions() -> None:
    """`{a, b}` and `{(a)}` as an entry's keys, as p4c-bm2-ss takes them (p4c's sample
    action-two-params.p4)."""
    src = program(
        decls=HDR,
        ingress="""
        action set_r(bit<8> v) { hdr.h.r = v; }
        table two {
            key = { hdr.h.k: exact; hdr.h.s: exact; }
            actions = { set_r; NoAction; }
            const entries = { {8w1, 8w2} : set_r(12); {(8w3), 8w4} : set_r(34); }
        }
        table one {
            key = { hdr.h.k: exact; }
            actions = { set_r; NoAction; }
            const entries = { {(8w0x20 | 8w0x05)} : set_r(37); }
        }
        apply { if (!two.apply().hit) { one.apply(); } }
        """,
    )
    assert one(src, bytes([1, 0, 2]))[1] == 12
    assert one(src, bytes([3, 0, 4]))[1] == 34
    assert one(src, bytes([0x25, 0, 4]))[1] == 37
    assert one(src, bytes([1, 0, 4]))[1] == 0


def test_a_call_takes_the_declaration_of_its_name_that_fits_its_arguments() -> None:
    """Inside action `hash()`, `hash(...)` with five arguments is v1model's extern (p4c
    resolves by name and argument count: its issue1541.p4); `hash()` is the action."""
    src = program(
        decls=HDR,
        ingress="""
        action hash() {
            hash(hdr.h.r, HashAlgorithm.identity, 8w0, { hdr.h.k }, 16w256);
        }
        action random(bit<8> v) { hdr.h.s = v; }
        apply { hash(); random(7); }
        """,
    )
    assert one(src, bytes([0x42, 0, 0])) == bytes([0x42, 0x42, 7])


def test_exit_stops_the_control() -> None:
    src = program(
        decls=HDR, ingress="apply { hdr.h.r = 1; if (hdr.h.k == 0) { exit; } hdr.h.r = 2; }"
    )
    assert one(src, bytes([0, 0, 0]))[1] == 1
    assert one(src, bytes([1, 0, 0]))[1] == 2


def test_functions_with_out_parameters_and_return() -> None:
    src = program(
        decls=HDR
        + """
        bit<8> max(in bit<8> a, in bit<8> b) { if (a > b) { return a; } return b; }
        void split(in bit<8> v, out bit<8> hi, out bit<8> lo) { hi = v >> 4; lo = v & 0xF; }
        """,
        ingress="apply { hdr.h.r = max(hdr.h.k, 9); split(hdr.h.k, hdr.h.s, hdr.h.k); }",
    )
    assert one(src, bytes([0xAB, 0, 0])) == bytes([0x0B, 0xAB, 0x0A])


def test_action_inout_parameter_copy_back() -> None:
    src = program(
        decls=HDR,
        ingress="""
        action bump(inout bit<8> x) { x = x + 1; }
        apply { bump(hdr.h.r); bump(hdr.h.r); }
        """,
    )
    assert one(src, bytes([0, 5, 0]))[1] == 7


def test_sub_control_with_constructor_parameter() -> None:
    src = program(
        decls=HDR
        + """
        control Add(inout bit<8> v)(bit<8> amount) {
            apply { v = v + amount; }
        }
        """,
        ingress="""
        Add(3) add3;
        Add(10) add10;
        apply { add3.apply(hdr.h.r); add10.apply(hdr.h.s); }
        """,
    )
    assert one(src, bytes([0, 1, 1])) == bytes([0, 4, 11])


def test_switch_on_value_with_fallthrough() -> None:
    src = program(
        decls=HDR,
        ingress="""apply {
            switch (hdr.h.k) {
                1:
                2: { hdr.h.r = 12; }
                3: { hdr.h.r = 3; }
                default: { hdr.h.r = 99; }
            }
        }""",
    )
    assert [one(src, bytes([k, 0, 0]))[1] for k in (1, 2, 3, 4)] == [12, 12, 3, 99]


def test_table_keyed_on_validity_and_enum() -> None:
    src = program(
        decls=HDR + " enum bit<8> Kind { A = 1, B = 2 }",
        ingress="""
        action set_r(bit<8> v) { hdr.h.r = v; }
        table t {
            key = { hdr.h.isValid(): exact; hdr.h.k: exact; }
            actions = { set_r; NoAction; }
            const entries = { (true, (bit<8>)Kind.B) : set_r(5); }
        }
        apply { t.apply(); }
        """,
    )
    assert one(src, bytes([2, 0, 0]))[1] == 5


def test_for_loops_with_break_and_continue() -> None:
    src = program(
        decls=HDR,
        ingress="""apply {
            bit<8> sum = 0;
            for (bit<8> i = 1; i <= hdr.h.k; i = i + 1) {
                if (i == 3) { continue; }
                if (i == 6) { break; }
                sum = sum + i;
            }
            hdr.h.r = sum;
            bit<8> n = 0;
            for (bit<8> j in 2 .. 4) { n = n + j; }
            hdr.h.s = n;
        }""",
    )
    assert one(src, bytes([4, 0, 0])) == bytes([4, 1 + 2 + 4, 9])
    assert one(src, bytes([9, 0, 0])) == bytes([9, 1 + 2 + 4 + 5, 9])


SIDE = (
    HDR
    + """
bit<8> set_one(inout bit<8> x) { x = 1; return 2; }
bool yes(inout bit<8> x) { x = 1; return true; }
"""
)


def test_operands_are_evaluated_left_to_right() -> None:
    src = program(decls=SIDE, ingress="apply { hdr.h.r = hdr.h.k + set_one(hdr.h.k); }")
    assert one(src, bytes([5, 0, 0])) == bytes([1, 7, 0])  # k read (5) before the call


def test_short_circuit_skips_calls() -> None:
    src = program(
        decls=SIDE,
        ingress="apply { bool b = hdr.h.s == 0 || yes(hdr.h.k); hdr.h.r = b ? 8w1 : 8w0; }",
    )
    assert one(src, bytes([5, 0, 0])) == bytes([5, 1, 0])  # yes() not called
    assert one(src, bytes([5, 0, 3])) == bytes([1, 1, 3])


def test_compound_assignment_evaluates_target_once() -> None:
    src = program(
        decls="header h_t { bit<8> i; } header e_t { bit<8> a; }"
        " bit<8> inc(inout bit<8> x) { x = x + 1; return x; }",
        headers="h_t h; e_t[2] e;",
        parser="state start { pkt.extract(hdr.h); pkt.extract(hdr.e.next); pkt.extract(hdr.e.next); transition accept; }",
        ingress="apply { hdr.e[inc(hdr.h.i) & 1].a |= 4; }",
    )
    assert one(src, bytes([0, 0, 0])) == bytes([1, 0, 4])


def test_exit_in_action_still_copies_out() -> None:
    src = program(
        decls=HDR,
        ingress="action a(inout bit<8> v) { v = 2; exit; } apply { a(hdr.h.r); hdr.h.r = 9; }",
    )
    assert one(src, bytes([0, 0, 0]))[1] == 2


def test_inout_argument_copy_out_wins_over_aliased_writes() -> None:
    src = program(
        decls=HDR,
        ingress="action a(inout headers_t v) { hdr.h.r = 2; } apply { a(hdr); }",
    )
    assert one(src, bytes([0, 0, 0]))[1] == 0


def test_assigning_a_whole_struct_parameter() -> None:
    src = program(
        decls=HDR,
        ingress="""
        headers_t tmp;
        apply { tmp.h.setValid(); tmp.h.k = 3; tmp.h.r = 4; hdr = tmp; }
        """,
    )
    assert one(src, bytes([0, 0, 0])) == bytes([3, 4, 0])


def test_priority_annotation_in_const_entries() -> None:
    src = program(
        decls=HDR,
        ingress="""
        action s(bit<8> v) { hdr.h.r = v; }
        table t {
            key = { hdr.h.k: ternary; }
            actions = { s; }
            const entries = {
                0x01 &&& 0x0F : s(1) @priority(3);
                0x01 &&& 0xFF : s(2) @priority(1);
            }
        }
        apply { t.apply(); }
        """,
    )
    assert one(src, bytes([1, 0, 0]))[1] == 2  # BMv2: the smallest @priority wins


def test_in_struct_of_a_sub_control_is_a_copy() -> None:
    """A sub-control's `in` header struct is its own copy: the caller passing the same
    struct as an inout argument of the same call does not change what the `in` one reads;
    a read-only use (passed by reference) sees the caller's values."""
    # the sub-controls stand after headers_t (a type is known from its declaration on)
    subs = """
        control Reads(in headers_t h, inout bit<8> v) {
            apply { if (h.h.isValid()) { v = h.h.r + 1; } }
        }
        control Both(in headers_t a, inout headers_t b) {
            apply { b.h.s = 50; b.h.r = a.h.s; }
        }
        """
    src = program(
        decls=HDR,
        ingress="""
        Reads() r;
        Both() both;
        apply {
            r.apply(hdr, hdr.h.s);   // s = r + 1 = 8
            both.apply(hdr, hdr);    // s = 50; r = s as it was before the call (8)
        }
        """,
    ).replace("\nparser P(", subs + "\nparser P(", 1)
    assert one(src, bytes([1, 7, 0])) == bytes([1, 8, 50])


@pytest.mark.parametrize(
    ("params", "body", "args"),
    [
        ("in headers_t h, inout bit<8> v", "h.h.r = 99; v = h.h.r;", "hdr"),
        ("in bit<8> x, inout bit<8> v", "x = 1; v = x;", "hdr.h.r"),
        # as an inout argument (copied back into it)
        ("in bit<8> x, inout bit<8> v", "bump(x); v = x;", "hdr.h.r"),
    ],
)
def test_an_in_parameter_is_not_assignable(params: str, body: str, args: str) -> None:
    """p4c-bm2-ss refuses each ("cannot be the target of an assignment", "must be a
    left-value")."""
    sub = f"control Writes({params}) {{ apply {{ {body} }} }}"
    src = program(
        decls=HDR + "\nvoid bump(inout bit<8> y) { y = y + 1; }",
        ingress=f"Writes() w;\napply {{ w.apply({args}, hdr.h.k); }}",
    ).replace("\nparser P(", "\n" + sub + "\nparser P(", 1)
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, sub)}:") and "cannot be the target" in msg


def test_switches_of_one_program_share_its_classes_not_its_state() -> None:
    """The generated module runs once per program: the header classes are shared (so the
    interpreter's caches in the shared code stay valid from switch to switch); tables,
    registers and the pipeline's closures are each switch's own."""
    prog = compile_text(TABLE_PROGRAM, "test.p4")
    a, b = Switch(prog), Switch(prog)
    assert a.pipe["H"] is b.pipe["H"] and a.pipe["ingress"] is not b.pipe["ingress"]
    _both(a, "add", [Exact(5)], "I.set_r", (42,))
    assert a.process(0, bytes([5, 0, 0])) == [(0, bytes([5, 42, 11]))]
    assert b.process(0, bytes([5, 0, 0])) == [(0, bytes([5, 0xEE, 2]))]


def test_an_action_parameter_is_not_assignable() -> None:
    """A directionless action parameter is read-only too (p4c-bm2-ss: "cannot be the
    target of an assignment"); the same action reading it compiles."""
    table = "table t { key = { hdr.h.k: exact; } actions = { set; } }\napply { t.apply(); }"
    src = program(decls=HDR, ingress=f"action set(bit<8> v) {{ v = 1; hdr.h.r = v; }}\n{table}")
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'action set')}:"), msg
    assert "directionless parameter" in msg
    ok = program(decls=HDR, ingress=f"action set(bit<8> v) {{ hdr.h.r = v; }}\n{table}")
    assert compile_text(ok, "ok.p4").info
