"""Which explicit casts a program may write: p4c's rules, so that softswitch refuses what
p4c-bm2-ss refuses.

A run-time value changes its width or its signedness in one cast, not both
(`(bit<32>)(bit<8>)x` for an `int<8> x`); `bool` and `bit<1>` cast to each other; a
serializable enum and a `type` cast only to and from their own underlying type. A
compile-time constant may change width and signedness at once, and `bool` constants cast
to any `bit<W>` or `int<W>`; an integer literal casts to `bool` only when it is 0 or 1.
"""

from __future__ import annotations

from typing import Any

from ..frontend import types as T

__all__ = ["cast_refusal"]


def cast_refusal(src: T.P4Type, tgt: T.P4Type, const: Any) -> str | None:
    """Why p4c refuses `(tgt)e` for an `e` of type `src` (`const` its value when known at
    compile time, else None), or None when the cast is allowed. Casts of lists, tuples and
    structs are not judged here."""
    if isinstance(src, T.ListType | T.TupleType | T.StructLikeType | T.TypeVar) or isinstance(
        tgt, T.StructLikeType | T.TypeVar | T.DontCareType
    ):
        return None
    if T.same_type(src, tgt):
        return None
    if isinstance(src, T.IntLiteralType):
        if isinstance(tgt, T.BoolType) and const not in (None, 0, 1):
            return "only 0 and 1 can be cast to bool"
        return None
    if (
        isinstance(src, T.EnumType)
        and isinstance(tgt, T.EnumType)
        and src.underlying is not None
        and tgt.underlying is not None
        and T.same_type(src.underlying, tgt.underlying)
    ):
        return None  # one serializable enum to another over the same type
    for named, other in ((tgt, src), (src, tgt)):
        base = _own_type(named)
        if base is not None:
            if T.same_type(base, other):
                return None
            return f"cannot cast {src} to {tgt}: {named} casts only to and from {base}"
    if isinstance(tgt, T.BoolType) and isinstance(src, T.BitType):
        if src.width == 1 and not src.signed:
            return None
        return "only bit<1> values can be cast to bool"
    if isinstance(src, T.BoolType) and isinstance(tgt, T.BitType):
        if const is not None or (tgt.width == 1 and not tgt.signed):
            return None
        return f"cannot cast bool to {tgt} (only to bit<1>)"
    if isinstance(src, T.BitType) and isinstance(tgt, T.BitType):
        if const is None and src.signed != tgt.signed and src.width != tgt.width:
            return (
                f"cannot cast {src} to {tgt}: a cast changes the width or the signedness,"
                f" not both (cast to {'int' if tgt.signed else 'bit'}<{src.width}> first)"
            )
    return None


def _own_type(t: T.P4Type) -> T.P4Type | None:
    """The one type a `type` or a serializable enum casts to and from, else None."""
    if isinstance(t, T.NewType):
        return t.base
    if isinstance(t, T.EnumType):
        return t.underlying
    return None
