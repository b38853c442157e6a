"""Bad programs get one positioned message: file:line:col: error: text."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from softswitch.frontend.errors import P4Error
from tests.p4util import error_of, line_of, one, program, switch

HDR = "header h_t { bit<8> a; bit<16> b; }"


def test_syntax_error_position() -> None:
    src = program(decls=HDR, ingress="apply { hdr.h.a = ; }")
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'hdr.h.a = ;')}:")
    assert ": error: syntax error" in msg


def test_unknown_name() -> None:
    src = program(decls=HDR, ingress="apply { hdr.h.a = nosuch; }")
    msg = error_of(src)
    assert f"bad.p4:{line_of(src, 'nosuch')}:" in msg and "nosuch: no such declaration" in msg


def test_unknown_field() -> None:
    msg = error_of(program(decls=HDR, ingress="apply { hdr.h.zz = 1; }"))
    assert "h_t has no field zz" in msg


def test_implicit_width_change_is_an_error() -> None:
    msg = error_of(program(decls=HDR, ingress="apply { hdr.h.b = hdr.h.a; }"))
    assert "cannot convert bit<8> to bit<16>" in msg


def test_mixed_width_operation_is_an_error() -> None:
    msg = error_of(program(decls=HDR, ingress="apply { hdr.h.b = hdr.h.b + hdr.h.a; }"))
    assert "explicit cast" in msg


def test_runtime_division_is_refused_as_p4c_does() -> None:
    msg = error_of(program(decls=HDR, ingress="apply { hdr.h.a = hdr.h.a / 3; }"))
    assert "unsupported" in msg and "division" in msg


def test_table_apply_inside_action_is_refused() -> None:
    src = program(
        decls=HDR,
        ingress="""
        table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
        action a() { t.apply(); }
        apply { a(); }
        """,
    )
    assert "cannot be applied inside an action" in error_of(src)


def test_error_in_included_file_points_at_that_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    inc = tmp_path / "defs.p4"
    inc.write_text("header h_t {\n  bit<8> a;\n  bogus_t b;\n}\n")
    main = tmp_path / "main.p4"
    main.write_text(program(decls='#include "defs.p4"'))
    from softswitch.compiler import compile_file

    with pytest.raises(P4Error) as exc:
        compile_file(main)
    assert str(exc.value).startswith(f"{inc}:3:")


def test_preprocessor_error_is_positioned() -> None:
    msg = error_of("#include <core.p4>\n#error stop here\n")
    assert msg.startswith("bad.p4:2:") and "stop here" in msg


def test_extern_argument_width_must_match() -> None:
    src = program(
        decls=HDR,
        ingress="register<bit<8>>(4) r; apply { r.read(hdr.h.a, hdr.h.a); }",
    )
    assert "cannot convert bit<8> to bit<32>" in error_of(src)
    src = program(decls=HDR, ingress="register<bit<8>>(4) r; apply { r.read(hdr.h.b, 0); }")
    assert "cannot convert bit<16> to bit<8>" in error_of(src)


def test_switch_inside_action_is_refused() -> None:
    src = program(
        decls=HDR,
        ingress="action a() { switch (hdr.h.a) { 1: { } } } apply { a(); }",
    )
    assert "not supported on this target" in error_of(src)


def test_bmv2_target_restrictions() -> None:
    """What p4c-bm2-ss refuses for simple_switch, softswitch refuses too."""
    src = program(decls=HDR, egress="apply { clone(CloneType.I2E, 1); }")
    assert "'clone(I2E, ...)' can only be used in ingress" in error_of(src)
    src = program(decls=HDR, ingress="apply { recirculate_preserving_field_list(0); }")
    assert "'recirculate' can only be used in egress" in error_of(src)
    src = program(decls=HDR, compute="apply { hdr.h.a = 1; }")
    assert "only calls to update_checksum" in error_of(src)
    src = program(
        decls=HDR,
        compute="apply { update_checksum(true, { hdr.h.a + 1 }, hdr.h.b, HashAlgorithm.csum16); }",
    )
    assert "computations are not supported in update_checksum" in error_of(src)
    # a control applied from a checksum block is inlined, then checked the same way
    inner = "control Inner(inout headers_t hdr) { apply { hdr.h.a = 1; } }"
    src = program(decls=HDR, compute="Inner() i; apply { i.apply(hdr); }").replace(
        "control CC(", inner + "\ncontrol CC("
    )
    assert f"bad.p4:{line_of(src, 'control Inner')}:" in error_of(src)
    assert "only calls to update_checksum" in error_of(src)


def test_headers_must_be_whole_bytes() -> None:
    src = program(decls="header h_t { bit<7> a; }")
    assert "multiple of 8 bits" in error_of(src)
    assert f"bad.p4:{line_of(src, 'header h_t')}:" in error_of(src)


def test_an_unused_odd_header_type_is_accepted() -> None:
    """p4c-bm2-ss refuses only the header types a program instantiates (SAI-P4 declares
    an 18-bit @controller_header it never uses)."""
    src = program(
        decls="header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; }\n"
        '@controller_header("packet_in") header odd_t { bit<9> port; bit<9> other; }'
    )
    assert switch(src).process(1, b"\x01\x02\x03\x04") == [(0, b"\x01\x02\x03\x04")]


@pytest.mark.parametrize(
    ("parser", "deparser_emit", "needle", "message"),
    [
        ("pkt.advance(_);", "hdr", "advance(_)", "advance: argument 1 is missing"),
        ("pkt.extract(hdr.h, _);", "hdr", "extract(hdr.h, _)", "extract: argument 2 is missing"),
        ("", "_", "pkt.emit(_)", "emit: argument 1 is missing"),
    ],
)
def test_packet_method_argument_left_out(
    parser: str, deparser_emit: str, needle: str, message: str
) -> None:
    src = program(decls=HDR, parser=f"state start {{ {parser} transition accept; }}").replace(
        "pkt.emit(hdr);", f"pkt.emit({deparser_emit});"
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:") and message in msg


def test_default_action_argument_left_out() -> None:
    src = program(
        decls=HDR,
        ingress="""
        action set(bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact; } actions = { set; } default_action = set(_); }
        apply { t.apply(); }""",
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'set(_)')}:")
    assert "action arguments here must be constants" in msg


@pytest.mark.parametrize(
    "decls, ingress, needle, says",
    [
        # a zero-width signed literal, found while the program is being built (it came out
        # as lark's VisitError around the message)
        ("const int z = 0s0;", "apply { }", "0s0", "a signed integer needs a width"),
        ("", "apply { hdr.h.a = 7[1:-1]; }", "7[1:-1]", "indexes must not be negative"),
        ("", "apply { }", "bit<4096>", "widths up to 2048 are supported"),
        (
            "",
            "counter(4, CounterType.packets) c0;\n"
            "    action a(counter c) { c.count(0); }\n    apply { a(c0); }",
            "action a(counter c)",
            "an action parameter cannot be an extern",
        ),
    ],
)
def test_programs_p4c_refuses_get_a_positioned_error_not_a_crash(
    decls: str, ingress: str, needle: str, says: str
) -> None:
    """Programs from p4c's p4_16_errors that crashed the compiler with a Python exception
    (ValueError, TypeError, MemoryError for a huge width)."""
    extra = "const bit<4096> huge = 0;" if needle == "bit<4096>" else ""
    src = program(decls=f"{HDR} {decls} {extra}", ingress=ingress)
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:") and says in msg


def test_lookahead_of_a_type_without_a_width_is_an_error() -> None:
    src = program(
        decls=HDR,
        parser="state start { pkt.lookahead<void>(); transition accept; }",
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'lookahead<void>')}:")
    assert "not a type lookahead can read" in msg


TABLE = (
    "table t {{ key = {{ {key} }} actions = {{ {actions} }} {extra} }}\n    apply {{ t.apply(); }}"
)


def _table(key: str, actions: str, extra: str) -> str:
    """An ingress with actions a() and b() and table t (`extra`: more table properties)."""
    return "action a() { }\n    action b() { }\n    " + TABLE.format(
        key=key, actions=actions, extra=extra
    )


# (key, actions, more table properties, text on the refused line, what the error says)
TABLE_CASES = [
    ("hdr.h.a + hdr.h.a: exact;", "a;", "", "hdr.h.a + hdr.h.a",
     "a complex key expression needs a @name"),
    ("hdr.h.a: exact;", "@tableonly a; b;", "default_action = a();", "default_action",
     "a: an action marked @tableonly used as the default action"),
    ("hdr.h.a: exact;", "a; @defaultonly b;",
     "const entries = { 1 : b(); } default_action = a();", "const entries",
     "b: an action marked @defaultonly used in an entry"),
    ("hdr.h.a: ternary;", "a;", "const entries = { priority=5: 1 : a(); }", "priority=5",
     "table t: const entries take no priorities"),
    ("hdr.h.a: lpm;", "a;", "entries = { priority=5: 1 : a(); }", "priority=5",
     "table t: no key is ternary, range or optional, so entries take no priorities"),
    ("hdr.h.a: ternary;", "a;", "entries = {\n 1 : a();\n priority=5: 2 : a(); }",
     " 1 : a();", "table t: entries give priorities, so the first must give one"),
    ("hdr.h.a: optional;", "a;", "const entries = { 0xaa &&& 0xf0 : a(); }",
     "0xaa &&& 0xf0", "hdr.h.a: a optional key takes no mask (&&&)"),
    ("hdr.h.a: ternary;", "a;", "const entries = { 1 .. 5 : a(); }", "1 .. 5",
     "hdr.h.a: a ternary key takes no range (..)"),
    ("hdr.h.a: ternary;", "a;",
     "priority_delta = 10; entries = { priority=12: 1 : a(); 2 : a(); }", "priority_delta",
     "table t: priority 2 leaves no room for the next step of 10"),
]  # fmt: skip


@pytest.mark.parametrize("key, actions, extra, needle, says", TABLE_CASES)
def test_tables_p4c_refuses_are_refused(
    key: str, actions: str, extra: str, needle: str, says: str
) -> None:
    """Tables of p4c's p4_16_errors that p4c-bm2-ss 1.2.4.8 refuses and softswitch
    compiled (key-name, issue1580, init-entries-error1 to 3, table-entries-optional-2;
    @tableonly as default action, priorities in const entries)."""
    src = program(decls=HDR, ingress=_table(key, actions, extra))
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:") and says in msg


@pytest.mark.parametrize(
    "ingress, needle, says",
    [
        (
            "action a(in int v) { hdr.h.b = hdr.h.b + v; }\n    apply { a(1); }",
            "in int v",
            "v: an int parameter has no direction",
        ),
        (
            _table("hdr.h.a: exact;", "a;", "").replace(
                "apply { t.apply(); }",
                "apply { switch (t.apply().action_run) { a: { } default: { } default: { } } }",
            ),
            "default: { } default",
            "a switch statement has one default label",
        ),
    ],
)
def test_actions_p4c_refuses_are_refused(ingress: str, needle: str, says: str) -> None:
    """p4c's issue2354 (an int parameter with a direction) and issue2525 (two default
    labels in a switch)."""
    src = program(decls=HDR, ingress=ingress)
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:") and says in msg


def test_an_action_called_in_a_parser_is_refused() -> None:
    """p4c's issue413: actions are called from controls and tables, never parsers."""
    src = program(
        decls=HDR + "\naction set_a(inout bit<8> x) { x = 1; }",
        parser="state start { pkt.extract(hdr.h); set_a(hdr.h.a); transition accept; }",
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'set_a(hdr.h.a)')}:")
    assert "set_a: actions cannot be called in a parser" in msg


