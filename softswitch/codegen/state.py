"""What the parts of the code generator share while they generate one program.

`GenState` holds the program, the architecture, the name
scopes, the output buffers, where generation is (instance, function, action, parser,
loop, dead branch), the control-plane description being recorded, and the counters that
make generated names unique. Every part (types, expressions, calls, statements, tables,
blocks) reads and writes this one object; none keeps state of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4Unsupported, Pos
from .emitter import Emitter
from .symbols import Scope
from .values import is_literal_code

if TYPE_CHECKING:
    from .arch_api import Architecture

__all__ = ["CORE_ERRORS", "FuncCtx", "GenState", "InstanceCtx"]

R = TypeVar("R")

CORE_ERRORS = (
    "NoError",
    "PacketTooShort",
    "NoMatch",
    "StackOutOfBounds",
    "HeaderTooShort",
    "ParserTimeout",
    "ParserInvalidArgument",
)


@dataclass(slots=True)
class FuncCtx:
    """What `return` needs to know inside the function being generated."""

    ret: T.P4Type | None
    copy_back: list[str] = field(default_factory=list)
    strict_in: bool = False
    # a control body written out inside `while True:` where it is applied: `return`
    # leaves that loop
    breaks: bool = False


@dataclass(slots=True)
class InstanceCtx:
    """The parser/control instance being generated (its qualified name and cells)."""

    qualified: str
    cells: list[str] = field(default_factory=list)


def _global_scope() -> Scope:
    return Scope(kind="global")


def _body_emitter() -> Emitter:
    out = Emitter()
    out.depth = 1  # the body of the generated build(rt)
    return out


@dataclass(slots=True, eq=False)
class GenState:
    """The generator's shared, mutable state for one program."""

    program: A.Program
    arch: Architecture
    trace_enabled: bool = False
    # ------------------------------------------------------------ names
    global_scope: Scope = field(default_factory=_global_scope)
    scope: Scope = field(init=False)
    error_type: T.ErrorType = field(default_factory=lambda: T.ErrorType(list(CORE_ERRORS)))
    match_kind_type: T.MatchKindType = field(default_factory=lambda: T.MatchKindType([]))
    type_names: dict[str, T.P4Type] = field(default_factory=dict)
    field_annotations: dict[str, dict[str, A.Annots]] = field(default_factory=dict)
    struct_types: dict[str, T.StructLikeType] = field(default_factory=dict)
    # the type references that name a type parameter of their generic declaration (an
    # extern, extern function, parser/control/package type): they stay type variables
    # even where the program declares a type of the same name (`struct M` beside v1model's
    # `hash<O, T, D, M>`)
    type_var_refs: set[A.NamedTypeRef] = field(default_factory=set)
    odd_headers: dict[str, P4Unsupported] = field(default_factory=dict)  # BMv2 cannot hold
    # ------------------------------------------------------------ output
    classes: Emitter = field(default_factory=Emitter)  # header and struct classes
    out: Emitter = field(default_factory=_body_emitter)  # where code goes now
    hoisted: Emitter = field(default_factory=Emitter)  # the enclosing factory's prologue
    warnings: list[str] = field(default_factory=list)
    # ------------------------------------------------------------ where generation is
    inst: InstanceCtx | None = None
    func_ctx: FuncCtx | None = None
    in_action: bool = False
    action: str = ""  # the qualified name of the action being generated (in_action)
    in_parser: bool = False
    block_role: str | None = None  # the package argument being generated
    loop_depth: int = 0
    # p4c folds constant conditions and removes what is then unreachable before it
    # builds P4Info: code in a dead branch is checked but records nothing, and tables
    # never applied in live code are dropped (with their action references)
    dead: int = 0  # > 0 while generating a branch a constant condition never takes
    package_decl: A.Instance | None = None
    # ------------------------------------------------------------ control-plane view
    info: pinfo.ProgramInfo = field(default_factory=pinfo.ProgramInfo)
    applied_tables: set[str] = field(default_factory=set)
    # the tables applied on some path from the start of the block to the code being
    # generated: BMv2's pipeline is a graph in which a table has one place, so p4c-bm2-ss
    # refuses a path that applies a table twice (branches of an `if` or a `switch` join)
    path_tables: set[str] = field(default_factory=set)
    # a control instance generated as a function: the tables its body applies
    block_tables: dict[str, frozenset[str]] = field(default_factory=dict)
    table_refs: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # py, refs span
    # ------------------------------------------------------------ counters
    names: set[str] = field(default_factory=set)
    temps: int = 0

    def __post_init__(self) -> None:
        self.scope = self.global_scope

    def instance(self) -> InstanceCtx:
        """The parser or control instance being generated (asked for only inside one)."""
        if self.inst is None:
            raise AssertionError("not inside a parser or control instance")
        return self.inst

    # ------------------------------------------------------------ naming
    def unique(self, base: str) -> str:
        """A Python name not used before in the generated module, made from `base`."""
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base)
        name = base
        k = 1
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def local_name(self, name: str) -> str:
        return self.unique("v_" + name)

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def warn(self, pos: Pos, message: str) -> None:
        self.warnings.append(f"{pos}: warning: {message}")

    # ------------------------------------------------------------ output buffers
    def capture(self, fn: Callable[[], R]) -> tuple[R, Emitter]:
        """Run `fn` (which generates an expression) and return its value and the statements
        it needed, without emitting them."""
        saved = self.out
        buf = Emitter()
        buf.depth = saved.depth
        self.out = buf
        try:
            r = fn()
        finally:
            self.out = saved
        return r, buf

    def maybe_dead(self, fn: Callable[[], R], dead: bool) -> R:
        """`fn()`, recording nothing (as in a dead branch) when `dead`."""
        if not dead:
            return fn()
        self.dead += 1
        try:
            return fn()
        finally:
            self.dead -= 1

    def snapshot(self, code: str) -> str:
        """Save a value computed so far in a temporary (unless it cannot change)."""
        if is_literal_code(code):
            return code
        t = self.temp()
        self.out.line(f"{t} = {code}")
        return t
