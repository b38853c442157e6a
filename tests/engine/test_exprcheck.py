"""The expression checker: the typed IR it makes (types, folded constants, conversions,
resolved names) and the positioned type errors it raises, with nothing written; the
emitter then writes the code of what it checked."""

from __future__ import annotations

import pytest

from softswitch.codegen import ir
from softswitch.codegen.program import ProgramGen
from softswitch.codegen.symbols import Var
from softswitch.frontend import ast as A
from softswitch.frontend import types as T
from softswitch.frontend.errors import P4TypeError, Pos
from softswitch.v1model.arch import V1Model

BIT8 = T.BitType(8)
BIT16 = T.BitType(16)


def at(line: int, col: int) -> Pos:
    return Pos("probe.p4", line, col)


P = at(1, 1)


def bits(value: int, width: int) -> A.IntLit:
    return A.IntLit(P, value, width)


def name(n: str, pos: Pos = P) -> A.NameRef:
    return A.NameRef(pos, n)


@pytest.fixture
def gen() -> ProgramGen:
    g = ProgramGen(A.Program(()), V1Model())
    g.st.scope.define("x", Var("v_x", BIT8))
    g.st.scope.define("y", Var("v_y", BIT16))
    g.st.scope.define("s", Var("v_s", T.BitType(8, signed=True)))
    return g


def test_constants_fold_with_their_width(gen: ProgramGen) -> None:
    n = gen.exprs.check(A.Binary(P, "+", bits(200, 8), bits(100, 8)))
    assert isinstance(n, ir.Constant) and n.const == 44 and n.type == BIT8
    n = gen.exprs.check(A.Unary(P, "-", bits(1, 8)))
    assert isinstance(n, ir.Constant) and n.const == 255
    n = gen.exprs.check(A.Binary(P, "++", bits(0xA, 4), bits(0xB, 4)))
    assert isinstance(n, ir.Constant) and n.const == 0xAB and n.type == BIT8
    choice = A.Conditional(P, A.BoolLit(P, True), A.IntLit(P, 3), A.IntLit(P, 4))
    # a ?: of two int literals is folded where p4c folds (a width, a size, an index) ...
    n = gen.exprs.checker.check_folded(choice)
    assert isinstance(n, ir.Constant) and n.const == 3 and isinstance(n.type, T.IntLiteralType)
    # ... and refused anywhere else, as p4c-bm2-ss refuses it
    with pytest.raises(P4TypeError, match="needs a width"):
        gen.exprs.check(choice)


def test_an_int_literal_takes_the_width_of_the_other_operand(gen: ProgramGen) -> None:
    e = A.Binary(P, "+", name("x"), A.IntLit(P, 300))
    n = gen.exprs.check(e)
    assert isinstance(n, ir.BitsOp) and n.type == BIT8 and n.const is None
    assert isinstance(n.left, ir.VarRef) and n.left.sym.py == "v_x"  # the name, resolved
    assert isinstance(n.right, ir.Constant) and n.right.const == 300 & 0xFF
    assert n.right.type == BIT8  # the conversion was folded into the constant
    assert e.type == BIT8  # the front end's node learns its type too


def test_casts_and_comparisons_are_nodes(gen: ProgramGen) -> None:
    narrow = gen.exprs.check(A.Cast(P, A.BitTypeRef(P, A.IntLit(P, 4)), name("x")))
    assert isinstance(narrow, ir.Wrap) and narrow.bits == T.BitType(4)
    widen = gen.exprs.check(A.Cast(P, A.BitTypeRef(P, A.IntLit(P, 16)), name("x")))
    assert isinstance(widen, ir.Retype) and widen.type == BIT16
    cmp = gen.exprs.check(A.Binary(P, "<", name("x"), bits(3, 8)))
    assert isinstance(cmp, ir.PlainOp) and cmp.type == T.BOOL
    div = gen.exprs.check(A.Binary(P, "/", name("x"), bits(8, 8)))
    assert isinstance(div, ir.PlainOp) and div.op == ">>" and div.right.const == 3


def test_the_checker_writes_nothing_and_the_emitter_writes_the_code(gen: ProgramGen) -> None:
    before = list(gen.st.out.lines)
    n = gen.exprs.check(A.Binary(P, "+", name("x"), A.IntLit(P, 1)))
    assert gen.st.out.lines == before
    v = gen.exprs.emitter.emit(n)
    assert v.code == "((v_x + 1) & 255)" and v.type == BIT8
    sh = gen.exprs.emitter.emit(gen.exprs.check(A.Binary(P, "<<", name("x"), name("x"))))
    assert sh.code == "(((v_x) << v_x) & 0xff if v_x < 8 else 0)"


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            A.Binary(at(3, 7), "+", name("x"), name("y")),
            "+: cannot operate on bit<8> and bit<16>; an explicit cast is needed",
        ),
        (name("nosuch", at(4, 2)), "nosuch: no such declaration"),
        (A.Binary(at(5, 9), "<<", name("x"), name("s")), "shift amount must be unsigned"),
        (A.Unary(at(6, 1), "~", A.IntLit(P, 1)), "~ needs a value of known width (8w1, not 1)"),
        (A.Binary(at(7, 3), "/", bits(1, 8), bits(0, 8)), "division by zero"),
        (A.Slice(at(8, 4), name("x"), A.IntLit(P, 9), A.IntLit(P, 0)), "out of range"),
    ],
)
def test_type_errors_come_from_the_checker_with_their_position(
    gen: ProgramGen, expr: A.Expr, message: str
) -> None:
    before = list(gen.st.out.lines)
    with pytest.raises(P4TypeError) as exc:
        gen.exprs.check(expr)
    assert message in exc.value.message
    assert (exc.value.file, exc.value.line, exc.value.col) == (
        expr.pos.file,
        expr.pos.line,
        expr.pos.col,
    )
    assert gen.st.out.lines == before
