"""The typed IR of expressions: what the expression checker makes of an `A.Expr` and
the expression emitter turns into Python code.

Every node carries its P4 type and, when it is known at compile time, its value (`const`;
for a list or struct expression its items, as nodes). Names are resolved to their
symbols; implicit conversions are nodes of their own (`Retype`, `Wrap`, `BuildStruct`,
...) and constant operations are folded into `Constant`. Evaluation order is explicit
too: where an operand needs statements of its own (a call with out arguments), `InOrder`
names the temporaries that save the operands computed before it.

Calls are not expressions of this IR yet: the calls part checks and generates them
together, and the IR keeps what it made (`Generated`: code, statements, type).

This module holds data only: it imports neither the checker nor the emitter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from ..frontend import types as T
from .symbols import Const, Var

__all__ = [
    "ApplyMember",
    "BitToBool",
    "BitsOp",
    "BoolToBit",
    "BuildStack",
    "BuildStruct",
    "BuildTuple",
    "Chosen",
    "Complement",
    "Concat",
    "ConstRef",
    "Constant",
    "DivideZero",
    "DontCareValue",
    "Equal",
    "Expr",
    "Field",
    "Generated",
    "InOrder",
    "IntOfRuntime",
    "InvalidValue",
    "ListValue",
    "Logical",
    "Negate",
    "Not",
    "PlainOp",
    "Retype",
    "Select",
    "SelectStmt",
    "ShiftLeft",
    "ShortCircuit",
    "Slice",
    "StackIndex",
    "StackMember",
    "StructValue",
    "SymRef",
    "TupleIndex",
    "VarRef",
    "Wrap",
    "children",
    "has_statements",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Expr:
    """A checked expression: its P4 type and its compile-time value (None: not known)."""

    type: T.P4Type
    const: Any = None

    @property
    def is_const(self) -> bool:
        return self.const is not None


# ---------------------------------------------------------------- leaves
@dataclass(frozen=True, slots=True, kw_only=True)
class Constant(Expr):
    """A value known at compile time (a literal or a folded operation): `const`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstRef(Expr):
    """A named compile-time constant whose value is not a number (read by its name)."""

    sym: Const


@dataclass(frozen=True, slots=True, kw_only=True)
class VarRef(Expr):
    """A run-time variable, parameter or control-level variable."""

    sym: Var