def test_a_parser_that_never_reaches_accept_or_reject_is_refused() -> None:
    """p4c's issue2373: states that only go round in a circle. A circle with a select in
    it can end (in reject when no case matches) and compiles."""
    looping = (
        "state start { transition s1; } state s1 { transition s2; } state s2 { transition s1; }"
    )
    src = program(decls=HDR, parser=looping)
    msg = error_of(src)
    assert "never reaches accept or reject" in msg and msg.startswith("bad.p4:")
    ending = looping.replace(
        "state s2 { transition s1; }",
        "state s2 { pkt.extract(hdr.h); transition select(hdr.h.a) { 1: s1; } }",
    )
    switch(program(decls=HDR, parser=ending))


@pytest.mark.parametrize(
    "case, says",
    [
        ("hdr.h.a: accept;", "hdr.h.a: a keyset value must be a constant"),
        ("1 .. hdr.h.a: accept;", "keyset ranges must be constants"),
    ],
)
def test_select_keysets_must_be_constants(case: str, says: str) -> None:
    """p4c's issue122 and issue-2123_e: a keyset read at run time is refused."""
    parser = (
        "state start { pkt.extract(hdr.h);"
        f" transition select(hdr.h.a + 1) {{ {case} default: accept; }} }}"
    )
    src = program(decls=HDR, parser=parser)
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, case)}:") and says in msg


