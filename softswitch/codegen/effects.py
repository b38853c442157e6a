"""What a parser or control may change: a conservative reading of its source.

Used to pass an `in` header or struct to a sub-block by reference instead of copying it
(a copy of a program's whole header struct costs more than the rest of a small control).
That is only safe when nothing in the callee can write through the parameter, so anything
that might is counted as a write: an assignment to it or into it, any call with it (or a
part of it) as an argument, any method call on it except `isValid()`.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from ..frontend import ast as A

__all__ = ["may_write"]

# methods that only read the header, stack or union they are called on
_READ_ONLY_METHODS = frozenset({"isValid"})


def _root(e: Any) -> str | None:
    """The variable an lvalue-like expression starts from (`hdr` in `hdr.ipv4.ttl`)."""
    while isinstance(e, A.Member | A.Index | A.Slice):
        e = e.base
    return e.name if isinstance(e, A.NameRef) else None


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for f in fields(node):
        if f.name in ("type", "pos"):  # checked types and positions are not source
            continue
        v = getattr(node, f.name, None)
        if isinstance(v, tuple | list):
            out.extend(x for x in v if is_dataclass(x) or isinstance(x, tuple | list))
        elif is_dataclass(v):
            out.append(v)
    return out


def may_write(decl: A.ParserDecl | A.ControlDecl, param: str) -> bool:
    """Can running `decl` change the value passed as its parameter `param`?"""
    stack: list[Any] = [decl]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple | list):
            stack.extend(node)
            continue
        if isinstance(node, A.Assign) and _root(node.target) == param:
            return True
        if isinstance(node, A.Call):
            f = node.func
            if (
                isinstance(f, A.Member)
                and _root(f.base) == param
                and f.name not in _READ_ONLY_METHODS
            ):
                return True
            if any(_root(a.value) == param for a in node.args):
                return True
        if is_dataclass(node) and type(node).__module__ == A.__name__:
            stack.extend(_children(node))
    return False