@dataclass(frozen=True, slots=True, kw_only=True)
class SymRef(Expr):
    """A name that is not a value (a table, instance, action, function, value set);
    its type is the pseudo-type `values.SymType`."""

    sym: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Generated(Expr):
    """A value another part of the generator made (a call, or a value handed in): its
    Python code and the statements it needs first (indented for `depth`)."""

    code: str
    pre: tuple[str, ...] = ()
    depth: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class DontCareValue(Expr):
    """`_` and `default` (type DONTCARE)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidValue(Expr):
    """`{#}`: an invalid header of `type`."""


# ---------------------------------------------------------------- conversions
@dataclass(frozen=True, slots=True, kw_only=True)
class Retype(Expr):
    """`operand` seen as `type` with no change of its bits (newtypes, enums with an
    underlying type, extern instances for extern parameters, widening casts)."""

    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Wrap(Expr):
    """`operand` wrapped into the range of `bits` (int to bit<W>, narrowing casts)."""

    operand: Expr
    bits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class BoolToBit(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class BitToBool(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class IntOfRuntime(Expr):
    """`(int)x` of a run-time bit<W>: 0, as p4c-bm2-ss compiles it for BMv2."""

    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildStruct(Expr):
    """A header or struct of `type` made from one value per field (each converted)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildTuple(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildStack(Expr):
    items: tuple[Expr, ...]


# ---------------------------------------------------------------- members and indexes
@dataclass(frozen=True, slots=True, kw_only=True)
class Field(Expr):
    base: Expr
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StackMember(Expr):
    """`lastIndex`, `next` or `last` of a header stack."""

    base: Expr
    member: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplyMember(Expr):
    """`hit`, `miss` or `action_run` of a table's apply result."""

    base: Expr
    member: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StackIndex(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class TupleIndex(Expr):
    base: Expr
    index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Slice(Expr):
    """`base[hi:lo]` of a run-time value of type `bits`."""

    base: Expr
    hi: int
    lo: int
    bits: T.BitType


# ---------------------------------------------------------------- operators
@dataclass(frozen=True, slots=True, kw_only=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Complement(Expr):
    operand: Expr
    bits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class Negate(Expr):
    operand: Expr
    bits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class Logical(Expr):
    """`&&` or `||` whose right operand needs no statements."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class ShortCircuit(Expr):
    """`&&` or `||` whose right operand needs statements: they run only when it is
    evaluated, the result kept in `temp`."""

    op: str
    left: Expr
    right: Expr
    temp: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlainOp(Expr):
    """`left op right` as Python computes it with no wrap: comparisons, `>>`, run-time
    int arithmetic, and the strength-reduced `/` and `%` by powers of two (`>>`, `&`)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class BitsOp(Expr):
    """An arithmetic or bitwise operator on two values of `bits`, wrapped to its range."""

    op: str
    left: Expr
    right: Expr
    bits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class DivideZero(Expr):
    """`0 / x` and `0 % x`: 0 (p4c folds it), with `right` still evaluated."""

    right: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class ShiftLeft(Expr):
    left: Expr
    right: Expr
    bits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class Concat(Expr):
    """`left ++ right`: bit patterns of `lbits` and `rbits`, the result of `bits`."""

    left: Expr
    right: Expr
    bits: T.BitType
    lbits: T.BitType
    rbits: T.BitType


@dataclass(frozen=True, slots=True, kw_only=True)
class Equal(Expr):
    """`==` or `!=` of values that are not numbers (headers, structs, tuples, ...)."""

    left: Expr
    right: Expr
    negate: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Select(Expr):
    """`cond ? then : other` with no statements in either branch."""

    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectStmt(Expr):
    """`cond ? then : other` where a branch needs statements: an `if` that leaves the
    value in `temp`."""

    cond: Expr
    then: Expr
    other: Expr
    temp: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Chosen(Expr):
    """`cond ? then : other` with a constant condition and statements in a branch: the
    condition, then the branch taken (`value`); the other one is dropped."""

    cond: Expr
    value: Expr


# ---------------------------------------------------------------- lists and order
@dataclass(frozen=True, slots=True, kw_only=True)
class ListValue(Expr):
    """A list expression; `const` holds its items."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class StructValue(Expr):
    """A struct expression `{a = .., b = ..}`; `const` maps the names to the items. It
    has no code of its own: it is a value only where it is converted to a struct."""

    items: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class InOrder(Expr):
    """`operands` evaluated left to right, then `body` (which uses them). When an operand
    needs statements, the values computed before it are saved first, each that is not a
    literal into the next of `saves`, so the statements cannot change what they read."""

    operands: tuple[Expr, ...]
    saves: tuple[str, ...]
    body: Expr


# ---------------------------------------------------------------- walking
def children(node: Expr) -> Iterator[Expr]:
    """The nodes `node` is made of (its `const` items aside)."""
    for f in fields(node):
        if f.name == "const":
            continue
        value = getattr(node, f.name)
        if isinstance(value, Expr):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Expr):
                    yield item
                elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Expr):
                    yield item[1]


def has_statements(node: Expr) -> bool:
    """Does emitting `node` write statements before its value (a call that needs them,
    or a `?:`/`&&`/`||` that becomes an `if`)?"""
    if isinstance(node, Generated):
        return bool(node.pre)
    if isinstance(node, ShortCircuit | SelectStmt):
        return True
    return any(has_statements(c) for c in children(node))