def test_a_table_applied_in_an_action_argument_is_refused() -> None:
    """p4c's issue2835: `actions = { a(t2.apply().hit ? ...); }`."""
    src = program(
        decls=HDR,
        ingress="""action b() { }
    action a(in bit<8> x) { hdr.h.a = x; }
    table t2 { key = { hdr.h.b: exact; } actions = { b; } }
    table t { key = { hdr.h.a: exact; } actions = { a(t2.apply().hit ? 8w1 : 8w2); } }
    apply { t.apply(); }""",
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 't2.apply().hit')}:")
    assert "a table is applied in an action argument" in msg


def test_priority_steps_with_room_compile() -> None:
    """p4c-bm2-ss compiles entries whose priorities leave room for each step (20, 10)."""
    switch(
        program(
            decls=HDR,
            ingress=_table(
                key="hdr.h.a: ternary;",
                actions="a;",
                extra="priority_delta = 10; entries = { priority=20: 1 : a(); 2 : a(); }",
            ),
        )
    )


def test_a_value_set_of_tuples_is_refused_not_a_crash() -> None:
    """p4c's pvs.p4 (a value_set<tuple<...>>) raised TypeError in the compiler; p4c-bm2-ss
    refuses the type: bits, serializable enums and structs of them only."""
    src = program(
        decls=HDR,
        parser="value_set<tuple<bit<8>, bit<16>>>(4) vs;\n"
        "    state start { pkt.extract(hdr.h);"
        " transition select(hdr.h.a, hdr.h.b) { vs: accept; default: reject; } }",
    )
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, 'value_set<')}:")
    assert "a value set holds bit<W>, a serializable enum or a struct of them" in msg


