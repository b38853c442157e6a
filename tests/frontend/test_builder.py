"""AST builder corner cases."""

from __future__ import annotations

from softswitch.frontend import ast as A
from softswitch.frontend.parse import parse_text


def _decl(src: str, name: str) -> A.Decl:
    prog = parse_text(src, "t.p4", lambda n: ("t.p4", n))
    return next(d for d in prog.decls if d.name == name)


def test_block_without_parameters_keeps_its_locals() -> None:
    """An empty parameter list is not taken for type parameters (it used to be, and the
    first local was then read as the parameter list)."""
    src = "control c() {\n  action a() {}\n  bit<8> x;\n  apply { a(); }\n}\n"
    c = _decl(src, "c")
    assert isinstance(c, A.ControlDecl)
    assert c.type_params == () and c.params == ()
    assert [type(d).__name__ for d in c.locals] == ["ActionDecl", "VariableDecl"]
    p = _decl("parser p() { state start { transition accept; } }\n", "p")
    assert (
        isinstance(p, A.ParserDecl) and p.params == () and [s.name for s in p.states] == ["start"]
    )


def test_type_and_constructor_parameters_still_split() -> None:
    src = "control c<T>(in T v)(bit<8> k) {\n  apply {}\n}\n"
    c = _decl(src, "c")
    assert isinstance(c, A.ControlDecl)
    assert c.type_params == ("T",)
    assert [p.name for p in c.params] == ["v"] and [p.name for p in c.ctor_params] == ["k"]
