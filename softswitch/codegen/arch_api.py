"""What an architecture sees of the code generator, and what it must provide.

An architecture (v1model today; PSA or a TNA-like model could follow) turns extern
instances, extern calls and the package instance into generated Python. It is handed an
`ArchContext`: the few generator services it may use (resolve a type, generate an
expression, assign, emit a line, record control-plane specs) and nothing else. The
compiler (`softswitch.compiler`) picks the architecture; the code generator never imports
one, so architectures depend on this module and never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Protocol

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import Pos
from .structured import annots_ir
from .symbols import InstanceSym
from .values import V, as_bits, field_py

__all__ = [
    "ArchContext",
    "Architecture",
    "InstanceSym",
    "V",
    "annots_ir",
    "as_bits",
    "field_py",
]


class ArchContext(Protocol):
    """The generator services an architecture may use while it generates code."""

    # ------------------------------------------------------------ types and values
    def resolve_type(self, ref: A.TypeRef) -> T.P4Type: ...

    def type_of_name(self, name: str) -> T.P4Type | None:
        """The type a name in the current scope stands for (None if it has none)."""
        ...

    def annotations(self, annots: A.Annots) -> pinfo.Annotations:
        """`annots` as the control-plane description keeps them (see `annots_ir`),
        structured ones evaluated in the current scope."""
        ...

    def expr(self, e: A.Expr | None, expected: T.P4Type | None = None) -> V:
        """Generate an expression (None, an argument left out, is refused)."""
        ...

    def convert(self, v: V, target: T.P4Type, pos: Pos | None) -> V: ...

    def copy_code(self, code: str, t: T.P4Type) -> str:
        """Code for a copy of a value (structs and headers are objects)."""
        ...

    def deparse_reset(self, st: T.StructLikeType, emitted: list[str]) -> str | None:
        """The name of a generated function `f(buf, hdr)` that deparses the headers
        `emitted` (fields of the struct `st`, in order, each once) as a deparser doing
        only that would, and leaves `hdr` as `_reset_valid` would (None: no such
        function, for these headers or while tracing)."""
        ...

    def bind_args(
        self, params: tuple[A.Param, ...], args: tuple[A.Argument, ...], pos: Pos | None
    ) -> list[A.Expr | None]: ...

    def check_extern_args(
        self,
        params: tuple[A.Param, ...],
        bound: list[A.Expr | None],
        bindings: dict[str, T.P4Type],
    ) -> None: ...

    # ------------------------------------------------------------ emitting code
    def assign(self, target: A.Expr | None, v: V) -> None:
        """Emit `target = v` with P4's assignment rules."""
        ...

    def line(self, code: str) -> None:
        """Emit one line of Python at the current indentation."""
        ...

    def temp(self) -> str:
        """A new temporary variable name for the code being generated."""
        ...

    def indent(self) -> AbstractContextManager[None]: ...

    # ------------------------------------------------------------ where we are
    @property
    def block_role(self) -> str | None:
        """The package argument being generated (one of the architecture's `roles`)."""
        ...

    @property
    def struct_types(self) -> Mapping[str, T.StructLikeType]: ...

    def field_annotations(self, struct: str, name: str) -> A.Annots: ...

    # ------------------------------------------------------------ control-plane view
    def add_extern(self, spec: pinfo.ExternSpec) -> None: ...

    def has_digest(self, name: str) -> bool: ...

    def add_digest(self, spec: pinfo.DigestSpec) -> None: ...

    def add_controller_header(self, spec: pinfo.ControllerHeaderSpec) -> None: ...


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
