"""Typed AST of P4_16 programs, as built from the lark parse tree by `builder.py`.

Nodes are plain dataclasses carrying their source position. Expression nodes have a `type`
slot that the checker fills in; everything else is immutable after building.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .annotation import Annotation as Annotation
from .annotation import Annots as Annots
from .annotation import find_annotation as find_annotation
from .errors import Pos

# ---------------------------------------------------------------- type references


@dataclass(frozen=True, slots=True)
class TypeRef:
    pos: Pos


@dataclass(frozen=True, slots=True)
class BitTypeRef(TypeRef):
    width: Expr | None  # None: `bit` alone (bit<1>)
    signed: bool = False


@dataclass(frozen=True, slots=True)
class VarbitTypeRef(TypeRef):
    width: Expr


@dataclass(frozen=True, slots=True)
class SimpleTypeRef(TypeRef):
    kind: str  # bool, error, match_kind, string, int, void, _


@dataclass(frozen=True, slots=True)
class NamedTypeRef(TypeRef):
    name: str
    args: tuple[TypeRef, ...] = ()


@dataclass(frozen=True, slots=True)
class StackTypeRef(TypeRef):
    element: TypeRef
    size: Expr


@dataclass(frozen=True, slots=True)
class TupleTypeRef(TypeRef):
    args: tuple[TypeRef, ...]


# ---------------------------------------------------------------- expressions


@dataclass(slots=True, eq=False)
class Expr:
    pos: Pos
    type: Any = field(default=None, init=False, repr=False)


@dataclass(slots=True, eq=False)
class IntLit(Expr):
    value: int
    width: int | None = None
    signed: bool = False
    base: int = 10  # as written (p4c writes a key expression's constants in that base)


@dataclass(slots=True, eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(slots=True, eq=False)
class StrLit(Expr):
    value: str


@dataclass(slots=True, eq=False)
class NameRef(Expr):
    name: str


@dataclass(slots=True, eq=False)
class TypeNameExpr(Expr):
    """A type used where an expression may stand (`E.a`, `T.minSizeInBits()`)."""

    ref: TypeRef


@dataclass(slots=True, eq=False)
class Member(Expr):
    base: Expr
    name: str


@dataclass(slots=True, eq=False)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(slots=True, eq=False)
class Slice(Expr):
    base: Expr
    hi: Expr
    lo: Expr


@dataclass(slots=True, eq=False)
class Argument:
    pos: Pos
    name: str | None
    value: Expr | None  # None: don't-care `_`


@dataclass(slots=True, eq=False)
class Call(Expr):
    func: Expr
    type_args: tuple[TypeRef, ...]
    args: tuple[Argument, ...]


@dataclass(slots=True, eq=False)
class Construct(Expr):
    """Constructor call: `T(args)` used as an expression (instances, package arguments)."""

    ref: TypeRef
    args: tuple[Argument, ...]


@dataclass(slots=True, eq=False)
class Unary(Expr):
    op: str  # ! ~ - +
    operand: Expr


@dataclass(slots=True, eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True, eq=False)
class Conditional(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(slots=True, eq=False)
class Cast(Expr):
    to: TypeRef
    operand: Expr


@dataclass(slots=True, eq=False)
class ListExpr(Expr):
    items: tuple[Expr, ...]


@dataclass(slots=True, eq=False)
class StructExpr(Expr):
    fields: tuple[tuple[str, Expr], ...]


@dataclass(slots=True, eq=False)
class InvalidHeader(Expr):
    pass


@dataclass(slots=True, eq=False)
class ErrorMember(Expr):
    name: str


@dataclass(slots=True, eq=False)
class This(Expr):
    pass


# keyset expressions (select cases and table entries)


@dataclass(slots=True, eq=False)
class MaskKeyset(Expr):
    value: Expr
    mask: Expr


@dataclass(slots=True, eq=False)
class RangeKeyset(Expr):
    lo: Expr
    hi: Expr


@dataclass(slots=True, eq=False)
class DefaultKeyset(Expr):
    pass


@dataclass(slots=True, eq=False)
class DontCare(Expr):
    pass


@dataclass(slots=True, eq=False)
class TupleKeyset(Expr):
    items: tuple[Expr, ...]


# ---------------------------------------------------------------- statements


@dataclass(slots=True, eq=False)
class Stmt:
    pos: Pos


@dataclass(slots=True, eq=False)
class Assign(Stmt):
    target: Expr
    value: Expr


@dataclass(slots=True, eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(slots=True, eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(slots=True, eq=False)
class Block(Stmt):
    stmts: tuple[Stmt, ...]
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class Exit(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(slots=True, eq=False)
class SwitchCase:
    pos: Pos
    label: Expr | None  # None: default; NameRef for action names; otherwise a value
    body: Block | None  # None: falls through to the next case


@dataclass(slots=True, eq=False)
class Switch(Stmt):
    subject: Expr
    cases: tuple[SwitchCase, ...]


@dataclass(slots=True, eq=False)
class For(Stmt):
    init: tuple[Stmt, ...]
    cond: Expr | None
    update: tuple[Stmt, ...]
    body: Stmt


@dataclass(slots=True, eq=False)
class ForIn(Stmt):
    type_ref: TypeRef
    name: str
    iterable: Expr
    body: Stmt


@dataclass(slots=True, eq=False)
class Break(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Continue(Stmt):
    pass


@dataclass(slots=True, eq=False)
class EmptyStmt(Stmt):
    pass


@dataclass(slots=True, eq=False)
class VarDecl(Stmt):
    type_ref: TypeRef
    name: str
    init: Expr | None
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ConstDecl(Stmt):
    type_ref: TypeRef
    name: str
    value: Expr
    annotations: Annots = ()


# ---------------------------------------------------------------- declarations


@dataclass(slots=True, eq=False)
class Param:
    pos: Pos
    direction: str  # "", in, out, inout
    type_ref: TypeRef
    name: str
    default: Expr | None = None
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class Decl:
    pos: Pos
    name: str


@dataclass(slots=True, eq=False)
class FieldDecl:
    pos: Pos
    type_ref: TypeRef
    name: str
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class StructLikeDecl(Decl):
    kind: str  # header, header_union, struct
    fields: tuple[FieldDecl, ...]
    annotations: Annots = ()
    type_params: tuple[str, ...] = ()


@dataclass(slots=True, eq=False)
class EnumDecl(Decl):
    members: tuple[str, ...]
    underlying: TypeRef | None = None
    values: tuple[Expr, ...] = ()
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class TypedefDecl(Decl):
    type_ref: TypeRef
    newtype: bool = False
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ErrorDecl(Decl):
    members: tuple[str, ...]


@dataclass(slots=True, eq=False)
class MatchKindDecl(Decl):
    members: tuple[str, ...]


@dataclass(slots=True, eq=False)
class Prototype:
    pos: Pos
    return_type: TypeRef
    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    annotations: Annots = ()
    abstract: bool = False


@dataclass(slots=True, eq=False)
class ExternDecl(Decl):
    type_params: tuple[str, ...]
    constructors: tuple[tuple[Param, ...], ...]
    methods: tuple[Prototype, ...]
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ExternFunctionDecl(Decl):
    proto: Prototype


@dataclass(slots=True, eq=False)
class FunctionDecl(Decl):
    proto: Prototype
    body: Block


@dataclass(slots=True, eq=False)
class BlockTypeDecl(Decl):
    """A parser, control or package *type* (no body)."""

    kind: str  # parser, control, package
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class Instance(Decl):
    type_ref: TypeRef
    args: tuple[Argument, ...]
    annotations: Annots = ()
    initializer: tuple[Decl, ...] = ()


@dataclass(slots=True, eq=False)
class ValueSetDecl(Decl):
    element: TypeRef
    size: Expr
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ConstantDecl(Decl):
    type_ref: TypeRef
    value: Expr
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class VariableDecl(Decl):
    type_ref: TypeRef
    init: Expr | None
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class SelectCase:
    pos: Pos
    keyset: Expr
    state: str


@dataclass(slots=True, eq=False)
class Select:
    pos: Pos
    keys: tuple[Expr, ...]
    cases: tuple[SelectCase, ...]


@dataclass(slots=True, eq=False)
class ParserState(Decl):
    stmts: tuple[Stmt, ...]
    transition: str | Select | None  # None: implicit reject
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ParserDecl(Decl):
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ctor_params: tuple[Param, ...]
    locals: tuple[Decl, ...]
    states: tuple[ParserState, ...]
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ActionDecl(Decl):
    params: tuple[Param, ...]
    body: Block
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class KeyElement:
    pos: Pos
    expr: Expr
    match_kind: str
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class ActionRef:
    pos: Pos
    name: str
    args: tuple[Argument, ...]
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class TableEntryDecl:
    pos: Pos
    keyset: Expr
    action: ActionRef
    priority: Expr | None = None
    annotations: Annots = ()
    is_const: bool = False  # `const` before the entry in a non-const `entries` list


@dataclass(slots=True, eq=False)
class TableProperty:
    pos: Pos
    name: str
    value: Expr
    const: bool = False
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class TableDecl(Decl):
    keys: tuple[KeyElement, ...]
    actions: tuple[ActionRef, ...]
    entries: tuple[TableEntryDecl, ...] | None
    entries_const: bool
    properties: tuple[TableProperty, ...]
    annotations: Annots = ()

    def prop(self, name: str) -> TableProperty | None:
        for p in self.properties:
            if p.name == name:
                return p
        return None


@dataclass(slots=True, eq=False)
class ControlDecl(Decl):
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ctor_params: tuple[Param, ...]
    locals: tuple[Decl, ...]
    body: Block
    annotations: Annots = ()


@dataclass(slots=True, eq=False)
class Program:
    decls: tuple[Decl, ...]


def accepts(params: tuple[Param, ...], args: tuple[Argument, ...]) -> bool:
    """Can a callable with `params` take `args` (their number and names)? A parameter
    with a default or `@optional` may be left out. p4c resolves a call by the name and
    the arguments: a callable that cannot take them does not hide an outer one that can."""
    names = {p.name for p in params}
    if any(a.name is not None and a.name not in names for a in args):
        return False
    required = sum(
        1
        for p in params
        if p.default is None and find_annotation(p.annotations, "optional") is None
    )
    return required <= len(args) <= len(params)


def keyset_items(ks: Expr) -> list[Expr]:
    """One keyset per key: the items of `(a, b)`, or of a list expression `{a, b}` (p4c
    takes one as a keyset too, `{(a)}` for one key); else the keyset itself."""
    return list(ks.items) if isinstance(ks, TupleKeyset | ListExpr) else [ks]
