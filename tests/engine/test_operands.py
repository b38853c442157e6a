"""What the operators take, as p4c-bm2-ss 1.2.4.8 decides it (each verdict below was p4c's
on the same statement): serializable enums act as their underlying numbers, `type`s only
compare with their own type, shift amounts are unsigned or non-negative constants, and the
two values of `?:` have one type."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, one, program, statement_program

ACCEPTED = [
    "hdr.h.a = hdr.h.a << 8s2;",
    "meta.t = meta.e == 1;",
    "hdr.h.a = hdr.h.a >> 8s7;",
    "meta.t = meta.e != 1;",
    "meta.t = 2 == meta.e;",
    "hdr.h.a = (bit<8>)(meta.e + 1);",
    "meta.t = meta.e < E8.B;",
    "hdr.h.a = hdr.h.a << 256;",
    "hdr.h.a = meta.e << 1;",
    "hdr.h.a = hdr.h.a << meta.e;",
    "hdr.h.c = meta.e ++ hdr.h.a;",
    "hdr.h.a = meta.e + E8.A;",
    "hdr.h.a = meta.e & 8w3;",
    "meta.t = meta.e > 1;",
    "hdr.h.a = -meta.e;",
    "hdr.h.a = ~meta.e;",
    "meta.t = meta.n == meta.n;",
    "meta.t = meta.n == (T8)8w1;",
    "hdr.h.a = hdr.h.a << meta.n;",
    "meta.e = meta.t ? E8.A : E8.B;",
    "meta.n = meta.t ? meta.n : (T8)hdr.h.a;",
    "meta.t = meta.t ? true : 1 == 1;",
    "meta.n = 1;",
    "meta.e = E8.A;",
    "hdr.h.a = meta.e;",
    "hdr.h.a = meta.t ? 8w1 : 2;",
    "meta.r = meta.t ? 1 : 2 + 32w0;",
]

REFUSED = [
    # p4c-bm2-ss stops on these with an internal error ("expected a bit<> type")
    'hdr.h.a = hdr.h.a >> "aaaa";',
    "hdr.h.a = hdr.h.a << meta.t;",
    "hdr.h.a = hdr.h.a << hdr.h;",
    "hdr.h.a = hdr.h.a >> -1;",
    "meta.t = meta.n == hdr.h.a;",
    "hdr.h.a = meta.t ? 1 : 2;",
    "hdr.h.a = hdr.h.a << 300;",
    "meta.t = meta.n == 1;",
    "meta.n = meta.n + 1;",
    "meta.n = hdr.h.a;",
    "hdr.h.a = meta.n;",
    "hdr.h.a = true ? 1 : 2;",
    "meta.t = meta.e == meta.n;",
    "meta.n = meta.n + meta.n;",
    "meta.t = meta.n < meta.n;",
    "meta.n = ~meta.n;",
    "hdr.h.c = meta.n ++ hdr.h.a;",
    "hdr.h.a = meta.n[3:0] ++ meta.n[7:4];",
    "hdr.h.a = meta.t ? E8.A : 8w1;",
    "meta.n = meta.t ? meta.n : 1;",
    "hdr.h.b = meta.t ? 1 : -1;",
    "meta.e = 1;",
    "meta.e = hdr.h.a;",
    "hdr.h.a = hdr.h.a << (8s0 - 8s1);",
    "hdr.h.a = hdr.h.a << hdr.h.b;",
]


@pytest.mark.parametrize("stmt", ACCEPTED)
def test_operands_p4c_accepts_compile(stmt: str) -> None:
    compile_text(statement_program(stmt), "op.p4")


@pytest.mark.parametrize("stmt", REFUSED)
def test_operands_p4c_refuses_are_refused_with_a_position(stmt: str) -> None:
    src = statement_program(stmt)
    msg = error_of(src, "op.p4")
    assert msg.startswith(f"op.p4:{line_of(src, stmt)}:"), msg


def test_two_literals_in_a_width_fold() -> None:
    """p4c computes a width before it checks types, so `?:` of two literals is allowed
    there (p4c's issue4656 sample), and not in a statement."""
    src = program(
        decls="header h_t { bit<((10 == 1 ? 1 : 10 + 1) * 8)> x; bit<8> y; }",
        ingress="apply { hdr.h.y = (bit<8>)(hdr.h.x >> 80); }",
    )
    assert one(src, bytes([0xAB]) + bytes(10) + bytes([0])) == bytes([0xAB]) + bytes(10) + bytes(
        [0xAB]
    )


def test_enum_values_compute_as_their_numbers() -> None:
    """The values BMv2 gives (checked with simple_switch 1.15.5 on the same program)."""
    src = program(
        decls="""header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<16> f; bit<8> g; }
        enum bit<8> E8 { A = 1, B = 2, C = 200 }""",
        meta="E8 e;",
        parser="""state start {
            pkt.extract(hdr.h);
            transition select(hdr.h.a) { 200: two; default: accept; }
        }
        state two { meta.e = E8.C; transition accept; }""",
        ingress="""apply {
            hdr.h.b = (bit<8>)(meta.e + 1);
            hdr.h.c = -meta.e;
            hdr.h.d = hdr.h.d << 8s2;
            hdr.h.f = meta.e ++ hdr.h.g;
            if (meta.e > 100) { hdr.h.g = ~meta.e; }
            hdr.h.a = hdr.h.a >> 8s7;
        }""",
    )
    out = one(src, bytes([200, 0, 0, 0x81, 0, 0, 3]))
    assert out == bytes([1, 201, 56, 0x04, 200, 3, 55])


def test_enum_keyset_mask_takes_a_literal() -> None:
    """`E.X &&& 0x01` in a select over an enum-typed field (p4c's enumCast sample)."""
    src = program(
        decls="""enum bit<8> E8 { Zero = 0, One = 1 }
        header h_t { E8 k; bit<8> v; }""",
        parser="""state start {
            pkt.extract(hdr.h);
            transition select(hdr.h.k) { E8.Zero &&& 0x01: even; default: accept; }
        }
        state even { hdr.h.v = 0xEE; transition accept; }""",
    )
    assert one(src, bytes([4, 0])) == bytes([4, 0xEE])
    assert one(src, bytes([5, 0])) == bytes([5, 0])
