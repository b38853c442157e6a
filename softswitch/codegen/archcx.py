"""The context an architecture is handed (`arch_api.ArchContext`), over the generator."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, Pos
from .parts import Parts
from .state import GenState
from .structured import annots_ir
from .values import V

__all__ = ["GenArchContext"]


def _given(e: A.Expr | None) -> A.Expr:
    if e is None:
        raise P4TypeError("an argument is missing", "<program>", 0, 0)
    return e


class GenArchContext:
    """The `ArchContext` of one program: the generator's services over its state and parts."""

    __slots__ = ("_parts", "_st")

    def __init__(self, st: GenState, parts: Parts) -> None:
        self._st = st
        self._parts = parts

    # ------------------------------------------------------------ types and values
    def resolve_type(self, ref: A.TypeRef) -> T.P4Type:
        return self._parts.types.resolve_type(ref)

    def type_of_name(self, name: str) -> T.P4Type | None:
        """The type a name in the current scope stands for (None if it has none)."""
        sym = self._st.scope.lookup(name)
        t = getattr(sym, "type", None)
        return t if isinstance(t, T.P4Type) else None

    def annotations(self, annots: A.Annots) -> pinfo.Annotations:
        """`annots` as the control-plane description keeps them (see `annots_ir`),
        structured ones evaluated in the current scope."""
        return annots_ir(annots, self._parts.exprs)

    def expr(self, e: A.Expr | None, expected: T.P4Type | None = None) -> V:
        """Generate an expression (None, an argument left out, is refused)."""
        return self._parts.exprs.expr(_given(e), expected)

    def convert(self, v: V, target: T.P4Type, pos: Pos | None) -> V:
        return self._parts.exprs.convert(v, target, pos)

    def copy_code(self, code: str, t: T.P4Type) -> str:
        """Code for a copy of a value (structs and headers are objects)."""
        return self._parts.types.copy_code(code, t)

    def deparse_reset(self, st: T.StructLikeType, emitted: list[str]) -> str | None:
        """The name of a generated function `f(buf, hdr)` that deparses the headers
        `emitted` (fields of the struct `st`, in order, each once) as a deparser doing
        only that would, and leaves `hdr` as `_reset_valid` would (None: no such
        function, for these headers or while tracing)."""
        if self._st.trace_enabled:  # the deparser's trace events come from its own code
            return None
        return self._parts.types.deparse_reset(st, emitted)

    def bind_args(
        self, params: tuple[A.Param, ...], args: tuple[A.Argument, ...], pos: Pos | None
    ) -> list[A.Expr | None]:
        return self._parts.calls.bind_args(params, args, pos)

    def check_extern_args(
        self,
        params: tuple[A.Param, ...],
        bound: list[A.Expr | None],
        bindings: dict[str, T.P4Type],
    ) -> None:
        self._parts.calls.check_extern_args(params, bound, bindings)

    # ------------------------------------------------------------ emitting code
    def assign(self, target: A.Expr | None, v: V) -> None:
        """Emit `target = v` with P4's assignment rules."""
        self._parts.stmts.assign(_given(target), v)

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
