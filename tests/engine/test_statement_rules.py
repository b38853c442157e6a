"""Statements, tables and extern calls that p4c-bm2-ss 1.2.4.8 refuses are refused with a
position, and the forms it accepts beside them compile (each verdict below was p4c's on
the same program)."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, one, program

DECLS = """
header h_t { bit<8> a; bit<16> c; }
control Sub(inout h_t hh) {
    action b() { }
    table t2 { key = { hh.a: exact; } actions = { b; } }
    apply { t2.apply(); }
}
"""
TABLES = """
    action b() { }
    table t { key = { hdr.h.a: exact; } actions = { b; } }
    table u { key = { hdr.h.a: exact; } actions = { b; } }
"""


def _src(body: str, locals_: str = "") -> str:
    return program(
        decls=DECLS, meta="bool f;", ingress=f"{TABLES}{locals_}\n    apply {{\n{body}\n}}"
    )


REFUSED = [
    ("t.apply();\nt.apply();", "", "t.apply();", "applied twice"),
    ("if (meta.f) { t.apply(); }\nt.apply();", "", "t.apply();", "applied twice"),
    # p4c's graph keeps the path through an early return or exit
    ("if (meta.f) { t.apply(); return; }\nt.apply();", "", "t.apply();", "applied twice"),
    ("if (meta.f) { t.apply(); exit; }\nt.apply();", "", "t.apply();", "applied twice"),
    ("if (t.apply().hit) { t.apply(); }", "", "if (t.apply().hit)", "applied twice"),
    ("switch (t.apply().action_run) { b: { t.apply(); } }", "", "switch", "applied twice"),
    ("s.apply(hdr.h);\ns.apply(hdr.h);", "Sub() s;", "s.apply(hdr.h);", "applied twice"),
    (
        "switch (t.apply().action_run) { b: { hdr.h.a = 1; } b: { } }",
        "",
        "switch",
        "switch label b appears twice",
    ),
    ("bit<8> x = 1;\nbit<8> x = 2;", "", "bit<8> x = 2;", "duplicate declaration of x"),
    ("mark_to_drop();", "", "mark_to_drop();", "mark_to_drop(standard_metadata)"),
    (
        "hash(hdr.h.c, HashAlgorithm.crc16, 0, { hdr.h.a }, 16w100);",
        "",
        "hash(",
        "0: could not infer a width",
    ),
    (
        "hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 100);",
        "",
        "hash(",
        "100: could not infer a width",
    ),
]

ACCEPTED = [
    ("if (meta.f) { t.apply(); } else { t.apply(); }", ""),
    ("if (meta.f) { if (hdr.h.a == 1) { t.apply(); } } else { t.apply(); }", ""),
    ("if (t.apply().hit) { u.apply(); } else { u.apply(); }", ""),
    ("switch (u.apply().action_run) { b: { t.apply(); } default: { t.apply(); } }", ""),
    ("if (false) { t.apply(); }\nt.apply();", ""),
    ("s.apply(hdr.h);\nr.apply(hdr.h);", "Sub() s; Sub() r;"),
    ("if (meta.f) { s.apply(hdr.h); } else { s.apply(hdr.h); }", "Sub() s;"),
    ("bit<8> x = 1;\n{ bit<8> x = 2; hdr.h.a = x; }", ""),
    ("switch (hdr.h.a) { 1: { hdr.h.a = 2; } 1: { hdr.h.a = 3; } }", ""),
    # a table without a default action has NoAction
    ("switch (t.apply().action_run) { NoAction: { hdr.h.a = 1; } }", ""),
    ("hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w100);", ""),
    ("random(hdr.h.a, 0, 10);", ""),
]


@pytest.mark.parametrize(("body", "locals_", "at", "why"), REFUSED)
def test_refused_with_a_position(body: str, locals_: str, at: str, why: str) -> None:
    src = _src(body, locals_)
    msg = error_of(src, "rules.p4")
    # the last line holding `at` (the second apply, the second declaration)
    assert msg.startswith(f"rules.p4:{line_of(src, at, last=True)}:"), msg
    assert why in msg


@pytest.mark.parametrize(("body", "locals_"), ACCEPTED)
def test_accepted(body: str, locals_: str) -> None:
    compile_text(_src(body, locals_), "rules.p4")


def test_noaction_label_runs_when_the_table_misses() -> None:
    src = program(
        decls="header h_t { bit<8> a; }",
        ingress="""
        action b() { hdr.h.a = 0xBB; }
        table t { key = { hdr.h.a: exact; } actions = { b; } }
        apply {
            switch (t.apply().action_run) { NoAction: { hdr.h.a = 0xAA; } b: { } }
        }""",
    )
    assert one(src, bytes([1])) == bytes([0xAA])


def test_default_action_noaction_label_is_refused() -> None:
    """A table with its own default action has no NoAction to switch on."""
    src = _src("switch (t.apply().action_run) { NoAction: { hdr.h.a = 1; } }").replace(
        "actions = { b; } }\n    table u", "actions = { b; } default_action = b; }\n    table u"
    )
    msg = error_of(src, "rules.p4")
    assert msg.startswith(f"rules.p4:{line_of(src, 'NoAction: {')}:"), msg
    assert "NoAction is not an action of table t" in msg
