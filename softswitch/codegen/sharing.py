"""Which parameters a sub-control can share with the control that applies it, and
whether its body can be written out at the apply.

A control applied as `c.apply(hdr, meta, sm)` gets its header and struct arguments by
reference (see `calls.copies_back`): its parameter cells are set from the caller's at
every apply and then name the same objects. When every apply of an instance passes the
same parameters of the enclosing control in the same places, the instance's code can use
the enclosing control's cells directly: no arguments, no cells of its own to set per
packet. This module finds those parameters, reading the source conservatively: any other
use of the instance's name, a local that could shadow a parameter, a parameter passed in
two places, or one that is copied (out, or an `in` value the sub-control may write) keeps
the ordinary call. A sub-control sharing all its parameters and applied once is written
out where it is applied: no call at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..frontend import ast as A
from .effects import ast_nodes, may_write, root_name

__all__ = ["has_return", "inlinable", "shared_params"]

Binder = Callable[[tuple[A.Param, ...], tuple[A.Argument, ...], Any], list[A.Expr | None]]


def _applies(parent: A.ControlDecl, name: str) -> list[A.Call] | None:
    """The calls `name.apply(...)` in `parent`, or None when `name` is used otherwise
    (passed to a constructor, shadowed, applied from an action...)."""
    calls: list[A.Call] = []
    uses = 0
    for node in ast_nodes((parent.locals, parent.body)):
        if isinstance(node, A.NameRef) and node.name == name:
            uses += 1
        elif isinstance(node, A.Call):
            f = node.func
            if (
                isinstance(f, A.Member)
                and f.name == "apply"
                and isinstance(f.base, A.NameRef)
                and f.base.name == name
            ):
                calls.append(node)
    if uses != len(calls):
        return None
    return calls


def _declared_names(parent: A.ControlDecl) -> set[str]:
    """Names declared inside `parent` (locals, statement-level variables, parameters of
    its actions): any of them may hide a parameter of the same name."""
    names: set[str] = set()
    for node in ast_nodes((parent.locals, parent.body)):
        if isinstance(node, A.Decl | A.VarDecl | A.ConstDecl | A.ForIn | A.Param):
            names.add(node.name)
    return names


def shared_params(
    parent: A.ControlDecl,
    inst: A.Instance,
    child: A.ControlDecl,
    bind: Binder,
    is_aggregate: Callable[[A.Param], bool],
) -> dict[str, str]:
    """child parameter -> the parent parameter every apply of `inst` passes there, for the
    parameters the child can share (see the module's docstring); {} when none."""
    if inst.initializer or child.type_params or inst.name in {p.name for p in parent.params}:
        return {}
    calls = _applies(parent, inst.name)
    if not calls:
        return {}
    parent_params = {p.name for p in parent.params}
    hidden = _declared_names(parent)
    chosen: dict[str, str] | None = None
    for call in calls:
        bound = bind(child.params, call.args, call.pos)
        here: dict[str, str] = {}
        for p, a in zip(child.params, bound, strict=True):
            if not isinstance(a, A.NameRef) or a.name not in parent_params or a.name in hidden:
                continue
            if not is_aggregate(p):
                continue
            if p.direction == "inout" or (p.direction == "in" and not may_write(child, p.name)):
                here[p.name] = a.name
        # a parent parameter given in two places (or a part of it in another) is copied
        # by the ordinary call
        given = [root_name(a) for a in bound]
        here = {c: q for c, q in here.items() if given.count(q) == 1}
        chosen = here if chosen is None else {c: q for c, q in chosen.items() if here.get(c) == q}
    return chosen or {}


def inlinable(parent: A.ControlDecl, inst: A.Instance, child: A.ControlDecl) -> bool:
    """Can the body of `child` be written out where `parent` applies `inst`? When it is
    applied in one place and has no `return` inside a loop (the written-out body runs in
    a loop of its own that a `return` leaves); the caller also needs every parameter
    shared."""
    calls = _applies(parent, inst.name)
    if calls is None or len(calls) != 1:
        return False
    loops = [n for n in ast_nodes(child.body) if isinstance(n, A.For | A.ForIn)]
    return not any(isinstance(n, A.Return) for loop in loops for n in ast_nodes(loop))


def has_return(child: A.ControlDecl) -> bool:
    return any(isinstance(n, A.Return) for n in ast_nodes(child.body))
