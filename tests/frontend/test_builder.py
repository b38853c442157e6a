"""AST builder corner cases."""

from __future__ import annotations

import pytest

from softswitch.frontend import ast as A
from softswitch.frontend.errors import P4SyntaxError
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


def test_an_unstructured_annotation_body_may_hold_any_token() -> None:
    """Inside `@name(...)` any token may stand (p4c's free-form-annotation.p4 quotes prose
    with apostrophes); the body is kept as written."""
    src = "@scrabble(\n  - That's it. $ ` 0xdeadbeef\n)\nheader h_t { bit<8> a; }\n"
    h = _decl(src, "h_t")
    (ann,) = h.annotations
    assert ann.name == "scrabble"
    assert ann.body.strip() == "- That's it. $ ` 0xdeadbeef"


def test_a_stray_character_outside_an_annotation_is_an_error_with_its_position() -> None:
    with pytest.raises(P4SyntaxError) as e:
        parse_text("header h_t {\n  bit<8> a';\n}\n", "t.p4", lambda n: ("t.p4", n))
    assert "t.p4:2:11" in str(e.value) and 'unexpected character "\'"' in str(e.value)


def test_an_annotation_body_may_follow_its_name_after_spaces() -> None:
    """`@name (".start")` (p4c's parser-unroll-test1.p4) is @name with a body; a
    structured body opens at its first bracket even when a parenthesis is inside."""
    src = '@name (".x") @a[k=(1), j="("] @flag header h_t { bit<8> a; }\n'
    h = _decl(src, "h_t")
    assert [(a.name, a.body, a.structured) for a in h.annotations] == [
        ("name", '".x"', False),
        ("a", 'k=(1), j="("', True),
        ("flag", "", False),
    ]
    assert h.annotations[0].string_value() == ".x"


@pytest.mark.parametrize("annots", ["@hidden", '@a("x")', "@a[1]", "@a @b(2)"])
@pytest.mark.parametrize("keyword", ["typedef", "type"])
def test_an_annotated_typedef_declares_its_type_name(keyword: str, annots: str) -> None:
    """The name a typedef or type declares is a type name also when annotations stand
    before the declaration (it was parsed as a plain name there: a syntax error where
    the program used it)."""
    src = f"{annots} {keyword} bit<8> t8;\nheader h_t {{ t8 a; }}\n"
    h = _decl(src, "h_t")
    assert isinstance(h, A.StructLikeDecl)
    [field] = h.fields
    assert isinstance(field.type_ref, A.NamedTypeRef) and field.type_ref.name == "t8"
