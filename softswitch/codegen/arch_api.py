"""What an architecture sees of the code generator, and what it must provide.

An architecture (v1model today; PSA or a TNA-like model could follow) turns extern
instances, extern calls and the package instance into generated Python. It is handed an
`ArchContext`: the few generator services it may use (resolve a type, generate an
expression, assign, emit a line, record control-plane specs) and nothing else. The
compiler (`softswitch.compiler`) picks the architecture; the code generator never imports
one, so architectures depend on this module and never the other way round.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, Pos
from .structured import annots_ir
from .symbols import InstanceSym
from .values import V, as_bits, field_py

if TYPE_CHECKING:
    from .calls import Calls
    from .exprs import Exprs
    from .state import GenState
    from .stmts import Stmts
    from .typeresolve import Types

__all__ = [
    "ArchContext",
    "Architecture",
    "InstanceSym",
    "V",
    "annots_ir",
    "as_bits",
    "field_py",
]


def _given(e: A.Expr | None) -> A.Expr:
    if e is None:
        raise P4TypeError("an argument is missing", "<program>", 0, 0)
    return e


class ArchContext:
    """The generator services an architecture may use while it generates code."""

    __slots__ = ("_calls", "_exprs", "_st", "_stmts", "_types")

    def __init__(
        self, st: GenState, types: Types, exprs: Exprs, calls: Calls, stmts: Stmts
    ) -> None:
        self._st = st
        self._types = types
        self._exprs = exprs
        self._calls = calls
        self._stmts = stmts

    # ------------------------------------------------------------ types and values
    def resolve_type(self, ref: A.TypeRef) -> T.P4Type:
        return self._types.resolve_type(ref)

    def type_of_name(self, name: str) -> T.P4Type | None:
        """The type a name in the current scope stands for (None if it has none)."""
        sym = self._st.scope.lookup(name)
        t = getattr(sym, "type", None)
        return t if isinstance(t, T.P4Type) else None

    def annotations(self, annots: A.Annots) -> pinfo.Annotations:
        """`annots` as the control-plane description keeps them (see `annots_ir`),
        structured ones evaluated in the current scope."""
        return annots_ir(annots, self._exprs)

    def expr(self, e: A.Expr | None, expected: T.P4Type | None = None) -> V:
        """Generate an expression (None, an argument left out, is refused)."""
        return self._exprs.expr(_given(e), expected)

    def convert(self, v: V, target: T.P4Type, pos: Pos | None) -> V:
        return self._exprs.convert(v, target, pos)

    def copy_code(self, code: str, t: T.P4Type) -> str:
        """Code for a copy of a value (structs and headers are objects)."""
        return self._types.copy_code(code, t)

    def bind_args(
        self, params: tuple[A.Param, ...], args: tuple[A.Argument, ...], pos: Pos | None
    ) -> list[A.Expr | None]:
        return self._calls.bind_args(params, args, pos)

    def check_extern_args(
        self,
        params: tuple[A.Param, ...],
        bound: list[A.Expr | None],
        bindings: dict[str, T.P4Type],
    ) -> None:
        self._calls.check_extern_args(params, bound, bindings)

    # ------------------------------------------------------------ emitting code
    def assign(self, target: A.Expr | None, v: V) -> None:
        """Emit `target = v` with P4's assignment rules."""
        self._stmts.assign(_given(target), v)

    def line(self, code: str) -> None:
        """Emit one line of Python at the current indentation."""
        self._st.out.line(code)

    def temp(self) -> str:
        """A new temporary variable name for the code being generated."""
        return self._st.temp()

    @contextmanager
    def indent(self) -> Iterator[None]:
        with self._st.out.indent():
            yield

    # ------------------------------------------------------------ where we are
    @property
    def block_role(self) -> str | None:
        """The package argument being generated (one of the architecture's `roles`)."""
        return self._st.block_role

    @property
    def struct_types(self) -> Mapping[str, T.StructLikeType]:
        return self._st.struct_types

    def field_annotations(self, struct: str, name: str) -> A.Annots:
        return self._st.field_annotations.get(struct, {}).get(name, ())

    # ------------------------------------------------------------ control-plane view
    def add_extern(self, spec: pinfo.ExternSpec) -> None:
        self._st.info.externs[spec.name] = spec

    def has_digest(self, name: str) -> bool:
        return name in self._st.info.digests

    def add_digest(self, spec: pinfo.DigestSpec) -> None:
        self._st.info.digests[spec.name] = spec

    def add_controller_header(self, spec: pinfo.ControllerHeaderSpec) -> None:
        self._st.info.controller_headers[spec.name] = spec


class Architecture(Protocol):
    """A target architecture: its package, its externs and the code they become."""

    name: str
    # the package's block arguments in order (the generator tells the architecture which
    # one it is generating through ArchContext.block_role)
    roles: tuple[str, ...]
    # lines placed at the top of the generated module (imports of run-time helpers)
    preamble: tuple[str, ...]

    def instantiate(
        self, cx: ArchContext, sym: InstanceSym, decl: A.Instance, in_place: bool = False
    ) -> None:
        """Emit the creation of an extern instance and record its spec."""
        ...

    def extern_method(
        self, cx: ArchContext, sym: InstanceSym, method: str, call: A.Call, statement: bool
    ) -> V:
        """Code for a method call on an extern instance."""
        ...

    def extern_function(
        self, cx: ArchContext, decl: A.ExternFunctionDecl, call: A.Call, statement: bool
    ) -> V:
        """Code for a call of an extern function."""
        ...

    def check_block(self, cx: ArchContext, role: str, arg: A.Expr) -> None:
        """Refuse a package argument the target cannot run in that role."""
        ...

    def package(self, cx: ArchContext, decl: A.Instance, blocks: list[InstanceSym]) -> None:
        """Emit the `return` of build(): the blocks in the order the target runs them."""
        ...
