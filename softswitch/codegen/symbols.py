"""Names visible to generated code: what a P4 name means and how Python reaches it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..frontend.types import P4Type


@dataclass(slots=True)
class Var:
    """A run-time value: local, parameter, control-level variable."""

    py: str
    type: P4Type
    direction: str = ""  # parameter direction, "" for locals
    cell: bool = False  # lives in an enclosing factory (needs `nonlocal` to assign)


@dataclass(slots=True)
class Const:
    """A compile-time constant."""

    value: Any
    type: P4Type
    py: str = ""


@dataclass(slots=True)
class ActionSym:
    decl: Any
    py: str
    qualified: str


@dataclass(slots=True)
class TableSym:
    decl: Any
    py: str  # the generated apply function
    qualified: str
    # the lookup expression an apply site may use itself instead of calling `py` (its
    # result then goes to the action): None when only `py` may apply the table
    lookup: str | None = None
    # how the result's action is called: `r[2]()` when no action of the table takes
    # control-plane arguments (a plain call), else with the result's arguments
    action_call: str = "{r}[2](*{r}[3])"


@dataclass(slots=True)
class InstanceSym:
    """An extern, parser or control instance."""

    type: P4Type
    py: str
    qualified: str
    decl: Any = None
    # parameters it shares with the control that applies it (see codegen/sharing.py):
    # not passed at an apply
    shared: frozenset[str] = frozenset()
    inline: InlineBody | None = None  # a body written out at its apply (no function)


@dataclass(slots=True)
class InlineBody:
    """A sub-control written out where it is applied: its declaration, its instance's
    scope (parameters, locals, tables, actions) and context, and its control-level
    variables (set again at each apply)."""

    decl: Any
    scope: Any
    inst: Any
    resets: list[tuple[str, Any]]


@dataclass(slots=True)
class FunctionSym:
    decl: Any
    py: str


@dataclass(slots=True)
class ExternFunctionSym:
    decl: Any
    # the other declarations of the name in the same scope (overloads by the number of
    # parameters: `log_msg(msg)` and `log_msg<T>(msg, data)`), the earlier first
    others: tuple[Any, ...] = ()

    def overloads(self) -> list[ExternFunctionSym]:
        """One symbol per declaration of the name, this one first."""
        return [self, *(ExternFunctionSym(d) for d in self.others)]


@dataclass(slots=True)
class TypeSym:
    type: P4Type


@dataclass(slots=True)
class ValueSetSym:
    py: str
    type: P4Type
    qualified: str


@dataclass(slots=True)
class StateSym:
    py: str
    # a transition calls the state's function and returns what it returns (the parser's
    # states form no loop), instead of returning the function for the parser's loop
    tail_call: bool = False


class Scope:
    """A chain of name tables; inner scopes shadow outer ones."""

    def __init__(self, parent: Scope | None = None, kind: str = "block") -> None:
        self.parent = parent
        self.kind = kind
        self.names: dict[str, Any] = {}

    def lookup(self, name: str) -> Any:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def lookup_all(self, name: str) -> list[Any]:
        """Every declaration of `name` in scope, the innermost first."""
        out = []
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                out.append(s.names[name])
            s = s.parent
        return out

    def define(self, name: str, sym: Any) -> None:
        self.names[name] = sym

    def child(self, kind: str = "block") -> Scope:
        return Scope(self, kind)
