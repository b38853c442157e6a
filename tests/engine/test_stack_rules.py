"""Header stacks' `next`, `last`, `push_front`/`pop_front` and varbit extracts where
p4c-bm2-ss 1.2.4.8 allows them, and refused with a position where it does not (each
verdict below was p4c's on the same program)."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, one, program

DECLS = """
header h_t { bit<8> a; }
header v_t { varbit<64> d; }
"""
HEADERS = "h_t h; h_t[3] s; v_t v;"


def _src(parser: str, ingress: str = "") -> str:
    return program(
        decls=DECLS,
        headers=HEADERS,
        parser=parser,
        ingress=f"apply {{ {ingress} }}",
    )


PLAIN = "state start { pkt.extract(hdr.h); transition accept; }"

REFUSED = [
    ("state start { pkt.extract(hdr.v); transition accept; }", "", "extract it with its size"),
    (
        "state start { pkt.extract(hdr.h); hdr.s.push_front(1); transition accept; }",
        "",
        "push_front of a header stack cannot be used in a parser",
    ),
    (PLAIN, "hdr.s.next.a = 1;", "'next' of a header stack can only be used in a parser"),
    (PLAIN, "hdr.s.next = hdr.h;", "'next' of a header stack can only be used in a parser"),
    (PLAIN, "hdr.h.a = hdr.s.last.a;", "'last' of a header stack can only be used in a parser"),
    (
        "state start { pkt.extract(hdr.h); hdr.s.last = hdr.h; transition accept; }",
        "",
        "hdr.s.last cannot be the target of an assignment",
    ),
    (
        "state start { pkt.extract(hdr.s.next); hdr.s.last.a = 3; transition accept; }",
        "",
        "hdr.s.last.a cannot be the target of an assignment",
    ),
    (
        "state start { pkt.extract(hdr.s.next); hdr.s.next.a = 3; transition accept; }",
        "",
        "hdr.s.next.a cannot be the target of an assignment",
    ),
    (
        "state start { pkt.extract(hdr.s.next); hdr.s.last.setInvalid(); transition accept; }",
        "",
        "must be applied to a left-value",
    ),
]

ACCEPTED = [
    ("state start { pkt.extract(hdr.h); hdr.s.next = hdr.h; transition accept; }", ""),
    ("state start { pkt.extract(hdr.s.next); hdr.h.a = hdr.s.last.a; transition accept; }", ""),
    (PLAIN, "hdr.s.push_front(1); hdr.s.pop_front(2);"),
    (PLAIN, "hdr.s[0].setValid(); hdr.s[1] = hdr.h;"),
    (
        "state start { pkt.extract(hdr.h); pkt.extract(hdr.v, (bit<32>)hdr.h.a << 3);"
        " transition accept; }",
        "",
    ),
]


@pytest.mark.parametrize(("parser", "ingress", "why"), REFUSED)
def test_refused_with_a_position(parser: str, ingress: str, why: str) -> None:
    src = _src(parser, ingress)
    msg = error_of(src, "stack.p4")
    assert msg.startswith(f"stack.p4:{line_of(src, ingress or parser)}:"), msg
    assert why in msg


@pytest.mark.parametrize(("parser", "ingress"), ACCEPTED)
def test_accepted(parser: str, ingress: str) -> None:
    compile_text(_src(parser, ingress), "stack.p4")


def test_next_assigned_whole_in_a_parser_writes_the_next_element() -> None:
    """`s.next = h` writes the element at the next index and leaves the index where it is
    (only an extract moves it), so a second assignment writes the same element. BMv2
    aborts on p4c-bm2-ss's output for such a program; softswitch runs it as P4 says."""
    src = program(
        decls="header h_t { bit<8> a; }",
        headers="h_t h; h_t[2] s;",
        parser="""state start {
            pkt.extract(hdr.h);
            hdr.s.next = hdr.h;
            hdr.s.next = hdr.h;
            transition accept;
        }""",
        ingress="apply { hdr.s[0].a = hdr.s[0].a + 1; }",
    )
    assert one(src, bytes([7])) == bytes([7, 8])
