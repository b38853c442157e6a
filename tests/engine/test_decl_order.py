"""A name is a type only from its declaration on, as in p4c's lexer: p4c-bm2-ss 1.2.4.8
refuses each program of REFUSED with a syntax error at the token named (a use of a type
declared further down reads as a plain name) and compiles each of ACCEPTED (a value may
have the name of a type declared further down). softswitch, which once knew every type
name from the start, compiled REFUSED and refused the last two of ACCEPTED."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, one, program

HEADER = "header h_t { bit<8> a; }"
# declared after `main`, the last declaration of every program here
LATER = "\ntypedef bit<8> Later;\nheader LaterH { bit<8> a; }\nparser LaterS();\n"

REFUSED = [
    ("a local variable", {"ingress": "apply { Later x = 1; hdr.h.a = x; }"}, "Later x", "x"),
    (
        "an action parameter",
        {
            "ingress": "action a(Later v) { hdr.h.a = v; }\n"
            "table t { key = { hdr.h.a: exact; } actions = { a; } }\n"
            "apply { t.apply(); }"
        },
        "action a(Later v)",
        "Later",
    ),
    ("a cast", {"ingress": "apply { hdr.h.a = (Later)hdr.h.a; }"}, "(Later)", "hdr"),
    (
        "a control's header instance",
        {"ingress": "LaterH h2;\napply { h2.setValid(); h2.a = 1; hdr.h.a = h2.a; }"},
        "LaterH h2;",
        "LaterH",
    ),
    (
        "a function body",
        {
            "decls": HEADER + "\nbit<8> f() { Later x = 1; return x; }",
            "ingress": "apply { hdr.h.a = f(); }",
        },
        "bit<8> f()",
        "x",
    ),
]


@pytest.mark.parametrize(
    ("parts", "needle", "token"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_type_used_before_its_declaration_is_a_syntax_error(
    parts: dict[str, str], needle: str, token: str
) -> None:
    src = program(decls=parts.get("decls", HEADER), ingress=parts["ingress"]) + LATER
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:"), msg
    assert f"syntax error, unexpected '{token}'" in msg, msg


ACCEPTED = [
    # the same use once the type is declared above it
    (HEADER + "\ntypedef bit<8> Before;", "apply { Before x = 1; hdr.h.a = x; }"),
    # a type parameter may have the name of a type declared further down
    (HEADER + "\nextern Box<Later> { Box(); Later get(); }", "apply { }"),
    # a local value with the name of a type declared further down (LaterS, after main)
    (
        HEADER + "\nstruct S2 { bit<8> f0; }",
        "apply { S2 LaterS; LaterS.f0 = 1; if (LaterS.f0 == 1) { hdr.h.a = LaterS.f0; } }",
    ),
    (HEADER, "apply { bit<8> Later = 3; hdr.h.a = Later; }"),
]


@pytest.mark.parametrize(("decls", "ingress"), ACCEPTED)
def test_a_type_declared_above_or_a_type_parameter_compiles(decls: str, ingress: str) -> None:
    src = program(decls=decls, ingress=ingress) + LATER
    assert compile_text(src, "ok.p4").source


def test_a_value_named_like_a_later_type_is_that_value() -> None:
    src = program(decls=HEADER, ingress=ACCEPTED[-1][1]) + LATER
    assert one(src, b"\x00" + bytes(20)) == b"\x03" + bytes(20)
    src = program(decls=ACCEPTED[-2][0], ingress=ACCEPTED[-2][1]) + LATER
    assert one(src, b"\x00" + bytes(20)) == b"\x01" + bytes(20)
