"""Parsers: select with masks, ranges, tuples and default; lookahead; advance; verify;
header stacks; varbit; parser errors recorded in standard_metadata.parser_error."""

from __future__ import annotations

from tests.p4util import one, program, run, switch

HDRS = """
header h_t { bit<8> kind; bit<8> val; }
header out_t { bit<8> tag; bit<8> err; }
"""


def parse_tag(select: str, kind: int) -> int:
    src = program(
        decls=HDRS,
        headers="out_t o; h_t h;",
        parser=f"""
        state start {{
            pkt.extract(hdr.h);
            transition select(hdr.h.kind, hdr.h.val) {{ {select} }}
        }}
        state one {{ hdr.o.setValid(); hdr.o.tag = 1; transition accept; }}
        state two {{ hdr.o.setValid(); hdr.o.tag = 2; transition accept; }}
        """,
    )
    out = one(src, bytes([kind, 0x55]))
    return out[0] if len(out) == 4 else 0


def test_select_value_mask_range_default() -> None:
    cases = "(0x10 &&& 0xF0, _): one; (1 .. 5, 0x55): two; default: accept;"
    assert parse_tag(cases, 0x1F) == 1
    assert parse_tag(cases, 0x03) == 2
    assert parse_tag(cases, 0x06) == 0


def test_a_list_expression_is_a_keyset_as_in_p4c() -> None:
    """`{a, b}` for two select keys and `{a}` (or `{(a)}`) for one: p4c-bm2-ss takes a
    list expression as the keyset (p4c's sample action-two-params.p4 writes one)."""
    cases = "{8w0x1F, 8w0x55}: one; {(8w3), 8w0x55}: two; default: accept;"
    assert parse_tag(cases, 0x1F) == 1
    assert parse_tag(cases, 0x03) == 2
    assert parse_tag(cases, 0x1E) == 0
    src = program(
        decls=HDRS,
        headers="out_t o; h_t h;",
        parser="""
        state start { pkt.extract(hdr.h); transition select(hdr.h.kind) { {(8w9)}: one; } }
        state one { hdr.o.setValid(); hdr.o.tag = 1; transition accept; }
        """,
    )
    assert one(src, bytes([9, 0]))[0] == 1
    assert one(src, bytes([8, 0])) == bytes([8, 0])


def test_no_match_ends_parsing_without_an_error_as_on_bmv2() -> None:
    """p4c-bm2-ss gives a select without a matching case no default transition, so BMv2
    ends parsing there: parser_error stays NoError (checked with run-stf)."""
    src = program(
        decls=HDRS,
        headers="h_t h; out_t o;",
        parser="""
        state start { pkt.extract(hdr.h); transition select(hdr.h.kind) { 1: accept; } }
        """,
        ingress="""apply {
            hdr.o.setValid();
            hdr.o.err = (bit<8>)(sm.parser_error == error.NoMatch ? 1w1 : 1w0);
        }""",
    )
    out = one(src, bytes([7, 9, 0xEE]))
    # h stays valid, o added with err 0 (not NoMatch), payload kept
    assert out == bytes([7, 9, 0, 0, 0xEE])


def test_packet_too_short() -> None:
    src = program(
        decls="header h_t { bit<32> x; } header e_t { bit<8> code; }",
        headers="e_t e; h_t h;",
        ingress="""apply {
            hdr.e.setValid();
            if (sm.parser_error == error.PacketTooShort) { hdr.e.code = 1; }
        }""",
    )
    assert one(src, b"\x01\x02") == b"\x01\x01\x02"  # h invalid, bytes kept as payload


def test_lookahead_and_advance() -> None:
    src = program(
        decls="header h_t { bit<8> x; }",
        parser="""
        state start {
            bit<4> top = pkt.lookahead<bit<4>>();
            transition select(top) { 0xA: skip; default: take; }
        }
        state skip { pkt.advance(16); pkt.extract(hdr.h); transition accept; }
        state take { pkt.extract(hdr.h); transition accept; }
        """,
        ingress="apply { hdr.h.x = hdr.h.x + 1; }",
    )
    # 0xA? -> skip two bytes (they are dropped: only h and the payload are emitted)
    assert one(src, bytes([0xA1, 0x00, 0x05, 0x77])) == bytes([6, 0x77])
    assert one(src, bytes([0x11, 0x22])) == bytes([0x12, 0x22])


def test_lookahead_of_a_struct_holding_a_header_stack_and_a_header() -> None:
    """lookahead<S>() where S holds a header stack, a header and a bool: the next bits
    fill them in order and the headers are valid (p4c's issue2465-bmv2.p4 crashed the
    switch; checked against BMv2 with the same program and packets)."""
    src = program(
        decls="""
        header e_t { bit<8> v; }
        header o_t { bit<8> n; bit<8> first; bit<8> last; bit<8> flag; bit<8> valid; }
        struct peek_t { e_t[2] s; e_t one; bool flag; bit<7> rest; }
        """,
        headers="o_t o;",
        parser="""
        state start {
            peek_t p = pkt.lookahead<peek_t>();
            hdr.o.setValid();
            hdr.o.first = p.s[0].v;
            hdr.o.last = p.one.v;
            hdr.o.flag = p.flag ? 8w1 : 8w0;
            hdr.o.n = (bit<8>)p.rest;
            hdr.o.valid = p.s[1].isValid() && p.one.isValid() ? 8w1 : 8w0;
            transition accept;
        }
        """,
    )
    assert one(src, bytes([5, 6, 7, 0x83, 0xEE])) == bytes([3, 5, 7, 1, 1, 5, 6, 7, 0x83, 0xEE])
    # too short for the struct: PacketTooShort, nothing taken
    assert one(src, bytes([5, 6])) == bytes([5, 6])


