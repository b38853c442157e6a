"""Generated values and the small rules of P4's values every part of the generator shares.

`V` is what generating an expression yields: Python code, its P4 type and its value when
it is known at compile time. The helpers here wrap and mask bit patterns, name the
pseudo-type of names that are not values, and say which parameters are copied back after
a call. This module imports no other part of the generator, so every part may import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.names import field_py
from ..frontend import ast as A
from ..frontend import types as T

__all__ = [
    "DIRTY",
    "SCALAR",
    "SymType",
    "V",
    "as_bits",
    "const_v",
    "copies_back",
    "field_py",
    "header_field_ok",
    "is_literal_code",
    "is_scalar",
    "mask",
    "wrap_code",
    "wrap_value",
]


@dataclass(slots=True)
class V:
    """A generated expression: Python code, its P4 type, its value when known."""

    code: str
    type: T.P4Type
    const: Any = None

    @property
    def is_const(self) -> bool:
        return self.const is not None


class SymType(T.P4Type):
    """Pseudo-type of names that are not values (tables, instances, actions)."""

    __slots__ = ("sym",)

    def __init__(self, sym: Any) -> None:
        self.sym = sym

    def __str__(self) -> str:
        return type(self.sym).__name__


def const_v(value: Any, t: T.P4Type) -> V:
    return V(repr(value), t, value)


def is_literal_code(code: str) -> bool:
    """Is this generated code a literal (a value no statement can change)?"""
    try:
        int(code, 0)
        return True
    except ValueError:
        return code in ("True", "False", "None")


# ---------------------------------------------------------------- bit patterns
def mask(width: int) -> int:
    return (1 << width) - 1


def wrap_value(v: int, t: T.BitType) -> int:
    v &= mask(t.width)
    if t.signed and t.width and v >> (t.width - 1):
        v -= 1 << t.width
    return v


def wrap_code(code: str, t: T.BitType) -> str:
    m = mask(t.width)
    if t.signed:
        h = 1 << (t.width - 1)
        return f"((({code}) + {h} & {m}) - {h})"
    return f"(({code}) & {m})"


def as_bits(code: str, t: T.P4Type) -> str:
    """Unsigned bit pattern of a value (signed values are masked)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.BitType) and t.signed:
        return f"(({code}) & {mask(t.width)})"
    if isinstance(t, T.BoolType):
        return f"int({code})"
    return code


# ---------------------------------------------------------------- kinds of types
SCALAR = (T.BitType, T.BoolType, T.IntLiteralType, T.EnumType, T.ErrorType, T.VarbitType)


def is_scalar(t: T.P4Type) -> bool:
    return isinstance(T.strip_newtype(t), SCALAR) or isinstance(t, T.TupleType)


def header_field_ok(t: T.P4Type) -> bool:
    """May a header hold a field of type `t` (structs of such fields included)?"""
    t = T.strip_newtype(t)
    if isinstance(t, T.StructLikeType) and t.kind == "struct":
        return all(header_field_ok(ft) for ft in t.fields.values())
    return isinstance(t, T.BitType | T.VarbitType | T.BoolType | T.EnumType)


def copies_back(p: A.Param, t: T.P4Type, aggregates: bool = True) -> bool:
    """Does the caller assign this parameter's value back after the call?

    Actions and functions copy in and out every out/inout argument, as P4 prescribes
    (an action that writes `hdr.h.a` while `hdr` is its inout argument sees the copy-out
    win). Parsers and controls applied as sub-blocks get headers and structs by reference
    (`aggregates=False`): copying the whole header struct at every sub-control apply would
    cost more than the rare aliasing it guards against.
    """
    if p.direction == "out":
        return True
    return p.direction == "inout" and (aggregates or is_scalar(t))


# Generated code sets this flag wherever an invalid header may be left holding non-zero
# bits (a field written while invalid, setInvalid, a header or struct assigned, a union
# member invalidated): the switch then rewrites every header of the finished packet's
# struct, and otherwise only the valid ones (see Switch._recycle).
DIRTY = "ctx.dirty = True"
