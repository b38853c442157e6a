"""What a parser or control may change: a conservative reading of its source.

Used to pass an `in` header or struct to a sub-block by reference instead of copying it
(a copy of a program's whole header struct costs more than the rest of a small control).
That is only safe when nothing in the callee can write through the parameter, so anything
that might is counted as a write: an assignment to it or into it, any call with it (or a
part of it) as an argument, any method call on it except `isValid()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

from ..frontend import ast as A

__all__ = ["ast_nodes", "may_write", "plain_path", "root_name"]

# methods that only read the header, stack or union they are called on
_READ_ONLY_METHODS = frozenset({"isValid"})


def root_name(e: Any) -> str | None:
    """The variable an lvalue-like expression starts from (`hdr` in `hdr.ipv4.ttl`)."""
    while isinstance(e, A.Member | A.Index | A.Slice):
        e = e.base
    return e.name if isinstance(e, A.NameRef) else None


def plain_path(e: A.Expr) -> bool:
    """A name or a chain of fields and constant indexes of one (reading it again has no
    effect)."""
    while isinstance(e, A.Member | A.Index):
        if isinstance(e, A.Index) and not isinstance(e.index, A.IntLit):
            return False
        e = e.base
    return isinstance(e, A.NameRef)


def ast_nodes(root: Any) -> Iterator[Any]:
    """Every AST node under `root` (itself included; tuples and lists of nodes are
    walked), in no particular order. Checked types and positions are not source."""
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple | list):
            stack.extend(node)
            continue
        if not (is_dataclass(node) and type(node).__module__ == A.__name__):
            continue
        yield node
        for f in fields(node):
            if f.name not in ("type", "pos"):
                stack.append(getattr(node, f.name, None))


def may_write(decl: A.ParserDecl | A.ControlDecl, param: str) -> bool:
    """Can running `decl` change the value passed as its parameter `param`?"""
    for node in ast_nodes(decl):
        if isinstance(node, A.Assign) and root_name(node.target) == param:
            return True
        if isinstance(node, A.Call):
            f = node.func
            if (
                isinstance(f, A.Member)
                and root_name(f.base) == param
                and f.name not in _READ_ONLY_METHODS
            ):
                return True
            if any(root_name(a.value) == param for a in node.args):
                return True
    return False
