"""Annotations as the control-plane description keeps them, structured ones (`@name[...]`)
evaluated at compile time as p4c does for P4Info.

A structured body is a list of expressions (`@a[1, "x", true]`) or of key=value pairs
(`@a[k=1, s="x"]`), a trailing comma allowed. It is read with the P4 grammar (as the
arguments of a call) and each expression is evaluated by the generator's own expression
code in the annotation's scope, so literals, constants and operators mean what they mean
anywhere in the program. Each value must come to an `int` (no width), a `string` or a
`bool`: a width-typed value (`8w5`, a `bit<8>` constant) is refused as p4c refuses it
("illegal type for structured annotation"), and so is anything not constant. The result is
kept in the control-plane description (`program_info.structured_body`) for P4Info's
`structured_annotations`.
"""

from __future__ import annotations

from typing import Protocol

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4Error, P4TypeError
from ..frontend.parse import parse_text
from ..program_info import StructuredValue, structured_body
from .values import V

__all__ = ["annots_ir", "structured_info_body"]


class Exprs(Protocol):
    """What evaluating a structured annotation needs: expressions generated in scope."""

    def expr(self, e: A.Expr, expected: T.P4Type | None = None) -> V: ...


_TYPE_ERROR = "illegal type for structured annotation; must be int, string or bool"
_NOT_CONSTANT = "structured annotation must be compile-time constant values"


def annots_ir(annots: A.Annots, exprs: Exprs) -> pinfo.Annotations:
    """Annotations as the control-plane description keeps them: (name, raw body) pairs, a
    structured annotation's body evaluated by `exprs` in the current scope."""
    return tuple(
        (a.name, structured_info_body(a, exprs) if a.structured else a.body) for a in annots
    )


def structured_info_body(ann: A.Annotation, exprs: Exprs) -> str:
    """`ann`'s body evaluated, encoded for the control-plane description. Raises
    P4TypeError at the annotation for a body p4c refuses."""
    body = ann.body.rstrip()
    body = body[:-1] if body.endswith(",") else body  # a trailing comma
    try:
        [decl] = parse_text(f"const int _sa = _sa({body});", f"@{ann.name}").decls
        assert isinstance(decl, A.ConstantDecl) and isinstance(decl.value, A.Call)
        args = decl.value.args
        if not args:
            return structured_body(None, kv=False)
        named = [a.name is not None for a in args]
        if any(named) and not all(named):
            raise P4TypeError.at(ann.pos, "either expressions or key=value pairs, not both")
        if not all(named):
            return structured_body([_value(a, exprs) for a in args], kv=False)
        pairs: list[tuple[str, StructuredValue]] = []
        for a in args:
            assert a.name is not None
            if any(k == a.name for k, _ in pairs):
                raise P4TypeError.at(ann.pos, f"duplicate key {a.name}")
            pairs.append((a.name, _value(a, exprs)))
        return structured_body(pairs, kv=True)
    except P4Error as e:  # at the annotation: the parsed text is not the program's
        raise P4TypeError.at(ann.pos, f"@{ann.name}: {e.message}") from None


def _value(arg: A.Argument, exprs: Exprs) -> StructuredValue:
    if arg.value is None:
        raise P4TypeError.at(arg.pos, f"_: {_NOT_CONSTANT}")
    v = exprs.expr(arg.value)
    t = T.strip_newtype(v.type)
    if not v.is_const:
        raise P4TypeError.at(arg.pos, _NOT_CONSTANT)
    if isinstance(t, T.IntLiteralType):
        return int(v.const)
    if isinstance(t, T.BoolType):
        return bool(v.const)
    if isinstance(t, T.StringType):
        return str(v.const)
    shown = f"{t.width}{'s' if t.signed else 'w'}{v.const}" if isinstance(t, T.BitType) else t
    raise P4TypeError.at(arg.pos, f"{shown}: {_TYPE_ERROR}")