def test_verify_failure_reports_error() -> None:
    src = program(
        decls="error { BadValue } header h_t { bit<8> x; } header e_t { bit<8> code; }",
        headers="h_t h; e_t e;",
        parser="""
        state start { pkt.extract(hdr.h); verify(hdr.h.x < 10, error.BadValue); transition accept; }
        """,
        ingress="""apply {
            hdr.e.setValid();
            hdr.e.code = (sm.parser_error == error.BadValue) ? 8w1 : 8w0;
        }""",
    )
    assert one(src, bytes([20])) == bytes([20, 1])
    assert one(src, bytes([5])) == bytes([5, 0])


def test_header_stack_next_last_and_overflow() -> None:
    src = program(
        decls="header l_t { bit<7> v; bit<1> bos; } header c_t { bit<8> n; bit<8> last; }",
        headers="c_t c; l_t[3] l;",
        parser="""
        state start { transition next_label; }
        state next_label {
            pkt.extract(hdr.l.next);
            transition select(hdr.l.last.bos) { 1: accept; default: next_label; }
        }
        """,
        ingress="""apply {
            hdr.c.setValid();
            hdr.c.n = (bit<8>)hdr.l.lastIndex;
            hdr.c.last = (bit<8>)hdr.l[hdr.l.lastIndex].v;  // `last` is for parsers
            if (sm.parser_error == error.StackOutOfBounds) { hdr.c.n = 0xEE; }
        }""",
    )
    # two labels, bottom of stack on the second
    assert one(src, bytes([2, 5, 0x99])) == bytes([1, 2, 2, 5, 0x99])
    # four labels without bos: the fourth overflows the stack (3 extracted stay valid)
    out = one(src, bytes([2, 4, 6, 8]))
    assert out[:2] == bytes([0xEE, 3]) and out[2:5] == bytes([2, 4, 6]) and out[5:] == bytes([8])


def test_stack_push_and_pop() -> None:
    src = program(
        decls="header l_t { bit<8> v; }",
        headers="l_t[3] l;",
        parser="state start { pkt.extract(hdr.l.next); pkt.extract(hdr.l.next); transition accept; }",
        ingress="""apply {
            hdr.l.push_front(1);
            hdr.l[0].setValid();
            hdr.l[0].v = 9;
        }""",
    )
    assert one(src, bytes([1, 2])) == bytes([9, 1, 2])
    src2 = src.replace(
        "hdr.l.push_front(1);\n            hdr.l[0].setValid();\n            hdr.l[0].v = 9;",
        "hdr.l.pop_front(1);",
    )
    assert one(src2, bytes([1, 2])) == bytes([2])


def test_a_run_time_stack_index_out_of_range_never_crashes_the_switch() -> None:
    """`hdr.l[i]` with i from the packet: in range, the element; a signed index below 0
    (p4c's issue2726-bmv2.p4 indexes by an int<8>) or one past the end stands for the last
    element, as an index past the end did before (the BMv2 1.15 here aborts instead), and
    the switch goes on."""
    src = program(
        decls="header l_t { bit<8> v; } header i_t { int<8> i; }",
        headers="i_t ix; l_t[3] l;",
        parser="""state start {
            pkt.extract(hdr.ix); pkt.extract(hdr.l[0]); pkt.extract(hdr.l[1]);
            pkt.extract(hdr.l[2]); transition accept;
        }""",
        ingress="""apply {
            bit<8> was = hdr.l[hdr.ix.i].v;
            hdr.l[hdr.ix.i].v = 0xEE;
            hdr.ix.i = (int<8>)was;
        }""",
    )
    sw = switch(src)
    assert sw.process(0, bytes([1, 7, 8, 9]))[0][1] == bytes([8, 7, 0xEE, 9])
    for i in (3, 0x7F, 0x80, 0xFF):  # 3, 127, -128, -1
        assert sw.process(0, bytes([i, 7, 8, 9]))[0][1] == bytes([9, 7, 8, 0xEE])


def test_varbit_extract_and_emit() -> None:
    src = program(
        decls="header len_t { bit<8> n; } header opt_t { varbit<32> data; }",
        headers="len_t len; opt_t opt;",
        parser="""
        state start { pkt.extract(hdr.len); pkt.extract(hdr.opt, (bit<32>)hdr.len.n * 8); transition accept; }
        """,
    )
    data = bytes([2, 0xAA, 0xBB, 0xCC])
    assert one(src, data) == data
    out = run(src, bytes([5, 1, 2]))  # asks for 40 bits > varbit<32>: HeaderTooShort
    assert out == [(0, bytes([5, 1, 2]))]


def test_parser_value_set_matches_members() -> None:
    from tests.p4util import switch

    src = program(
        decls="header h_t { bit<8> kind; bit<8> val; } header o_t { bit<8> tag; }",
        headers="o_t o; h_t h;",
        parser="""
        value_set<bit<8>>(4) kinds;
        state start { pkt.extract(hdr.h); transition select(hdr.h.kind) { kinds: mark; default: accept; } }
        state mark { hdr.o.setValid(); hdr.o.tag = 1; transition accept; }
        """,
    )
    sw = switch(src)
    assert sw.process(0, bytes([7, 0])) == [(0, bytes([7, 0]))]
    sw.value_sets["P.kinds"].members.append(((7, 0xFF),))
    assert sw.process(0, bytes([7, 0])) == [(0, bytes([1, 7, 0]))]
