"""Expressions -> Python expressions with exact P4 bit semantics.

Every value of type bit<W> is a Python int in [0, 2^W); int<W> is a Python int in
[-2^(W-1), 2^(W-1)). Each operator that can leave that range wraps its result right away,
so no value outside its range is ever stored. Compile-time constants are folded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
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
from .values import SymType, V, as_bits, const_v, field_py, mask, wrap_code, wrap_value

# a variable or a chain of attribute reads: reading it twice gives the same value
_PLAIN = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


_ARITH = {"+", "-", "*", "/", "%", "|+|", "|-|", "&", "|", "^"}
_CMP = {"==", "!=", "<", ">", "<=", ">="}


class Exprs:
    """The expressions part of the generator: P4 expressions -> Python expressions with
    P4's bit semantics, constants folded, implicit conversions."""

    __slots__ = ("folding", "gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts
        # inside `const_int`: a width, size or index p4c folds before checking types
        self.folding = False

    # ------------------------------------------------------------ helpers
    def const_int(self, e: A.Expr) -> int:
        outer, self.folding = self.folding, True
        try:
            v = self.expr(e)
        finally:
            self.folding = outer
        if not v.is_const or isinstance(v.const, bool) or not isinstance(v.const, int):
            raise P4TypeError.at(e.pos, "a compile-time integer constant is required")
        return v.const

    def convert(self, v: V, target: T.P4Type, pos: Any) -> V:
        """Implicit conversion of `v` to `target` (int literals, lists), or a type error."""
        src = v.type
        tgt = T.strip_newtype(target)
        if T.same_type(src, target) or isinstance(target, T.TypeVar | T.DontCareType):
            return v
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
            return V(v.code, target)
        if isinstance(src, T.IntLiteralType):
            if isinstance(tgt, T.BitType):
                if v.is_const:
                    return const_v(wrap_value(v.const, tgt), target)
                return V(wrap_code(v.code, tgt), target)
            if isinstance(tgt, T.IntLiteralType):
                return v
        if isinstance(src, T.BitType) and isinstance(tgt, T.BitType) and src == tgt:
            return V(v.code, target, v.const)
        if isinstance(src, T.EnumType) and isinstance(tgt, T.EnumType) and src.name == tgt.name:
            return v
        if isinstance(src, T.ErrorType) and isinstance(tgt, T.ErrorType):
            return v
        if isinstance(src, T.ListType) or (
            isinstance(src, T.TupleType) and isinstance(tgt, T.StructLikeType)
        ):
            return self.build_from_list(v, tgt, pos)
        if isinstance(src, T.StructLikeType) and isinstance(tgt, T.StructLikeType):
            if src.name == tgt.name:
                return v
        if isinstance(tgt, T.BitType) and isinstance(src, T.EnumType) and src.underlying:
            if src.underlying == tgt:
                return V(v.code, target, v.const)
        raise P4TypeError.at(pos, f"cannot convert {src} to {target}")

    def build_from_list(self, v: V, tgt: T.P4Type, pos: Any) -> V:
        items: list[V] = v.const if isinstance(v.const, list) else []
        by_name = isinstance(v.const, dict)  # a struct expression {a = .., b = ..}
        if not items and not by_name and isinstance(v.type, T.ListType) and v.type.elements:
            raise P4Unsupported.at(pos, "list conversion of a non-literal list")
        if isinstance(tgt, T.StructLikeType):
            fields = list(tgt.fields.items())
            if isinstance(v.const, dict):  # struct expression {a = .., b = ..}
                named = v.const
                missing = [f for f, _ in fields if f not in named]
                if missing:
                    raise P4TypeError.at(pos, f"missing fields {missing} for {tgt}")
                items = [named[f] for f, _ in fields]
            if len(items) != len(fields):
                raise P4TypeError.at(pos, f"{len(items)} values for {len(fields)} fields of {tgt}")
            codes = [
                self.gen.types.copy_code(self.convert(i, ft, pos).code, ft)
                for i, (_f, ft) in zip(items, fields, strict=True)
            ]
            valid = ", True" if tgt.is_header else ""
            return V(
                f"_mk({tgt.pyname}, ({', '.join(codes)}{',' if len(codes) == 1 else ''}){valid})",
                tgt,
            )
        if isinstance(tgt, T.TupleType):
            if len(items) != len(tgt.elements):
                raise P4TypeError.at(pos, f"{len(items)} values for {tgt}")
            codes = [
                self.convert(i, et, pos).code for i, et in zip(items, tgt.elements, strict=True)
            ]
            return V(f"({', '.join(codes)}{',' if len(codes) == 1 else ''})", tgt)
        if isinstance(tgt, T.StackType):
            codes = [self.convert(i, tgt.element, pos).code for i in items]
            return V(f"_Stack.of({tgt.element.pyname}, {tgt.size}, [{', '.join(codes)}])", tgt)
        raise P4TypeError.at(pos, f"cannot convert a list to {tgt}")

    def unify(self, a: V, b: V, pos: Any, op: str) -> tuple[V, V]:
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
            return V(a.code, tb, a.const), b
        if isinstance(tb, T.EnumType) and isinstance(ta, T.BitType) and tb.underlying == ta:
            return a, V(b.code, ta, b.const)
        return a, b

    def in_order(self, thunks: list[Callable[[], V]]) -> list[V]:
        """Generate values left to right, as P4 evaluates them. When a later one needs
        statements of its own (a call with out arguments), the values computed before it
        are saved in temporaries first, so the call cannot change what they read."""
        out: list[V] = []
        for thunk in thunks:
            v, pre = self.st.capture(thunk)
            if pre.lines:
                out = [V(self.st.snapshot(x.code), x.type, x.const) for x in out]
                self.st.out.lines.extend(pre.lines)
            out.append(v)
        return out

    def exprs_in_order(self, items: tuple[A.Expr, ...]) -> list[V]:
        return self.in_order([partial(self.expr, i) for i in items])

    # ------------------------------------------------------------ entry point
    def expr(self, e: A.Expr, expected: T.P4Type | None = None) -> V:
        v = self._expr(e, expected)
        e.type = v.type
        return v

    def _expr(self, e: A.Expr, expected: T.P4Type | None) -> V:  # noqa: C901
        if isinstance(e, A.IntLit):
            if e.width is None:
                return const_v(e.value, T.INT)
            t = T.BitType(e.width, e.signed)
            if e.value > mask(e.width):
                self.st.warn(e.pos, f"value {e.value} does not fit in {t}; it wraps")
            return const_v(wrap_value(e.value, t), t)
        if isinstance(e, A.BoolLit):
            return const_v(e.value, T.BOOL)
        if isinstance(e, A.StrLit):
            return V(repr(e.value), T.STRING, e.value)
        if isinstance(e, A.NameRef):
            return self.name_expr(e)
        if isinstance(e, A.ErrorMember):
            if e.name not in self.st.error_type.members:
                raise P4TypeError.at(e.pos, f"error.{e.name} is not declared")
            return const_v(self.st.error_type.code(e.name), self.st.error_type)
        if isinstance(e, A.Member):
            return self.member_expr(e)
        if isinstance(e, A.Index):
            return self.index_expr(e)
        if isinstance(e, A.Slice):
            return self.slice_expr(e)
        if isinstance(e, A.Call):
            return self.gen.calls.call_expr(e, expected)
        if isinstance(e, A.Unary):
            return self.unary_expr(e, expected)
        if isinstance(e, A.Binary):
            return self.binary_expr(e, expected)
        if isinstance(e, A.Conditional):
            c = self.convert(self.expr(e.cond), T.BOOL, e.cond.pos)
            # with a constant condition the other operand is dead code (see dead_branch)
            a, pre_a = self.st.capture_maybe_dead(
                lambda: self.expr(e.then, expected), c.is_const and not c.const
            )
            b, pre_b = self.st.capture_maybe_dead(
                lambda: self.expr(e.other, expected), c.is_const and bool(c.const)
            )
            refusal = conditional_refusal(a.type, b.type, self.folding)
            if refusal is not None:
                raise P4TypeError.at(e.pos, refusal)
            if c.is_const and (pre_a.lines or pre_b.lines):
                a, b = self.unify(a, b, e.pos, "?:")
                self.st.out.lines.extend((pre_a if c.const else pre_b).lines)
                return a if c.const else b
            if pre_a.lines or pre_b.lines:
                a, b = self.unify(a, b, e.pos, "?:")
                tmp = self.st.temp()
                self.st.out.line(f"if {c.code}:")
                with self.st.out.indent():
                    self.st.out.lines.extend(_reindent(pre_a.lines))
                    self.st.out.line(f"{tmp} = {a.code}")
                self.st.out.line("else:")
                with self.st.out.indent():
                    self.st.out.lines.extend(_reindent(pre_b.lines))
                    self.st.out.line(f"{tmp} = {b.code}")
                return V(tmp, a.type)
            a, b = self.unify(a, b, e.pos, "?:")
            if c.is_const and a.is_const and b.is_const:
                return V(a.code if c.const else b.code, a.type, a.const if c.const else b.const)
            return V(f"({a.code} if {c.code} else {b.code})", a.type)
        if isinstance(e, A.Cast):
            return self.cast_expr(e)
        if isinstance(e, A.ListExpr):
            items = self.exprs_in_order(e.items)
            if expected is not None and isinstance(
                T.strip_newtype(expected), T.StructLikeType | T.TupleType | T.StackType
            ):
                lv = V("", T.ListType(tuple(i.type for i in items)), items)
                return self.build_from_list(lv, T.strip_newtype(expected), e.pos)
            code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
            return V(code, T.ListType(tuple(i.type for i in items)), items)
        if isinstance(e, A.StructExpr):
            vals = self.exprs_in_order(tuple(x for _n, x in e.fields))
            named = {n: v for (n, _x), v in zip(e.fields, vals, strict=True)}
            lv = V("", T.ListType(tuple(v.type for v in named.values())), named)
            if expected is not None and isinstance(T.strip_newtype(expected), T.StructLikeType):
                return self.build_from_list(lv, T.strip_newtype(expected), e.pos)
            return lv
        if isinstance(e, A.InvalidHeader):
            if expected is None or not isinstance(T.strip_newtype(expected), T.StructLikeType):
                raise P4TypeError.at(e.pos, "{#} needs a header type from context")
            return V(self.gen.types.zero_code(expected), expected)
        if isinstance(e, A.TypeNameExpr):
            raise P4TypeError.at(e.pos, "a type is not a value here")
        if isinstance(e, A.DefaultKeyset | A.DontCare):
            return V("_", T.DONTCARE)
        if isinstance(e, A.This):
            raise P4Unsupported.at(e.pos, "'this'")
        if isinstance(e, A.Construct):
            raise P4Unsupported.at(e.pos, "constructor call in an expression")
        raise P4Unsupported.at(e.pos, f"expression {type(e).__name__}")

    # ------------------------------------------------------------ names
    def name_expr(self, e: A.NameRef) -> V:
        sym = self.st.scope.lookup(e.name)
        if sym is None:
            raise P4TypeError.at(e.pos, f"{e.name}: no such declaration")
        if isinstance(sym, Var):
            return V(sym.py, sym.type)
        if isinstance(sym, Const):
            if isinstance(sym.value, int | bool):
                return const_v(sym.value, sym.type)
            return V(sym.py, sym.type, sym.value)
        if isinstance(sym, InstanceSym | TableSym | ActionSym | FunctionSym | ValueSetSym):
            return V(getattr(sym, "py", ""), SymType(sym))
        if isinstance(sym, ExternFunctionSym):
            return V("", SymType(sym))
        if isinstance(sym, TypeSym):
            raise P4TypeError.at(e.pos, f"{e.name} is a type, not a value")
        raise P4TypeError.at(e.pos, f"{e.name} cannot be used as a value")

    # ------------------------------------------------------------ members
    def member_expr(self, e: A.Member) -> V:
        if isinstance(e.base, A.TypeNameExpr):
            t = self.gen.types.resolve_type(e.base.ref)
            t0 = T.strip_newtype(t)
            if isinstance(t0, T.EnumType):
                if e.name not in t0.members:
                    raise P4TypeError.at(e.pos, f"{t0.name}.{e.name} is not a member")
                return const_v(t0.value(e.name), t)
            if isinstance(t0, T.ErrorType):
                return const_v(t0.code(e.name), t0)
            raise P4TypeError.at(e.pos, f"{t}.{e.name}: not a member")
        base = self.expr(e.base)
        bt = T.strip_newtype(base.type)
        if isinstance(bt, T.StructLikeType):
            if e.name not in bt.fields:
                raise P4TypeError.at(e.pos, f"{bt.name} has no field {e.name}")
            ft = bt.fields[e.name]
            return V(f"{base.code}.{field_py(e.name)}", ft)
        if isinstance(bt, T.StackType):
            if e.name == "size":
                return const_v(bt.size, T.BitType(32))
            if e.name == "lastIndex":
                return V(f"({base.code}.nxt - 1 & 0xffffffff)", T.BitType(32))
            if e.name in ("next", "last") and not self.st.in_parser:
                raise P4TypeError.at(
                    e.pos, f"'{e.name}' of a header stack can only be used in a parser"
                )
            if e.name == "next":
                return V(f"{base.code}.next()", bt.element)
            if e.name == "last":
                return V(f"{base.code}.last()", bt.element)
            raise P4TypeError.at(e.pos, f"header stack has no member {e.name}")
        if isinstance(bt, T.ApplyResultType):
            if e.name == "hit":
                return V(f"{base.code}[0]", T.BOOL)
            if e.name == "miss":
                return V(f"(not {base.code}[0])", T.BOOL)
            if e.name == "action_run":
                return V(f"{base.code}[1]", T.ActionEnumType(bt.table))
        if isinstance(bt, T.TupleType):
            raise P4Unsupported.at(e.pos, "tuple member access")
        raise P4TypeError.at(e.pos, f"{base.type} has no member {e.name}")

    def index_expr(self, e: A.Index) -> V:
        base = self.expr(e.base)
        bt = T.strip_newtype(base.type)
        idx = self.expr(e.index)
        if isinstance(bt, T.StackType):
            if idx.is_const:
                if not 0 <= idx.const < bt.size:
                    raise P4TypeError.at(e.pos, f"index {idx.const} out of range for {bt}")
                return V(f"{base.code}.h[{idx.const}]", bt.element)
            return V(f"{base.code}.at({idx.code})", bt.element)
        if isinstance(bt, T.TupleType):
            if not idx.is_const:
                raise P4TypeError.at(e.pos, "tuple index must be a constant")
            return V(f"{base.code}[{idx.const}]", bt.elements[idx.const])
        raise P4TypeError.at(e.pos, f"cannot index a value of type {base.type}")

    def slice_expr(self, e: A.Slice) -> V:
        base = self.expr(e.base)
        refusal = operator_refusal("[:]", base.type)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        bt = T.strip_newtype(base.type)
        hi, lo = self.const_int(e.hi), self.const_int(e.lo)
        if hi < 0 or lo < 0:
            raise P4TypeError.at(e.pos, f"slice [{hi}:{lo}]: indexes must not be negative")
        if isinstance(bt, T.IntLiteralType) and base.is_const:
            w = hi - lo + 1
            return const_v((base.const >> lo) & mask(w), T.BitType(w))
        if not isinstance(bt, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot slice a value of type {base.type}")
        if not (0 <= lo <= hi < bt.width):
            raise P4TypeError.at(e.pos, f"slice [{hi}:{lo}] out of range for {bt}")
        w = hi - lo + 1
        t = T.BitType(w)
        if base.is_const:
            return const_v((base.const >> lo) & mask(w), t)
        src = as_bits(base.code, bt)
        if lo == 0:
            return V(f"({src} & {mask(w)})", t)
        return V(f"({src} >> {lo} & {mask(w)})", t)

    # ------------------------------------------------------------ operators
    def unary_expr(self, e: A.Unary, expected: T.P4Type | None) -> V:
        # `~` takes no width from its context: p4c refuses `~1` wherever it stands
        v = self.expr(e.operand, None if e.op == "~" else expected)
        if e.op != "!":
            refusal = operator_refusal(e.op, v.type)
            if refusal is not None:
                raise P4TypeError.at(e.pos, refusal)
            v = _as_number(v)
        t = T.strip_newtype(v.type)
        if e.op == "!":
            v = self.convert(v, T.BOOL, e.pos)
            return const_v(not v.const, T.BOOL) if v.is_const else V(f"(not {v.code})", T.BOOL)
        if e.op == "+":
            return v
        if isinstance(t, T.IntLiteralType):
            if e.op == "~":
                raise P4TypeError.at(e.pos, "~ needs a value of known width (8w1, not 1)")
            if not v.is_const:
                raise P4TypeError.at(e.pos, "int values must be compile-time constants")
            return const_v(-v.const, T.INT)
        if not isinstance(t, T.BitType):
            raise P4TypeError.at(e.pos, f"operator {e.op} does not apply to {v.type}")
        if v.is_const:
            val = -v.const if e.op == "-" else ~v.const
            return const_v(wrap_value(val, t), v.type)
        if e.op == "~":
            if t.signed:
                return V(f"(~{v.code})", v.type)
            return V(f"({v.code} ^ {mask(t.width)})", v.type)
        return V(wrap_code(f"-{v.code}", t), v.type)

    def binary_expr(self, e: A.Binary, expected: T.P4Type | None) -> V:  # noqa: C901
        op = e.op
        if op in ("&&", "||"):
            a = self.convert(self.expr(e.left), T.BOOL, e.left.pos)
            b, pre = self.st.capture_maybe_dead(
                lambda: self.convert(self.expr(e.right), T.BOOL, e.right.pos),
                a.is_const and bool(a.const) == (op == "||"),
            )
            if pre.lines:
                # the right operand needs statements: run them only when it is evaluated
                tmp = self.st.temp()
                self.st.out.line(f"{tmp} = {a.code}")
                self.st.out.line(f"if {tmp}:" if op == "&&" else f"if not {tmp}:")
                with self.st.out.indent():
                    self.st.out.lines.extend(_reindent(pre.lines))
                    self.st.out.line(f"{tmp} = {b.code}")
                return V(tmp, T.BOOL)
            if a.is_const and b.is_const:
                return const_v(a.const and b.const if op == "&&" else a.const or b.const, T.BOOL)
            if a.is_const:
                if op == "&&":
                    return b if a.const else const_v(False, T.BOOL)
                return const_v(True, T.BOOL) if a.const else b
            pyop = "and" if op == "&&" else "or"
            return V(f"({a.code} {pyop} {b.code})", T.BOOL)
        hint = expected if op not in _CMP and op not in ("<<", ">>", "++") else None
        rhint = hint if op not in ("<<", ">>") else None
        a, b = self.in_order([lambda: self.expr(e.left, hint), lambda: self.expr(e.right, rhint)])
        refusal = operator_refusal(op, a.type, b.type)
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        if op not in ("==", "!=") or not T.same_type(a.type, b.type):
            a, b = _as_number(a), _as_number(b)
        if op in ("<<", ">>"):
            return self.shift_expr(e, a, b)
        if op == "++":
            return self.concat_expr(e, a, b)
        if op in ("==", "!=") and not T.is_numeric(a.type) and not T.is_numeric(b.type):
            return self.equality_expr(e, a, b)
        a, b = self.unify(a, b, e.pos, op)
        t = T.strip_newtype(a.type)
        if isinstance(t, T.IntLiteralType):
            if a.is_const and b.is_const:
                return self.fold_int(e, op, a.const, b.const)
            # a run-time value cast to int (`(int)x + 1`; such a cast is 0, as on BMv2:
            # see cast_expr), computed at run time
            if op in ("+", "-", "*"):
                return V(f"({a.code} {op} {b.code})", T.INT)
            if op in _CMP:
                return V(f"({a.code} {op} {b.code})", T.BOOL)
            raise P4TypeError.at(e.pos, "int values must be compile-time constants")
        if op in _CMP:
            if not isinstance(t, T.BitType | T.EnumType | T.BoolType | T.ErrorType):
                raise P4TypeError.at(e.pos, f"cannot compare values of type {a.type}")
            if op not in ("==", "!=") and not isinstance(t, T.BitType):
                raise P4TypeError.at(e.pos, f"{op} needs numbers, not {a.type}")
            if a.is_const and b.is_const:
                return const_v(_PYCMP[op](a.const, b.const), T.BOOL)
            return V(f"({a.code} {op} {b.code})", T.BOOL)
        if not isinstance(t, T.BitType):
            raise P4TypeError.at(e.pos, f"operator {op} does not apply to {a.type}")
        if op in ("/", "%") and not (a.is_const and b.is_const):
            if a.is_const and a.const == 0 and not t.signed:
                return V(f"({b.code}, 0)[1]", a.type)  # p4c folds 0 / x to 0
            if b.is_const and b.const > 0 and b.const & (b.const - 1) == 0 and not t.signed:
                # p4c strength-reduces division and modulo by powers of two
                k = b.const.bit_length() - 1
                if op == "/":
                    return V(f"({a.code} >> {k})", a.type)
                return V(f"({a.code} & {b.const - 1})", a.type)
            self.note_runtime_division(e)
        if a.is_const and b.is_const:
            return const_v(self.fold_bits(e, op, a.const, b.const, t), a.type)
        return V(self.bits_op_code(op, a.code, b.code, t), a.type)

    def note_runtime_division(self, e: A.Binary) -> None:
        raise P4Unsupported.at(
            e.pos,
            f"division or modulo of run-time values ('{e.op}') is not supported on this target",
        )

    def bits_op_code(self, op: str, x: str, y: str, t: T.BitType) -> str:
        m = mask(t.width)
        if op in ("&", "|", "^"):
            return f"({x} {op} {y})"
        if op in ("+", "-", "*"):
            return wrap_code(f"{x} {op} {y}", t)
        if op == "/":
            return f"_div({x}, {y}, {m})"
        if op == "%":
            return f"_mod({x}, {y}, {m})"
        if op == "|+|":
            if t.signed:
                h = 1 << (t.width - 1)
                return f"max(-{h}, min({h - 1}, {x} + {y}))"
            return f"min({x} + {y}, {m})"
        if op == "|-|":
            if t.signed:
                h = 1 << (t.width - 1)
                return f"max(-{h}, min({h - 1}, {x} - {y}))"
            return f"max({x} - {y}, 0)"
        raise AssertionError(op)

    def fold_bits(self, e: A.Binary, op: str, x: int, y: int, t: T.BitType) -> int:
        if op in ("/", "%") and y == 0:
            raise P4TypeError.at(e.pos, "division by zero")
        code = self.bits_op_code(op, repr(x), repr(y), t)
        return wrap_value(eval(code, {"_div": _div, "_mod": _mod}), t)  # noqa: S307

    def fold_int(self, e: A.Binary, op: str, x: int, y: int) -> V:
        if op in _CMP:
            return const_v(_PYCMP[op](x, y), T.BOOL)
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
        return const_v(r(), T.INT)

    def shift_expr(self, e: A.Binary, a: V, b: V) -> V:
        ta = T.strip_newtype(a.type)
        refusal = shift_amount_refusal(b.type, b.const, isinstance(ta, T.IntLiteralType))
        if refusal is not None:
            raise P4TypeError.at(e.pos, refusal)
        if isinstance(ta, T.IntLiteralType):
            if not (a.is_const and b.is_const):
                raise P4TypeError.at(e.pos, "shift of an int needs a width (cast it first)")
            return const_v(a.const << b.const if e.op == "<<" else a.const >> b.const, T.INT)
        if not isinstance(ta, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot shift a value of type {a.type}")
        if a.is_const and b.is_const:
            if e.op == "<<":
                v = wrap_value(a.const << b.const if b.const < 4096 else 0, ta)
            else:
                v = a.const >> b.const
            return const_v(v, a.type)
        if e.op == ">>":
            return V(f"({a.code} >> {b.code})", a.type)
        if b.is_const:
            if b.const >= ta.width:
                return const_v(0, a.type)
            return V(wrap_code(f"{a.code} << {b.const}", ta), a.type)
        if not ta.signed and _PLAIN.fullmatch(b.code):
            # the amount is a name or a field read, safe to evaluate twice: shifted here,
            # with no call (an amount of the width or more gives 0)
            return V(
                f"((({a.code}) << {b.code}) & {mask(ta.width):#x} if {b.code} < {ta.width} else 0)",
                a.type,
            )
        return V(f"_shl({a.code}, {b.code}, {ta.width}, {int(ta.signed)})", a.type)

    def concat_expr(self, e: A.Binary, a: V, b: V) -> V:
        ta, tb = T.strip_newtype(a.type), T.strip_newtype(b.type)
        if not isinstance(ta, T.BitType) or not isinstance(tb, T.BitType):
            raise P4TypeError.at(e.pos, f"cannot concatenate {a.type} and {b.type}")
        t = T.BitType(ta.width + tb.width, ta.signed)
        if a.is_const and b.is_const:
            v = ((a.const & mask(ta.width)) << tb.width) | (b.const & mask(tb.width))
            return const_v(wrap_value(v, t), t)
        code = f"({as_bits(a.code, ta)} << {tb.width} | {as_bits(b.code, tb)})"
        return V(wrap_code(code, t) if t.signed else code, t)

    def equality_expr(self, e: A.Binary, a: V, b: V) -> V:
        a, b = self.unify(a, b, e.pos, e.op)
        if isinstance(a.type, T.ListType) and not isinstance(b.type, T.ListType):
            a = self.convert(a, b.type, e.pos)
        if isinstance(b.type, T.ListType) and not isinstance(a.type, T.ListType):
            b = self.convert(b, a.type, e.pos)
        neg = "not " if e.op == "!=" else ""
        if a.is_const and b.is_const and not isinstance(a.const, list | dict):
            return const_v((a.const == b.const) != (e.op == "!="), T.BOOL)
        return V(f"({neg}_eq({a.code}, {b.code}))", T.BOOL)

    def cast_expr(self, e: A.Cast) -> V:  # noqa: C901
        target = self.gen.types.resolve_type(e.to)
        tt = T.strip_newtype(target)
        v = self.expr(e.operand, target)
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
                    return const_v(int(v.const), target)
                return V(f"int({v.code})", target)
            if isinstance(st, T.EnumType) and st.underlying is not None:
                st = st.underlying
            if isinstance(st, T.IntLiteralType | T.BitType):
                if v.is_const:
                    return const_v(wrap_value(v.const, tt), target)
                if isinstance(st, T.BitType):
                    if st.width <= tt.width and st.signed == tt.signed:
                        return V(v.code, target)
                    if not st.signed and st.width <= tt.width:
                        return V(v.code, target)
                return V(wrap_code(v.code, tt), target)
        if isinstance(tt, T.BoolType):
            if isinstance(st, T.BoolType):
                return v
            if isinstance(st, T.BitType | T.IntLiteralType):
                if v.is_const:
                    return const_v(bool(v.const), T.BOOL)
                return V(f"({v.code} != 0)", T.BOOL)
        if isinstance(tt, T.EnumType) and tt.underlying is not None:
            if isinstance(st, T.BitType | T.IntLiteralType | T.EnumType):
                if v.is_const:
                    return const_v(wrap_value(v.const, tt.underlying), target)
                return V(wrap_code(v.code, tt.underlying), target)
        if isinstance(tt, T.IntLiteralType) and v.is_const:
            return const_v(v.const, T.INT)
        if isinstance(tt, T.IntLiteralType) and isinstance(st, T.BitType):
            # (int)x of a run-time bit<W> or int<W>: p4c-bm2-ss gives `int` no width and
            # masks x with it, so on BMv2 the cast is 0 whatever x is; softswitch computes
            # the same (and says so)
            self.st.warn(
                e.pos,
                "(int) of a run-time value: p4c-bm2-ss compiles it to 0 for BMv2, and so "
                "does softswitch",
            )
            return V(f"({v.code} & 0)", T.INT)
        if T.same_type(st, tt):
            return V(v.code, target, v.const)
        raise P4TypeError.at(e.pos, f"cannot cast {v.type} to {target}")


def _as_number(v: V) -> V:
    """`v` as an operand: a serializable enum's value as its underlying type."""
    t = as_number(v.type)
    return v if t is v.type else V(v.code, t, v.const)


def _reindent(lines: list[str]) -> list[str]:
    """Captured lines one level deeper (they were generated at the enclosing depth)."""
    return ["    " + ln if ln else ln for ln in lines]


_PYCMP = {
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "<=": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
}


def _div(x: int, y: int, m: int) -> int:
    return 0 if y == 0 else x // y


def _mod(x: int, y: int, m: int) -> int:
    return 0 if y == 0 else x % y
