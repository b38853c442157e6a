"""Declaration before use, for type names.

P4_16 names a type only after its declaration (p4c's lexer knows a name as a type from
then on, so an earlier use is a syntax error). softswitch declares the top level in order
but generates parser, control, action and function bodies once everything is declared,
so a body could otherwise use a type declared below it: `check_type_order` refuses that,
at the use.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ..frontend import ast as A
from ..frontend.errors import P4TypeError

__all__ = ["check_type_order"]

# the declarations that make a name a type
_TYPE_DECLS = (
    A.StructLikeDecl,
    A.EnumDecl,
    A.TypedefDecl,
    A.ExternDecl,
    A.BlockTypeDecl,
    A.ParserDecl,
    A.ControlDecl,
)


def check_type_order(program: A.Program) -> None:
    """Raise a positioned type error at the first use of a top-level type name made
    before the name's declaration (outside a generic declaration's own type parameter)."""
    first: dict[str, int] = {}
    for i, d in enumerate(program.decls):
        if isinstance(d, _TYPE_DECLS):
            first.setdefault(d.name, i)
    for i, d in enumerate(program.decls):
        for ref in _named_refs(d, frozenset()):
            at = first.get(ref.name)
            if at is not None and at > i:
                raise P4TypeError.at(
                    ref.pos, f"{ref.name}: a type cannot be used before its declaration"
                )


def _type_params(node: Any) -> tuple[str, ...]:
    params: tuple[str, ...] = getattr(node, "type_params", ())
    proto = getattr(node, "proto", None)
    if isinstance(proto, A.Prototype):
        params += proto.type_params
    return params


def _named_refs(node: Any, generic: frozenset[str]) -> Iterator[A.NamedTypeRef]:
    """The named type references under `node` not bound by an enclosing type parameter
    (those in type positions: declarations, casts, instantiations)."""
    if isinstance(node, list | tuple):
        for item in node:
            yield from _named_refs(item, generic)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return
    if isinstance(node, A.TypeNameExpr):
        # `n.f` where `n` is also a type's name: the front end cannot tell a type from a
        # local value of that name (p4c's select-struct.p4 has a variable `s` and a
        # parser type `s` declared later), so this use is not judged
        return
    if isinstance(node, A.NamedTypeRef) and node.name not in generic:
        yield node
    params = _type_params(node)
    inner = generic | frozenset(params) if params else generic
    for f in dataclasses.fields(node):
        if f.name != "pos":
            yield from _named_refs(getattr(node, f.name), inner)
