"""The expressions part of the generator: P4 expressions -> Python expressions.

An expression is checked first (`exprcheck`: the typed IR of `ir`, every type error with
its position), then emitted (`expremit`: Python code with P4's bit semantics). The other
parts reach both through this part's interface (`parts.ExprsPart`), and get a `V`: the
code, its P4 type and its value when known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from . import ir
from .exprcheck import ExprChecker, of_value
from .expremit import ExprEmitter
from .values import V

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


class Exprs:
    """Check, then emit: the expressions part (see the module docstring)."""

    __slots__ = ("checker", "emitter", "gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts
        self.checker = ExprChecker(st, gen)
        self.emitter = ExprEmitter(st, gen)

    def expr(self, e: A.Expr, expected: T.P4Type | None = None) -> V:
        """The code of `e` (its statements written out first), or a type error."""
        return self.emitter.emit(self.checker.check(e, expected))

    def check(self, e: A.Expr, expected: T.P4Type | None = None) -> ir.Expr:
        """The typed IR of `e`, or a type error (nothing is written)."""
        return self.checker.check(e, expected)

    def const_int(self, e: A.Expr) -> int:
        n = self.checker.check_folded(e)
        value = self.checker.require_int(n, e)
        if ir.has_statements(n):
            self.emitter.emit(n)
        return value

    def convert(self, v: V, target: T.P4Type, pos: Any) -> V:
        """Implicit conversion of an already generated value to `target`, or a type error."""
        return self.emitter.emit(self.checker.convert(of_value(v), target, pos))

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