def test_complement_of_a_width_less_int_is_refused() -> None:
    """p4c refuses `~1` wherever it stands, also where the context has a width
    (`hdr.h.a = ~1;`): the width must be written (`~8w1`)."""
    src = program(decls=HDR, ingress="apply { hdr.h.a = ~1; }")
    msg = error_of(src)
    assert (
        msg.startswith(f"bad.p4:{line_of(src, '~1')}:") and "~ needs a value of known width" in msg
    )
    assert one(program(decls=HDR, ingress="apply { hdr.h.a = ~8w1; }"), bytes(3))[0] == 0xFE


SUM = "control Sum(inout h_t x, in h_t y) { apply { update_checksum(true, { y.a }, x.b, HashAlgorithm.csum16); } }"


@pytest.mark.parametrize(
    ("compute", "message"),
    [
        # one instance applied with two sets of arguments: p4c copies them in and out
        (
            "Sum() s; apply { s.apply(hdr.h, hdr.h2); s.apply(hdr.h2, hdr.h); }",
            "'s' is applied with different arguments",
        ),
        # arguments that overlap are copied too, also in a direct invocation
        ("apply { Sum.apply(hdr.h, hdr.h); }", "arguments hdr.h and hdr.h overlap"),
        # p4c evaluates a ?: argument with an if statement
        (
            "Sum() s; apply { s.apply(hdr.h, hdr.h.a == 1 ? hdr.h2 : hdr.h2); }",
            "a ?: argument is evaluated by an if statement",
        ),
    ],
)
def test_checksum_block_args_p4c_would_copy_are_refused(compute: str, message: str) -> None:
    src = program(decls=HDR, headers="h_t h; h_t h2;", compute=compute)
    src = src.replace("control CC(", SUM + "\ncontrol CC(")
    assert message in error_of(src)


@pytest.mark.parametrize(
    "compute",
    [
        "Sum() s; apply { s.apply(hdr.h, hdr.h2); s.apply(hdr.h, hdr.h2); }",
        "apply { Sum.apply(hdr.h, hdr.h2); Sum.apply(hdr.h2, hdr.h); }",
        "Sum() s; Sum() t; apply { s.apply(hdr.h, hdr.h2); t.apply(hdr.h2, hdr.h); }",
    ],
)
def test_checksum_block_args_p4c_substitutes_are_accepted(compute: str) -> None:
    src = program(decls=HDR, headers="h_t h; h_t h2;", compute=compute)
    src = src.replace("control CC(", SUM + "\ncontrol CC(")
    compile_text(src, "ok.p4")
