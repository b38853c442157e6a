"""The expression checker: `A.Expr` -> typed IR (`ir.Expr`), or a positioned type error.

It resolves names to their symbols, gives every node its P4 type, makes the implicit
conversions explicit (int literals taking a width, lists becoming structs, newtypes),
folds what is known at compile time, and plans the evaluation order (the temporaries
that keep operands when a later one needs statements). Every type error of an expression
is raised here; the emitter (`expremit`) only writes code for what was checked.

Calls are checked and generated together by the calls part, reached through `Parts`;
what it makes enters the IR as `ir.Generated`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from . import ir
from .casts import cast_refusal
from .operands import as_number, conditional_refusal, operator_refusal, shift_amount_refusal
from .symbols import (
    ActionSym,
    Const,
    ExternFunctionSym,
    FunctionSym,
    InstanceSym,
    TableSym,
    TypeSym,
    ValueSetSym,
    Var,
)
from .values import SymType, V, is_literal_code, mask, wrap_value

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState

__all__ = ["ExprChecker", "fold_bits", "of_value"]

_CMP = {"==", "!=", "<", ">", "<=", ">="}

_PYCMP: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "<=": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
}


def _literal(n: ir.Expr) -> bool:
    """Will the code emitted for `n` be a literal (so it needs no saving)?"""
    if isinstance(n, ir.Constant):
        return is_literal_code(repr(n.const))
    if isinstance(n, ir.ConstRef):
        return is_literal_code(n.sym.py)
    if isinstance(n, ir.Generated):
        return is_literal_code(n.code)
    if isinstance(n, ir.Retype):
        return _literal(n.operand)
    if isinstance(n, ir.Chosen):
        return _literal(n.value)
    if isinstance(n, ir.InOrder):
        return _literal(n.body)
    return False


def constant(value: Any, t: T.P4Type) -> ir.Constant:
    return ir.Constant(type=t, const=value)


def retype(n: ir.Expr, t: T.P4Type, keep_const: bool = True) -> ir.Expr:
    """`n` seen as type `t` (a constant stays a constant)."""
    if keep_const and isinstance(n, ir.Constant):
        return constant(n.const, t)
    return ir.Retype(type=t, const=n.const if keep_const else None, operand=n)


def of_value(v: V) -> ir.Generated:
    """A value another part generated, as an IR node (its list or struct items too)."""
    const: Any = v.const
    if isinstance(const, list):
        const = [of_value(i) for i in const]
    elif isinstance(const, dict):
        const = {k: of_value(i) for k, i in const.items()}
    return ir.Generated(type=v.type, const=const, code=v.code)


def fold_bits(op: str, x: int, y: int, t: T.BitType) -> int:
    """`x op y` of two bit<W>/int<W> constants (y is not 0 for / and %)."""
    if op == "&":
        r = x & y
    elif op == "|":
        r = x | y
    elif op == "^":
        r = x ^ y
    elif op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x // y
    elif op == "%":
        r = x % y
    elif op in ("|+|", "|-|"):
        r = x + y if op == "|+|" else x - y
        if t.signed:
            h = 1 << (t.width - 1)
            r = max(-h, min(h - 1, r))
        else:
            r = min(r, mask(t.width)) if op == "|+|" else max(r, 0)
    else:
        raise AssertionError(op)
    return wrap_value(r, t)


class ExprChecker:
    """Checks expressions into the typed IR (see the module docstring)."""

    __slots__ = ("folding", "gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen
        # inside `const_int`: a width, size or index p4c folds before checking types
        self.folding = False

    # ------------------------------------------------------------ helpers
    def const_int(self, e: A.Expr) -> int:
        """The value of a compile-time integer expression (or a type error)."""
        return self.require_int(self.check_folded(e), e)

    def check_folded(self, e: A.Expr) -> ir.Expr:
        """`e` checked as p4c checks a width, size or index: folded first."""
        outer, self.folding = self.folding, True
        try:
            return self.check(e)
        finally:
            self.folding = outer

    def require_int(self, n: ir.Expr, e: A.Expr) -> int:
        if not n.is_const or isinstance(n.const, bool) or not isinstance(n.const, int):
            raise P4TypeError.at(e.pos, "a compile-time integer constant is required")
        return n.const

    def convert(self, n: ir.Expr, target: T.P4Type, pos: Any) -> ir.Expr:  # noqa: C901
        """Implicit conversion of `n` to `target` (int literals, lists), or a type error."""
        src = n.type
        tgt = T.strip_newtype(target)
        if T.same_type(src, target) or isinstance(target, T.TypeVar | T.DontCareType):
            return n
        if isinstance(src, T.NewType) or (
            isinstance(target, T.NewType) and not isinstance(src, T.IntLiteralType)
        ):
            raise P4TypeError.at(pos, f"cannot convert {src} to {target} without a cast")
        if (
            isinstance(src, SymType)
            and isinstance(src.sym, InstanceSym)
            and isinstance(src.sym.type, T.ExternType)
            and isinstance(tgt, T.ExternType)
            and src.sym.type.name == tgt.name
        ):
            # an extern instance given for an extern-typed parameter: the object itself
            return retype(n, target, keep_const=False)
        if isinstance(src, T.IntLiteralType):
            if isinstance(tgt, T.BitType):
                if n.is_const:
                    return constant(wrap_value(n.const, tgt), target)
                return ir.Wrap(type=target, operand=n, bits=tgt)
            if isinstance(tgt, T.IntLiteralType):
                return n
        if isinstance(src, T.BitType) and isinstance(tgt, T.BitType) and src == tgt:
            return retype(n, target)
        if isinstance(src, T.EnumType) and isinstance(tgt, T.EnumType) and src.name == tgt.name:
            return n
        if isinstance(src, T.ErrorType) and isinstance(tgt, T.ErrorType):
            return n
        if isinstance(src, T.ListType) or (
            isinstance(src, T.TupleType) and isinstance(tgt, T.StructLikeType)
        ):
            return self.build_from_list(n, tgt, pos)
        if isinstance(src, T.StructLikeType) and isinstance(tgt, T.StructLikeType):
            if src.name == tgt.name:
                return n
        if isinstance(tgt, T.BitType) and isinstance(src, T.EnumType) and src.underlying:
            if src.underlying == tgt:
                return retype(n, target)
        raise P4TypeError.at(pos, f"cannot convert {src} to {target}")

    def build_from_list(self, n: ir.Expr, tgt: T.P4Type, pos: Any) -> ir.Expr:
        items: list[ir.Expr] = list(n.const) if isinstance(n.const, list) else []
        if not items and not isinstance(n.const, dict):
            if isinstance(n.type, T.ListType) and n.type.elements:
                raise P4Unsupported.at(pos, "list conversion of a non-literal list")
        if isinstance(tgt, T.StructLikeType):
            fields = list(tgt.fields.items())
            if isinstance(n.const, dict):  # struct expression {a = .., b = ..}
                named = n.const
                missing = [f for f, _ in fields if f not in named]
                if missing:
                    raise P4TypeError.at(pos, f"missing fields {missing} for {tgt}")
                items = [named[f] for f, _ in fields]
            if len(items) != len(fields):
                raise P4TypeError.at(pos, f"{len(items)} values for {len(fields)} fields of {tgt}")
            conv = tuple(
                self.convert(i, ft, pos) for i, (_f, ft) in zip(items, fields, strict=True)
            )
            return ir.BuildStruct(type=tgt, items=conv)
        if isinstance(tgt, T.TupleType):
            if len(items) != len(tgt.elements):
                raise P4TypeError.at(pos, f"{len(items)} values for {tgt}")
            conv = tuple(
                self.convert(i, et, pos) for i, et in zip(items, tgt.elements, strict=True)
            )
            return ir.BuildTuple(type=tgt, items=conv)
        if isinstance(tgt, T.StackType):
            conv = tuple(self.convert(i, tgt.element, pos) for i in items)
            return ir.BuildStack(type=tgt, items=conv)
        raise P4TypeError.at(pos, f"cannot convert a list to {tgt}")

    def unify(self, a: ir.Expr, b: ir.Expr, pos: Any, op: str) -> tuple[ir.Expr, ir.Expr]:
        """Bring both operands of a binary operator to one type (int literals adapt)."""
        ta, tb = T.strip_newtype(a.type), T.strip_newtype(b.type)
        if isinstance(ta, T.IntLiteralType) and not isinstance(tb, T.IntLiteralType):
            return self.convert(a, b.type, pos), b
        if isinstance(tb, T.IntLiteralType) and not isinstance(ta, T.IntLiteralType):
            return a, self.convert(b, a.type, pos)
        if isinstance(ta, T.BitType) and isinstance(tb, T.BitType) and ta != tb:
            raise P4TypeError.at(
                pos, f"{op}: cannot operate on {a.type} and {b.type}; an explicit cast is needed"
            )
        if isinstance(ta, T.EnumType) and isinstance(tb, T.BitType) and ta.underlying == tb:
            return retype(a, tb), b
        if isinstance(tb, T.EnumType) and isinstance(ta, T.BitType) and tb.underlying == ta:
            return a, retype(b, ta)
        return a, b

    def ordered(
        self, thunks: list[Callable[[], ir.Expr]]
    ) -> tuple[list[ir.Expr], tuple[str, ...] | None]:
        """Check operands left to right, as P4 evaluates them. When one needs statements,
        each operand before it that is not a literal gets a temporary to be saved in (the
        emitter saves them before those statements run). The saves are None when no
        operand needs statements."""
        out: list[ir.Expr] = []
        literal: list[bool] = []
        saves: list[str] | None = None
        for thunk in thunks:
            n = thunk()
            if ir.has_statements(n):
                saves = [] if saves is None else saves
                saves.extend(self.st.temp() for lit in literal if not lit)
            out.append(n)
            literal.append(_literal(n))
        return out, None if saves is None else tuple(saves)

    @staticmethod
    def in_order(operands: list[ir.Expr], saves: tuple[str, ...] | None, body: ir.Expr) -> ir.Expr:
        """`body` over `operands` checked by `ordered` (grouped when they need saving)."""
        if saves is None:
            return body
        return ir.InOrder(
            type=body.type, const=body.const, operands=tuple(operands), saves=saves, body=body
        )

    # ------------------------------------------------------------ entry point
    def check(self, e: A.Expr, expected: T.P4Type | None = None) -> ir.Expr:
        """The typed IR of `e` (`expected`: the type its context wants, a hint)."""
        n = self._check(e, expected)
        e.type = n.type
        return n

    def _check(self, e: A.Expr, expected: T.P4Type | None) -> ir.Expr:  # noqa: C901
        if isinstance(e, A.IntLit):
            if e.width is None:
                return constant(e.value, T.INT)
            t = T.BitType(e.width, e.signed)
            if e.value > mask(e.width):
                self.st.warn(e.pos, f"value {e.value} does not fit in {t}; it wraps")
            return constant(wrap_value(e.value, t), t)
        if isinstance(e, A.BoolLit):
            return constant(e.value, T.BOOL)
        if isinstance(e, A.StrLit):
            return constant(e.value, T.STRING)
        if isinstance(e, A.NameRef):
            return self.name_expr(e)
        if isinstance(e, A.ErrorMember):
            if e.name not in self.st.error_type.members:
                raise P4TypeError.at(e.pos, f"error.{e.name} is not declared")
            return constant(self.st.error_type.code(e.name), self.st.error_type)
        if isinstance(e, A.Member):
            return self.member_expr(e)
        if isinstance(e, A.Index):
            return self.index_expr(e)
        if isinstance(e, A.Slice):
            return self.slice_expr(e)
        if isinstance(e, A.Call):
            return self.call_expr(e, expected)
        if isinstance(e, A.Unary):
            return self.unary_expr(e, expected)
        if isinstance(e, A.Binary):
            return self.binary_expr(e, expected)
        if isinstance(e, A.Conditional):
            return self.conditional_expr(e, expected)
        if isinstance(e, A.Cast):
            return self.cast_expr(e)
        if isinstance(e, A.ListExpr):
            items, saves = self.ordered([partial(self.check, i) for i in e.items])
            lv = ir.ListValue(
                type=T.ListType(tuple(i.type for i in items)), const=items, items=tuple(items)
            )
            if expected is not None and isinstance(
                T.strip_newtype(expected), T.StructLikeType | T.TupleType | T.StackType
            ):
                return self.in_order(
                    items, saves, self.build_from_list(lv, T.strip_newtype(expected), e.pos)
                )
            return self.in_order(items, saves, lv)
        if isinstance(e, A.StructExpr):
            vals, saves = self.ordered([partial(self.check, x) for _n, x in e.fields])
            named = {n: v for (n, _x), v in zip(e.fields, vals, strict=True)}
            sv = ir.StructValue(
                type=T.ListType(tuple(v.type for v in named.values())),
                const=named,
                items=tuple(named.items()),
            )
            if expected is not None and isinstance(T.strip_newtype(expected), T.StructLikeType):
                return self.in_order(
                    vals, saves, self.build_from_list(sv, T.strip_newtype(expected), e.pos)
                )
            return self.in_order(vals, saves, sv)
        if isinstance(e, A.InvalidHeader):
            if expected is None or not isinstance(T.strip_newtype(expected), T.StructLikeType):
                raise P4TypeError.at(e.pos, "{#} needs a header type from context")
            return ir.InvalidValue(type=expected)
        if isinstance(e, A.TypeNameExpr):
            raise P4TypeError.at(e.pos, "a type is not a value here")
        if isinstance(e, A.DefaultKeyset | A.DontCare):
            return ir.DontCareValue(type=T.DONTCARE)
        if isinstance(e, A.This):
            raise P4Unsupported.at(e.pos, "'this'")
        if isinstance(e, A.Construct):
            raise P4Unsupported.at(e.pos, "constructor call in an expression")
        raise P4Unsupported.at(e.pos, f"expression {type(e).__name__}")

    def call_expr(self, e: A.Call, expected: T.P4Type | None) -> ir.Expr:
        """A call, checked and generated by the calls part; its statements are kept."""
        v, pre = self.st.capture(lambda: self.gen.calls.call_expr(e, expected))
        g = of_value(v)
        if not pre.lines:
            return g
        return ir.Generated(
            type=g.type, const=g.const, code=g.code, pre=tuple(pre.lines), depth=pre.depth
        )

    # ------------------------------------------------------------ names
    def name_expr(self, e: A.NameRef) -> ir.Expr:
        sym = self.st.scope.lookup(e.name)
        if sym is None:
            raise P4TypeError.at(e.pos, f"{e.name}: no such declaration")
        if isinstance(sym, Var):
            return ir.VarRef(type=sym.type, sym=sym)
        if isinstance(sym, Const):
            if isinstance(sym.value, int | bool):
                return constant(sym.value, sym.type)
            return ir.ConstRef(type=sym.type, const=sym.value, sym=sym)
        if isinstance(
            sym,
            InstanceSym | TableSym | ActionSym | FunctionSym | ValueSetSym | ExternFunctionSym,
        ):
            return ir.SymRef(type=SymType(sym), sym=sym)
        if isinstance(sym, TypeSym):
            raise P4TypeError.at(e.pos, f"{e.name} is a type, not a value")
        raise P4TypeError.at(e.pos, f"{e.name} cannot be used as a value")

    # ------------------------------------------------------------ members
    def member_expr(self, e: A.Member) -> ir.Expr:  # noqa: C901
        if isinstance(e.base, A.TypeNameExpr):
            t = self.gen.types.resolve_type(e.base.ref)
            t0 = T.strip_newtype(t)
            if isinstance(t0, T.EnumType):
                if e.name not in t0.members:
                    raise P4TypeError.at(e.pos, f"{t0.name}.{e.name} is not a member")
                return constant(t0.value(e.name), t)
            if isinstance(t0, T.ErrorType):
                return constant(t0.code(e.name), t0)
            raise P4TypeError.at(e.pos, f"{t}.{e.name}: not a member")
        base = self.check(e.base)
        bt = T.strip_newtype(base.type)
        if isinstance(bt, T.StructLikeType):
            if e.name not in bt.fields:
                raise P4TypeError.at(e.pos, f"{bt.name} has no field {e.name}")
            return ir.Field(type=bt.fields[e.name], base=base, name=e.name)
        if isinstance(bt, T.StackType):
            if e.name == "size":
                return constant(bt.size, T.BitType(32))
            if e.name == "lastIndex":
                return ir.StackMember(type=T.BitType(32), base=base, member=e.name)
            if e.name in ("next", "last") and not self.st.in_parser:
                raise P4TypeError.at(
                    e.pos, f"'{e.name}' of a header stack can only be used in a parser"
                )
            if e.name in ("next", "last"):
                return ir.StackMember(type=bt.element, base=base, member=e.name)
            raise P4TypeError.at(e.pos, f"header stack has no member {e.name}")
        if isinstance(bt, T.ApplyResultType):
            if e.name in ("hit", "miss"):
                return ir.ApplyMember(type=T.BOOL, base=base, member=e.name)
            if e.name == "action_run":
                return ir.ApplyMember(type=T.ActionEnumType(bt.table), base=base, member=e.name)
        if isinstance(bt, T.TupleType):
            raise P4Unsupported.at(e.pos, "tuple member access")
        raise P4TypeError.at(e.pos, f"{base.type} has no member {e.name}")

    def index_expr(self, e: A.Index) -> ir.Expr:
        base = self.check(e.base)
        bt = T.strip_newtype(base.type)
        idx = self.check(e.index)
        if isinstance(bt, T.StackType):
            if idx.is_const and not 0 <= idx.const < bt.size:
                raise P4TypeError.at(e.pos, f"index {idx.const} out of range for {bt}")
            return ir.StackIndex(type=bt.element, base=base, index=idx)
        if isinstance(bt, T.TupleType):
            if not idx.is_const:
                raise P4TypeError.at(e.pos, "tuple index must be a constant")
            return ir.TupleIndex(type=bt.elements[idx.const], base=base, index=idx.const)
        raise P4TypeError.at(e.pos, f"cannot index a value of type {base.type}")

    def slice_expr(self, e: A.Slice) -> ir.Expr:
        base = self.check(e.base)
        refusal = operator_refusal("[:]", base.type)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        bt = T.strip_newtype(base.type)
        hi, lo = self.const_int(e.hi), self.const_int(e.lo)
        if hi < 0 or lo < 0:
            raise P4TypeError.at(e.pos, f"slice [{hi}:{lo}]: indexes must not be negative")
        w = hi - lo + 1
        if isinstance(bt, T.IntLiteralType) and base.is_const:
            return constant((base.const >> lo) & mask(w), T.BitType(w))
        if not isinstance(bt, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot slice a value of type {base.type}")
        if not (0 <= lo <= hi < bt.width):
            raise P4TypeError.at(e.pos, f"slice [{hi}:{lo}] out of range for {bt}")
        t = T.BitType(w)
        if base.is_const:
            return constant((base.const >> lo) & mask(w), t)
        return ir.Slice(type=t, base=base, hi=hi, lo=lo, bits=bt)

    # ------------------------------------------------------------ operators
    def unary_expr(self, e: A.Unary, expected: T.P4Type | None) -> ir.Expr:
        # `~` takes no width from its context: p4c refuses `~1` wherever it stands
        v = self.check(e.operand, None if e.op == "~" else expected)
        if e.op != "!":
            refusal = operator_refusal(e.op, v.type)
            if refusal is not None:
                raise P4TypeError.at(e.pos, refusal)
            v = _as_number(v)
        t = T.strip_newtype(v.type)
        if e.op == "!":
            v = self.convert(v, T.BOOL, e.pos)
            return constant(not v.const, T.BOOL) if v.is_const else ir.Not(type=T.BOOL, operand=v)
        if e.op == "+":
            return v
        if isinstance(t, T.IntLiteralType):
            if e.op == "~":
                raise P4TypeError.at(e.pos, "~ needs a value of known width (8w1, not 1)")
            if not v.is_const:
                raise P4TypeError.at(e.pos, "int values must be compile-time constants")
            return constant(-v.const, T.INT)
        if not isinstance(t, T.BitType):
            raise P4TypeError.at(e.pos, f"operator {e.op} does not apply to {v.type}")
        if v.is_const:
            val = -v.const if e.op == "-" else ~v.const
            return constant(wrap_value(val, t), v.type)
        if e.op == "~":
            return ir.Complement(type=v.type, operand=v, bits=t)
        return ir.Negate(type=v.type, operand=v, bits=t)

    def conditional_expr(self, e: A.Conditional, expected: T.P4Type | None) -> ir.Expr:
        c = self.convert(self.check(e.cond), T.BOOL, e.cond.pos)
        # with a constant condition the other operand is dead code (see dead_branch)
        a = self.st.maybe_dead(lambda: self.check(e.then, expected), c.is_const and not c.const)
        b = self.st.maybe_dead(lambda: self.check(e.other, expected), c.is_const and bool(c.const))
        refusal = conditional_refusal(a.type, b.type, self.folding)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        stmts = ir.has_statements(a) or ir.has_statements(b)
        if c.is_const and stmts:
            a, b = self.unify(a, b, e.pos, "?:")
            taken = a if c.const else b
            return ir.Chosen(type=taken.type, const=taken.const, cond=c, value=taken)
        if stmts:
            a, b = self.unify(a, b, e.pos, "?:")
            return ir.SelectStmt(type=a.type, cond=c, then=a, other=b, temp=self.st.temp())
        a, b = self.unify(a, b, e.pos, "?:")
        if c.is_const and a.is_const and b.is_const:
            return a if c.const else retype(b, a.type)
        return ir.Select(type=a.type, cond=c, then=a, other=b)

    def binary_expr(self, e: A.Binary, expected: T.P4Type | None) -> ir.Expr:
        op = e.op
        if op in ("&&", "||"):
            return self.logical_expr(e)
        hint = expected if op not in _CMP and op not in ("<<", ">>", "++") else None
        rhint = hint if op not in ("<<", ">>") else None
        (a, b), saves = self.ordered(
            [lambda: self.check(e.left, hint), lambda: self.check(e.right, rhint)]
        )
        refusal = operator_refusal(op, a.type, b.type)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        checked = [a, b]  # what the emitter evaluates in order
        if op not in ("==", "!=") or not T.same_type(a.type, b.type):
            a, b = _as_number(a), _as_number(b)
        if op in ("<<", ">>"):
            body = self.shift_expr(e, a, b)
        elif op == "++":
            body = self.concat_expr(e, a, b)
        elif op in ("==", "!=") and not T.is_numeric(a.type) and not T.is_numeric(b.type):
            body = self.equality_expr(e, a, b)
        else:
            body = self.arith_expr(e, a, b)
        return self.in_order(checked, saves, body)

    def logical_expr(self, e: A.Binary) -> ir.Expr:
        op = e.op
        a = self.convert(self.check(e.left), T.BOOL, e.left.pos)
        b = self.st.maybe_dead(
            lambda: self.convert(self.check(e.right), T.BOOL, e.right.pos),
            a.is_const and bool(a.const) == (op == "||"),
        )
        if ir.has_statements(b):
            # the right operand needs statements: run them only when it is evaluated
            return ir.ShortCircuit(type=T.BOOL, op=op, left=a, right=b, temp=self.st.temp())
        if a.is_const and b.is_const:
            return constant(a.const and b.const if op == "&&" else a.const or b.const, T.BOOL)
        if a.is_const:
            if op == "&&":
                return b if a.const else constant(False, T.BOOL)
            return constant(True, T.BOOL) if a.const else b
        return ir.Logical(type=T.BOOL, op=op, left=a, right=b)

    def arith_expr(self, e: A.Binary, a: ir.Expr, b: ir.Expr) -> ir.Expr:  # noqa: C901
        op = e.op
        a, b = self.unify(a, b, e.pos, op)
        t = T.strip_newtype(a.type)
        if isinstance(t, T.IntLiteralType):
            if a.is_const and b.is_const:
                return self.fold_int(e, op, a.const, b.const)
            # a run-time value cast to int (`(int)x + 1`; such a cast is 0, as on BMv2:
            # see cast_expr), computed at run time
            if op in ("+", "-", "*"):
                return ir.PlainOp(type=T.INT, op=op, left=a, right=b)
            if op in _CMP:
                return ir.PlainOp(type=T.BOOL, op=op, left=a, right=b)
            raise P4TypeError.at(e.pos, "int values must be compile-time constants")
        if op in _CMP:
            if not isinstance(t, T.BitType | T.EnumType | T.BoolType | T.ErrorType):
                raise P4TypeError.at(e.pos, f"cannot compare values of type {a.type}")
            if op not in ("==", "!=") and not isinstance(t, T.BitType):
                raise P4TypeError.at(e.pos, f"{op} needs numbers, not {a.type}")
            if a.is_const and b.is_const:
                return constant(_PYCMP[op](a.const, b.const), T.BOOL)
            return ir.PlainOp(type=T.BOOL, op=op, left=a, right=b)
        if not isinstance(t, T.BitType):
            raise P4TypeError.at(e.pos, f"operator {op} does not apply to {a.type}")
        if op in ("/", "%") and not (a.is_const and b.is_const):
            if a.is_const and a.const == 0 and not t.signed:
                return ir.DivideZero(type=a.type, right=b)  # p4c folds 0 / x to 0
            if b.is_const and b.const > 0 and b.const & (b.const - 1) == 0 and not t.signed:
                # p4c strength-reduces division and modulo by powers of two
                if op == "/":
                    k = constant(b.const.bit_length() - 1, T.INT)
                    return ir.PlainOp(type=a.type, op=">>", left=a, right=k)
                m = constant(b.const - 1, T.INT)
                return ir.PlainOp(type=a.type, op="&", left=a, right=m)
            raise P4Unsupported.at(
                e.pos,
                f"division or modulo of run-time values ('{e.op}') is not supported on this target",
            )
        if a.is_const and b.is_const:
            if op in ("/", "%") and b.const == 0:
                raise P4TypeError.at(e.pos, "division by zero")
            return constant(fold_bits(op, a.const, b.const, t), a.type)
        return ir.BitsOp(type=a.type, op=op, left=a, right=b, bits=t)

    def fold_int(self, e: A.Binary, op: str, x: int, y: int) -> ir.Expr:
        if op in _CMP:
            return constant(_PYCMP[op](x, y), T.BOOL)
        if op in ("/", "%"):
            if y == 0:
                raise P4TypeError.at(e.pos, "division by zero")
            if x < 0 or y < 0:
                raise P4TypeError.at(e.pos, "division of negative int values is not allowed")
        r = {
            "+": lambda: x + y,
            "-": lambda: x - y,
            "*": lambda: x * y,
            "/": lambda: x // y,
            "%": lambda: x % y,
            "&": lambda: x & y,
            "|": lambda: x | y,
            "^": lambda: x ^ y,
        }.get(op)
        if r is None:
            raise P4TypeError.at(e.pos, f"operator {op} does not apply to int")
        return constant(r(), T.INT)

    def shift_expr(self, e: A.Binary, a: ir.Expr, b: ir.Expr) -> ir.Expr:
        ta = T.strip_newtype(a.type)
        refusal = shift_amount_refusal(b.type, b.const, isinstance(ta, T.IntLiteralType))
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        if isinstance(ta, T.IntLiteralType):
            if not (a.is_const and b.is_const):
                raise P4TypeError.at(e.pos, "shift of an int needs a width (cast it first)")
            return constant(a.const << b.const if e.op == "<<" else a.const >> b.const, T.INT)
        if not isinstance(ta, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot shift a value of type {a.type}")
        if a.is_const and b.is_const:
            if e.op == "<<":
                v = wrap_value(a.const << b.const if b.const < 4096 else 0, ta)
            else:
                v = a.const >> b.const
            return constant(v, a.type)
        if e.op == ">>":
            return ir.PlainOp(type=a.type, op=">>", left=a, right=b)
        if b.is_const and b.const >= ta.width:
            return constant(0, a.type)
        return ir.ShiftLeft(type=a.type, left=a, right=b, bits=ta)

    def concat_expr(self, e: A.Binary, a: ir.Expr, b: ir.Expr) -> ir.Expr:
        ta, tb = T.strip_newtype(a.type), T.strip_newtype(b.type)
        if not isinstance(ta, T.BitType) or not isinstance(tb, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot concatenate {a.type} and {b.type}")
        t = T.BitType(ta.width + tb.width, ta.signed)
        if a.is_const and b.is_const:
            v = ((a.const & mask(ta.width)) << tb.width) | (b.const & mask(tb.width))
            return constant(wrap_value(v, t), t)
        return ir.Concat(type=t, left=a, right=b, bits=t, lbits=ta, rbits=tb)

    def equality_expr(self, e: A.Binary, a: ir.Expr, b: ir.Expr) -> ir.Expr:
        a, b = self.unify(a, b, e.pos, e.op)
        if isinstance(a.type, T.ListType) and not isinstance(b.type, T.ListType):
            a = self.convert(a, b.type, e.pos)
        if isinstance(b.type, T.ListType) and not isinstance(a.type, T.ListType):
            b = self.convert(b, a.type, e.pos)
        if a.is_const and b.is_const and not isinstance(a.const, list | dict):
            return constant((a.const == b.const) != (e.op == "!="), T.BOOL)
        return ir.Equal(type=T.BOOL, left=a, right=b, negate=e.op == "!=")

    def cast_expr(self, e: A.Cast) -> ir.Expr:  # noqa: C901
        target = self.gen.types.resolve_type(e.to)
        tt = T.strip_newtype(target)
        v = self.check(e.operand, target)
        refusal = cast_refusal(v.type, target, v.const)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        st = T.strip_newtype(v.type)
        if isinstance(v.type, T.ListType | T.TupleType) or (
            isinstance(tt, T.StructLikeType) and isinstance(st, T.StructLikeType)
        ):
            return self.convert(v, target, e.pos)
        if isinstance(tt, T.BitType):
            if isinstance(st, T.BoolType):
                if v.is_const:
                    return constant(int(v.const), target)
                return ir.BoolToBit(type=target, operand=v)
            if isinstance(st, T.EnumType) and st.underlying is not None:
                st = st.underlying
            if isinstance(st, T.IntLiteralType | T.BitType):
                if v.is_const:
                    return constant(wrap_value(v.const, tt), target)
                if isinstance(st, T.BitType):
                    if st.width <= tt.width and st.signed == tt.signed:
                        return retype(v, target, keep_const=False)
                    if not st.signed and st.width <= tt.width:
                        return retype(v, target, keep_const=False)
                return ir.Wrap(type=target, operand=v, bits=tt)
        if isinstance(tt, T.BoolType):
            if isinstance(st, T.BoolType):
                return v
            if isinstance(st, T.BitType | T.IntLiteralType):
                if v.is_const:
                    return constant(bool(v.const), T.BOOL)
                return ir.BitToBool(type=T.BOOL, operand=v)
        if isinstance(tt, T.EnumType) and tt.underlying is not None:
            if isinstance(st, T.BitType | T.IntLiteralType | T.EnumType):
                if v.is_const:
                    return constant(wrap_value(v.const, tt.underlying), target)
                return ir.Wrap(type=target, operand=v, bits=tt.underlying)
        if isinstance(tt, T.IntLiteralType) and v.is_const:
            return constant(v.const, T.INT)
        if isinstance(tt, T.IntLiteralType) and isinstance(st, T.BitType):
            # (int)x of a run-time bit<W> or int<W>: p4c-bm2-ss gives `int` no width and
            # masks x with it, so on BMv2 the cast is 0 whatever x is; softswitch computes
            # the same (and says so)
            self.st.warn(
                e.pos,
                "(int) of a run-time value: p4c-bm2-ss compiles it to 0 for BMv2, and so "
                "does softswitch",
            )
            return ir.IntOfRuntime(type=T.INT, operand=v)
        if T.same_type(st, tt):
            return retype(v, target)
        raise P4TypeError.at(e.pos, f"cannot cast {v.type} to {target}")


def _as_number(n: ir.Expr) -> ir.Expr:
    """`n` as an operand: a serializable enum's value as its underlying type."""
    t = as_number(n.type)
    return n if t is n.type else retype(n, t)
