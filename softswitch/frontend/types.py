"""Semantic types of P4_16 values, as the checker and the code generator see them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class P4Type:
    """Base of all semantic types."""

    def __str__(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__


@dataclass(frozen=True, slots=True)
class BitType(P4Type):
    width: int
    signed: bool = False

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True, slots=True)
class VarbitType(P4Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"


@dataclass(frozen=True, slots=True)
class IntLiteralType(P4Type):
    """The type of an arbitrary-precision integer (`int`): literals and constants."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True, slots=True)
class BoolType(P4Type):
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True, slots=True)
class StringType(P4Type):
    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True, slots=True)
class VoidType(P4Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True, slots=True)
class DontCareType(P4Type):
    def __str__(self) -> str:
        return "_"


@dataclass(eq=False, slots=True)
class ErrorType(P4Type):
    """`error`: members numbered in declaration order, core.p4's first (as BMv2 does)."""

    members: list[str] = field(default_factory=list)

    def code(self, name: str) -> int:
        return self.members.index(name)

    def __str__(self) -> str:
        return "error"


@dataclass(eq=False, slots=True)
class MatchKindType(P4Type):
    members: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "match_kind"


@dataclass(eq=False, slots=True)
class EnumType(P4Type):
    """A plain enum (values are member indices) or a serializable enum (explicit values)."""

    name: str
    members: tuple[str, ...]
    underlying: BitType | None = None
    values: dict[str, int] = field(default_factory=dict)

    def value(self, member: str) -> int:
        if self.underlying is not None:
            return self.values[member]
        return self.members.index(member)

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False, slots=True)
class StructLikeType(P4Type):
    """header, header_union or struct; `fields` keeps declaration order."""

    kind: str
    name: str
    fields: dict[str, P4Type]
    pyname: str = ""  # the generated Python class
    annotations: tuple[Any, ...] = ()

    @property
    def is_header(self) -> bool:
        return self.kind == "header"

    @property
    def is_union(self) -> bool:
        return self.kind == "header_union"

    def bit_width(self) -> int:
        total = 0
        for t in self.fields.values():
            total += width_of(t)
        return total

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False, slots=True)
class StackType(P4Type):
    element: StructLikeType
    size: int

    def __str__(self) -> str:
        return f"{self.element}[{self.size}]"


@dataclass(frozen=True, slots=True)
class TupleType(P4Type):
    elements: tuple[P4Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.elements)) + ">"


@dataclass(frozen=True, slots=True)
class ListType(P4Type):
    """Type of a `{a, b}` list expression before it is converted to its target."""

    elements: tuple[P4Type, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(map(str, self.elements)) + "}"


@dataclass(eq=False, slots=True)
class NewType(P4Type):
    """`type bit<9> PortId_t;` — a distinct type represented like its base."""

    name: str
    base: P4Type
    annotations: tuple[tuple[str, str], ...] = ()  # (name, body): P4Info echoes them

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False, slots=True)
class TypeVar(P4Type):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False, slots=True)
class ExternType(P4Type):
    name: str
    decl: Any
    args: tuple[P4Type, ...] = ()

    def __str__(self) -> str:
        if self.args:
            return f"{self.name}<{', '.join(map(str, self.args))}>"
        return self.name


@dataclass(eq=False, slots=True)
class BlockType(P4Type):
    """A parser, control or package type (declared or defined)."""

    kind: str
    name: str
    decl: Any

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False, slots=True)
class ActionType(P4Type):
    decl: Any

    def __str__(self) -> str:
        return f"action {self.decl.name}"


@dataclass(eq=False, slots=True)
class TableType(P4Type):
    decl: Any

    def __str__(self) -> str:
        return f"table {self.decl.name}"


@dataclass(frozen=True, slots=True)
class ApplyResultType(P4Type):
    table: Any

    def __str__(self) -> str:
        return "apply_result"


@dataclass(frozen=True, slots=True)
class ActionEnumType(P4Type):
    """The type of `t.apply().action_run`."""

    table: Any

    def __str__(self) -> str:
        return "action_list"


BOOL = BoolType()
INT = IntLiteralType()
VOID = VoidType()
STRING = StringType()
DONTCARE = DontCareType()


def strip_newtype(t: P4Type) -> P4Type:
    while isinstance(t, NewType):
        t = t.base
    return t


def width_of(t: P4Type) -> int:
    """Bit width of a fixed-width type (headers fields, casts, hashing)."""
    t = strip_newtype(t)
    if isinstance(t, BitType):
        return t.width
    if isinstance(t, BoolType):
        return 1
    if isinstance(t, EnumType) and t.underlying is not None:
        return t.underlying.width
    if isinstance(t, VarbitType):
        return t.max_width
    if isinstance(t, StructLikeType):
        return t.bit_width()
    if isinstance(t, StackType):
        return t.size * t.element.bit_width()
    if isinstance(t, ErrorType | EnumType):
        return 32
    raise TypeError(f"type {t} has no fixed width")


def is_numeric(t: P4Type) -> bool:
    t = strip_newtype(t)
    return isinstance(t, BitType | IntLiteralType) or (
        isinstance(t, EnumType) and t.underlying is not None
    )


def same_type(a: P4Type, b: P4Type) -> bool:
    if a is b:
        return True
    if isinstance(a, NewType) or isinstance(b, NewType):
        return isinstance(a, NewType) and isinstance(b, NewType) and a.name == b.name
    if isinstance(a, BitType | BoolType | VarbitType | IntLiteralType | StringType | TupleType):
        return a == b
    if isinstance(a, ErrorType):
        return isinstance(b, ErrorType)
    if isinstance(a, StructLikeType) and isinstance(b, StructLikeType):
        return a.name == b.name
    if isinstance(a, StackType) and isinstance(b, StackType):
        return a.size == b.size and same_type(a.element, b.element)
    if isinstance(a, EnumType) and isinstance(b, EnumType):
        return a.name == b.name
    return False
