"""What the operators take: p4c's rules for serializable enums, `type`s, shift amounts and
`?:`, so that softswitch accepts and refuses what p4c-bm2-ss does.

- A serializable enum is a number to the operators: in arithmetic, comparisons, shifts,
  concatenation and `-`/`~` it stands for its underlying value (`e + 1`, `e < E.B`,
  `e == 1`); only `==` and `!=` between two values of the same enum keep the enum.
- A `type` is not: its values compare with `==` and `!=` to values of the same type only;
  no other operator, no slice, and no implicit conversion to or from its underlying type
  (a cast is needed). It may be a shift amount.
- A shift amount is a number: unsigned, or a constant that is not negative; p4c-bm2-ss refuses a
  constant amount above 256.
- The two values of `?:` have one type: an integer literal takes the other's width when
  that is `bit<W>` or `int<W>`, two literals have none (p4c refuses them, but where it folds the expression
  before checking types: widths, sizes, indexes), and an enum or a
  `type` is not converted.
"""

from __future__ import annotations

from typing import Any

from ..frontend import types as T

__all__ = [
    "MAX_CONST_SHIFT",
    "as_number",
    "conditional_refusal",
    "operator_refusal",
    "shift_amount_refusal",
]

MAX_CONST_SHIFT = 256  # p4c-bm2-ss: "shift amount limited to 256 on this target"


def as_number(t: T.P4Type) -> T.P4Type:
    """The type a value of type `t` has as an operand: a serializable enum's underlying
    type, else `t` itself."""
    if isinstance(t, T.EnumType) and t.underlying is not None:
        return t.underlying
    return t


def operator_refusal(op: str, a: T.P4Type, b: T.P4Type | None = None) -> str | None:
    """Why p4c refuses `a op b` (or the unary `op a` when `b` is None, a slice for op
    "[:]") because an operand is a `type`, else None."""
    if b is None:
        if isinstance(a, T.NewType):
            if op == "[:]":
                return f"cannot slice a value of type {a}: slices take bit<W> and int<W> only"
            return f"operator {op} does not apply to {a}"
        return None
    if op in ("<<", ">>"):
        if isinstance(a, T.NewType):
            return f"operator {op} does not apply to {a}"
        return None  # the amount may be a `type`
    if not isinstance(a, T.NewType) and not isinstance(b, T.NewType):
        return None
    if op in ("==", "!="):
        if T.same_type(a, b):
            return None
        return f"a value of type {a} cannot be compared to one of type {b}"
    named = a if isinstance(a, T.NewType) else b
    return f"operator {op} does not apply to {named}"


def shift_amount_refusal(amount: T.P4Type, const: Any, literal_base: bool = False) -> str | None:
    """Why p4c-bm2-ss refuses a shift by a value of type `amount` (`const` its value when
    known at compile time), else None. `literal_base`: the shifted value is an integer
    literal, folded at compile time, so any non-negative amount does."""
    if isinstance(const, int) and not isinstance(const, bool):
        if const < 0:
            return "shifts by negative amounts are not permitted"
        if const > MAX_CONST_SHIFT and not literal_base:
            return f"shift amount limited to {MAX_CONST_SHIFT} on this target"
        return None
    t = as_number(T.strip_newtype(amount))
    if isinstance(t, T.BitType) and t.signed:
        return "shift amount must be unsigned"
    if not isinstance(t, T.BitType | T.IntLiteralType):
        return f"cannot shift by a value of type {amount}"
    return None


def conditional_refusal(a: T.P4Type, b: T.P4Type, folding: bool = False) -> str | None:
    """Why p4c refuses `c ? x : y` for an `x` of type `a` and a `y` of type `b`, else None
    (the types are then one, or a literal and a bit<W> or int<W>). `folding`: the
    expression is a width, a size or an index, which p4c computes before it checks types,
    so two literals are allowed there (`bit<(N == 1 ? 1 : N + 1)>`)."""
    if isinstance(a, T.IntLiteralType) and isinstance(b, T.IntLiteralType) and not folding:
        return "?: needs a width for at least one of its values (8w1, not 1)"
    if T.same_type(a, b):
        return None
    literal = isinstance(a, T.IntLiteralType) or isinstance(b, T.IntLiteralType)
    other = b if isinstance(a, T.IntLiteralType) else a
    if literal and isinstance(other, T.BitType):
        return None
    if isinstance(a, T.NewType | T.EnumType) or isinstance(b, T.NewType | T.EnumType):
        return f"?: values of types {a} and {b}: they must have one type"
    return None
