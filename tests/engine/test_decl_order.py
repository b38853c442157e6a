"""A type is used only after its declaration: p4c-bm2-ss 1.2.4.8 refuses each program of
REFUSED (a syntax error at the use) and compiles each of ACCEPTED. softswitch generates
bodies after the whole top level is declared, so without the check it compiled REFUSED."""

from __future__ import annotations

import pytest

from softswitch.compiler import compile_text
from tests.p4util import error_of, line_of, program

HEADER = "header h_t { bit<8> a; }"
# declared after `main`, the last declaration of every program here
LATER = "\ntypedef bit<8> Later;\nheader LaterH { bit<8> a; }\n"

REFUSED = [
    ("a local variable", {"ingress": "apply { Later x = 1; hdr.h.a = x; }"}, "Later x", "Later"),
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
    ("a cast", {"ingress": "apply { hdr.h.a = (Later)hdr.h.a; }"}, "(Later)", "Later"),
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
        "Later",
    ),
]


@pytest.mark.parametrize(
    ("parts", "needle", "name"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_type_used_before_its_declaration_is_refused_at_the_use(
    parts: dict[str, str], needle: str, name: str
) -> None:
    src = program(decls=parts.get("decls", HEADER), ingress=parts["ingress"]) + LATER
    msg = error_of(src)
    assert msg.startswith(f"bad.p4:{line_of(src, needle)}:"), msg
    assert f"{name}:" in msg and ("before its declaration" in msg or "unknown type" in msg)


ACCEPTED = [
    # the same use once the type is declared above it
    (HEADER + "\ntypedef bit<8> Before;", "apply { Before x = 1; hdr.h.a = x; }"),
    # a type parameter may have the name of a type declared further down
    (HEADER + "\nextern Box<Later> { Box(); Later get(); }", "apply { }"),
]


@pytest.mark.parametrize(("decls", "ingress"), ACCEPTED)
def test_a_type_declared_above_or_a_type_parameter_compiles(decls: str, ingress: str) -> None:
    src = program(decls=decls, ingress=ingress) + LATER
    assert compile_text(src, "ok.p4").source
