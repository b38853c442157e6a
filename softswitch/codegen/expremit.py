"""The expression emitter: typed IR (`ir.Expr`) -> Python code with exact P4 bit semantics.

Every value of type bit<W> is a Python int in [0, 2^W); int<W> is a Python int in
[-2^(W-1), 2^(W-1)). Each operator that can leave that range wraps its result right away,
so no value outside its range is ever stored. What the checker folded is a literal here.

The emitter writes the statements an expression needs (the `if` of a `?:` or `&&` whose
operand needs statements, saved operands, a call's statements) to the current output and
returns the value's code. It raises no type error: the checker (`exprcheck`) found them.
"""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING, Any

from ..frontend import types as T
from . import ir
from .values import V, as_bits, field_py, is_literal_code, mask, wrap_code

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState

__all__ = ["ExprEmitter", "bits_op_code"]

# a variable or a chain of attribute reads: reading it twice gives the same value
_PLAIN = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _tuple_code(codes: list[str]) -> str:
    return f"({', '.join(codes)}{',' if len(codes) == 1 else ''})"


class ExprEmitter:
    """Writes the code of checked expressions (see the module docstring)."""

    __slots__ = ("done", "gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the types part: copies and zero values of aggregates
        self.done: dict[int, V] = {}  # node id -> its value, within one `emit`

    def emit(self, node: ir.Expr) -> V:
        """The value of `node` (its statements written to the current output first)."""
        saved = self.done
        self.done = {}
        try:
            return self.value(node)
        finally:
            self.done = saved

    def value(self, node: ir.Expr) -> V:
        """`node`'s value; a node met again (an item of a converted list, an operand
        saved by `InOrder`) is the value it had, with no code written twice."""
        got = self.done.get(id(node))
        if got is None:
            got = self.done[id(node)] = self._value(node)
        return got

    def _code(self, node: ir.Expr) -> str:
        return self.value(node).code

    def _value(self, n: ir.Expr) -> V:  # noqa: C901
        if isinstance(n, ir.Constant):
            return V(repr(n.const), n.type, n.const)
        if isinstance(n, ir.ConstRef):
            return V(n.sym.py, n.type, n.const)
        if isinstance(n, ir.VarRef):
            return V(n.sym.py, n.type)
        if isinstance(n, ir.SymRef):
            return V(getattr(n.sym, "py", ""), n.type)
        if isinstance(n, ir.Generated):
            return self.generated(n)
        if isinstance(n, ir.DontCareValue):
            return V("_", n.type)
        if isinstance(n, ir.InvalidValue):
            return V(self.gen.types.zero_code(n.type), n.type)
        if isinstance(n, ir.Retype):
            inner = self.value(n.operand)
            return V(inner.code, n.type, inner.const if n.const is not None else None)
        if isinstance(n, ir.Wrap):
            return V(wrap_code(self._code(n.operand), n.bits), n.type)
        if isinstance(n, ir.BoolToBit):
            return V(f"int({self._code(n.operand)})", n.type)
        if isinstance(n, ir.BitToBool):
            return V(f"({self._code(n.operand)} != 0)", n.type)
        if isinstance(n, ir.IntOfRuntime):
            return V(f"({self._code(n.operand)} & 0)", n.type)
        if isinstance(n, ir.BuildStruct | ir.BuildTuple | ir.BuildStack):
            return self.build(n)
        if isinstance(n, ir.Field):
            return V(f"{self._code(n.base)}.{field_py(n.name)}", n.type)
        if isinstance(n, ir.StackMember):
            return self.stack_member(n)
        if isinstance(n, ir.ApplyMember):
            return self.apply_member(n)
        if isinstance(n, ir.StackIndex):
            base, idx = self.value(n.base), self.value(n.index)
            if idx.is_const:
                return V(f"{base.code}.h[{idx.const}]", n.type)
            return V(f"{base.code}.at({idx.code})", n.type)
        if isinstance(n, ir.TupleIndex):
            return V(f"{self._code(n.base)}[{n.index}]", n.type)
        if isinstance(n, ir.Slice):
            src = as_bits(self._code(n.base), n.bits)
            w = n.hi - n.lo + 1
            if n.lo == 0:
                return V(f"({src} & {mask(w)})", n.type)
            return V(f"({src} >> {n.lo} & {mask(w)})", n.type)
        return self.operator(n)

    def operator(self, n: ir.Expr) -> V:  # noqa: C901
        if isinstance(n, ir.Not):
            return V(f"(not {self._code(n.operand)})", n.type)
        if isinstance(n, ir.Complement):
            x = self._code(n.operand)
            if n.bits.signed:
                return V(f"(~{x})", n.type)
            return V(f"({x} ^ {mask(n.bits.width)})", n.type)
        if isinstance(n, ir.Negate):
            return V(wrap_code(f"-{self._code(n.operand)}", n.bits), n.type)
        if isinstance(n, ir.Logical):
            a, b = self._code(n.left), self._code(n.right)
            return V(f"({a} {'and' if n.op == '&&' else 'or'} {b})", n.type)
        if isinstance(n, ir.ShortCircuit):
            return self.short_circuit(n)
        if isinstance(n, ir.PlainOp):
            a, b = self._code(n.left), self._code(n.right)
            return V(f"({a} {n.op} {b})", n.type)
        if isinstance(n, ir.BitsOp):
            a, b = self._code(n.left), self._code(n.right)
            return V(bits_op_code(n.op, a, b, n.bits), n.type)
        if isinstance(n, ir.DivideZero):
            return V(f"({self._code(n.right)}, 0)[1]", n.type)
        if isinstance(n, ir.ShiftLeft):
            return self.shift_left(n)
        if isinstance(n, ir.Concat):
            a, b = self._code(n.left), self._code(n.right)
            code = f"({as_bits(a, n.lbits)} << {n.rbits.width} | {as_bits(b, n.rbits)})"
            return V(wrap_code(code, n.bits) if n.bits.signed else code, n.type)
        if isinstance(n, ir.Equal):
            a, b = self._code(n.left), self._code(n.right)
            return V(f"({'not ' if n.negate else ''}_eq({a}, {b}))", n.type)
        if isinstance(n, ir.Select):
            c, a, b = self._code(n.cond), self._code(n.then), self._code(n.other)
            return V(f"({a} if {c} else {b})", n.type)
        if isinstance(n, ir.SelectStmt):
            return self.select_stmt(n)
        if isinstance(n, ir.Chosen):
            self.value(n.cond)
            return self.value(n.value)
        if isinstance(n, ir.ListValue):
            items = [self.value(i) for i in n.items]
            return V(_tuple_code([i.code for i in items]), n.type, items)
        if isinstance(n, ir.StructValue):
            return V("", n.type, {k: self.value(x) for k, x in n.items})
        if isinstance(n, ir.InOrder):
            return self.in_order(n)
        raise AssertionError(f"no code for {type(n).__name__}")

    # ------------------------------------------------------------ the larger nodes
    def generated(self, n: ir.Generated) -> V:
        if n.pre:
            pad = "    " * (self.st.out.depth - n.depth)
            self.st.out.lines.extend(pad + ln if ln else ln for ln in n.pre)
        const: Any = n.const
        if isinstance(const, list):
            const = [self.value(i) for i in const]
        elif isinstance(const, dict):
            const = {k: self.value(i) for k, i in const.items()}
        return V(n.code, n.type, const)

    def build(self, n: ir.BuildStruct | ir.BuildTuple | ir.BuildStack) -> V:
        t = n.type
        if isinstance(n, ir.BuildStruct):
            assert isinstance(t, T.StructLikeType)
            codes = [
                self.gen.types.copy_code(self._code(i), ft)
                for i, ft in zip(n.items, t.fields.values(), strict=True)
            ]
            valid = ", True" if t.is_header else ""
            return V(f"_mk({t.pyname}, {_tuple_code(codes)}{valid})", t)
        codes = [self._code(i) for i in n.items]
        if isinstance(n, ir.BuildTuple):
            return V(_tuple_code(codes), t)
        assert isinstance(t, T.StackType)
        return V(f"_Stack.of({t.element.pyname}, {t.size}, [{', '.join(codes)}])", t)

    def stack_member(self, n: ir.StackMember) -> V:
        base = self._code(n.base)
        if n.member == "lastIndex":
            return V(f"({base}.nxt - 1 & 0xffffffff)", n.type)
        return V(f"{base}.{n.member}()", n.type)  # next(), last()

    def apply_member(self, n: ir.ApplyMember) -> V:
        base = self._code(n.base)
        if n.member == "hit":
            return V(f"{base}[0]", n.type)
        if n.member == "miss":
            return V(f"(not {base}[0])", n.type)
        return V(f"{base}[1]", n.type)  # action_run

    def short_circuit(self, n: ir.ShortCircuit) -> V:
        out = self.st.out
        a = self._code(n.left)
        out.line(f"{n.temp} = {a}")
        out.line(f"if {n.temp}:" if n.op == "&&" else f"if not {n.temp}:")
        with out.indent():
            out.line(f"{n.temp} = {self._code(n.right)}")
        return V(n.temp, n.type)

    def select_stmt(self, n: ir.SelectStmt) -> V:
        out = self.st.out
        c = self._code(n.cond)
        out.line(f"if {c}:")
        with out.indent():
            out.line(f"{n.temp} = {self._code(n.then)}")
        out.line("else:")
        with out.indent():
            out.line(f"{n.temp} = {self._code(n.other)}")
        return V(n.temp, n.type)

    def shift_left(self, n: ir.ShiftLeft) -> V:
        a, b = self.value(n.left), self.value(n.right)
        t = n.bits
        if b.is_const:
            return V(wrap_code(f"{a.code} << {b.const}", t), n.type)
        if not t.signed and _PLAIN.fullmatch(b.code):
            # the amount is a name or a field read, safe to evaluate twice: shifted here,
            # with no call (an amount of the width or more gives 0)
            return V(
                f"((({a.code}) << {b.code}) & {mask(t.width):#x} if {b.code} < {t.width} else 0)",
                n.type,
            )
        return V(f"_shl({a.code}, {b.code}, {t.width}, {int(t.signed)})", n.type)

    def in_order(self, n: ir.InOrder) -> V:
        """The operands left to right; before the statements of one, the values computed
        so far are saved (into the checker's temporaries), then the body over them."""
        saves = iter(n.saves)
        vals: list[V] = []
        for operand in n.operands:
            v, pre = self.st.capture(partial(self.value, operand))
            if pre.lines:
                vals = [x if is_literal_code(x.code) else self._save(x, next(saves)) for x in vals]
                self.st.out.lines.extend(pre.lines)
            vals.append(v)
        if next(saves, None) is not None:
            raise AssertionError("the checker planned more saves than the operands needed")
        for operand, v in zip(n.operands, vals, strict=True):
            self.done[id(operand)] = v
        return self.value(n.body)

    def _save(self, x: V, temp: str) -> V:
        self.st.out.line(f"{temp} = {x.code}")
        return V(temp, x.type, x.const)


def bits_op_code(op: str, x: str, y: str, t: T.BitType) -> str:
    """Python code of `x op y` on values of bit<W>/int<W> `t`, wrapped to its range."""
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
