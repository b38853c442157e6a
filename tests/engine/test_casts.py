"""Explicit casts: softswitch accepts and refuses what p4c-bm2-ss 1.2.4.8 does (each
verdict below was p4c's on the same statement), with a positioned message, and the casts
it accepts compute BMv2's values."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, one, program, statement_program

REFUSED = [
    # a run-time value changes width or signedness, not both
    ("meta.r = (bit<32>)hdr.h.b;", "not both"),
    ("meta.s = (int<32>)hdr.h.a;", "not both"),
    # bool and bit<1> only
    ("meta.w = (bit<4>)meta.t;", "only to bit<1>"),
    ("meta.r = (bit<32>)meta.t;", "only to bit<1>"),
    ("meta.s = (int<32>)meta.t;", "only to bit<1>"),
    ("meta.t = (bool)meta.w;", "only bit<1> values"),
    ("meta.t = (bool)hdr.h.a;", "only bit<1> values"),
    ("meta.t = (bool)hdr.h.b;", "only bit<1> values"),
    ("meta.t = (bool)8w1;", "only bit<1> values"),
    ("meta.t = (bool)2;", "only 0 and 1"),
    # a serializable enum casts to and from its underlying type only, constants too
    ("meta.e = (E8)hdr.h.c;", "E8 casts only to and from bit<8>"),
    ("meta.e = (E8)16w1;", "E8 casts only to and from bit<8>"),
    ("meta.e = (E8)meta.w;", "E8 casts only to and from bit<8>"),
    ("meta.e = (E8)hdr.h.b;", "E8 casts only to and from bit<8>"),
    ("hdr.h.c = (bit<16>)meta.e;", "E8 casts only to and from bit<8>"),
    ("hdr.h.c = (bit<16>)E8.A;", "E8 casts only to and from bit<8>"),
    ("hdr.h.b = (int<8>)meta.e;", "E8 casts only to and from bit<8>"),
    # so does a `type`
    ("meta.n = (T8)hdr.h.c;", "T8 casts only to and from bit<8>"),
    ("meta.n = (T8)hdr.h.b;", "T8 casts only to and from bit<8>"),
    ("hdr.h.c = (bit<16>)meta.n;", "T8 casts only to and from bit<8>"),
    ("meta.n = (T8)meta.e;", "casts only to and from bit<8>"),
    ("meta.t = (bool)meta.n;", "T8 casts only to and from bit<8>"),
]

ACCEPTED = [
    "meta.r = (bit<32>)(bit<8>)hdr.h.b;",
    "meta.r = (bit<32>)(int<32>)hdr.h.b;",
    "meta.s = (int<32>)hdr.h.b;",
    "meta.r = (bit<32>)meta.s;",
    "meta.w = (bit<4>)hdr.h.c;",
    "meta.u = (bit<1>)meta.t;",
    "meta.t = (bool)meta.u;",
    "meta.t = (bool)1w1;",
    "meta.t = (bool)1;",
    "meta.u = (bit<1>)true;",
    # constants change width and signedness at once
    "meta.r = (bit<32>)true;",
    "hdr.h.b = (int<8>)true;",
    "meta.r = (bit<32>)8s5;",
    "meta.r = (bit<32>)(-8s5);",
    "meta.s = (int<32>)8w200;",
    "hdr.h.a = (bit<8>)16s300;",
    "hdr.h.b = (int<8>)16w255;",
    "meta.e = (E8)hdr.h.a;",
    "meta.e = (E8)1;",
    "hdr.h.a = (bit<8>)E8.A;",
    "hdr.h.a = (bit<8>)meta.e;",
    "meta.n = (T8)hdr.h.a;",
    "hdr.h.a = (bit<8>)meta.n;",
]


@pytest.mark.parametrize(("stmt", "why"), REFUSED)
def test_casts_p4c_refuses_are_refused_with_a_position(stmt: str, why: str) -> None:
    src = statement_program(stmt)
    msg = error_of(src, "cast.p4")
    col = stmt.index("(", stmt.index("=")) + 1
    assert msg.startswith(f"cast.p4:{line_of(src, stmt)}:{col}: error: "), msg
    assert why in msg


@pytest.mark.parametrize("stmt", ACCEPTED)
def test_casts_p4c_accepts_compile(stmt: str) -> None:
    compile_text(statement_program(stmt), "cast.p4")


def test_two_step_casts_compute_bmv2_values() -> None:
    """int<8> -> bit<8> -> bit<32> zero-extends the bit pattern; int<8> -> int<32> ->
    bit<32> sign-extends it; constants fold the same way."""
    src = program(
        decls="header h_t { int<8> b; bit<32> z; bit<32> y; bit<32> k; bit<8> m; }",
        ingress="""apply {
            hdr.h.z = (bit<32>)(bit<8>)hdr.h.b;
            hdr.h.y = (bit<32>)(int<32>)hdr.h.b;
            hdr.h.k = (bit<32>)(-8s5);
            hdr.h.m = (bit<8>)16s300;
        }""",
    )
    out = one(src, bytes([0xFB]) + bytes(13))
    assert out[1:5] == bytes([0, 0, 0, 0xFB])
    assert out[5:9] == bytes([0xFF, 0xFF, 0xFF, 0xFB])
    assert out[9:13] == bytes([0xFF, 0xFF, 0xFF, 0xFB])
    assert out[13] == 300 & 0xFF
