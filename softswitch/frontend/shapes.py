"""The storage shape of P4 types, as the flow checks (`flowcheck.py`) need it.

A shape says what a value is made of: a scalar (bit, int, bool, varbit, enum, error...), a
header (fields and a validity bit), a header union, a struct, or a header stack of a known
size. Shapes are resolved straight from the AST's declarations (typedefs, type
definitions, constants for stack sizes), so the checks run without the code generator.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from . import ast as A

__all__ = ["SCALAR", "OPAQUE", "Shape", "ShapeResolver"]

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Shape:
    """`kind`: scalar, header, union, struct, stack or opaque (externs, tables, types
    the checks do not follow). `base` marks the scalars p4c calls base types (bit, int,
    bool, varbit), whose uninitialised reads read "may be uninitialized"."""

    kind: str
    fields: tuple[tuple[str, Shape], ...] = ()
    element: Shape | None = None
    size: int = 0
    base: bool = False

    @property
    def holds_headers(self) -> bool:
        return self.kind in ("header", "union", "stack") or any(
            f.holds_headers for _, f in self.fields
        )

    def field(self, name: str) -> Shape | None:
        for n, s in self.fields:
            if n == name:
                return s
        return None

    def leaves(self, path: Path) -> Iterator[Path]:
        """The paths of the scalars under `path` (validity bits are not storage here)."""
        if self.kind in ("scalar", "opaque"):
            yield path
        elif self.kind == "stack" and self.element is not None:
            for i in range(self.size):
                yield from self.element.leaves((*path, f"[{i}]"))
        else:
            for n, s in self.fields:
                yield from s.leaves((*path, n))

    def headers(self, path: Path) -> Iterator[Path]:
        """The paths of the headers under `path` (union members included)."""
        if self.kind == "header":
            yield path
        elif self.kind == "stack" and self.element is not None:
            for i in range(self.size):
                yield from self.element.headers((*path, f"[{i}]"))
        elif self.kind in ("struct", "union"):
            for n, s in self.fields:
                yield from s.headers((*path, n))


SCALAR = Shape("scalar", base=True)
OTHER_SCALAR = Shape("scalar")  # enums, error, match_kind, strings: not p4c base types
OPAQUE = Shape("opaque")


class ShapeResolver:
    """Resolves type references of one program to shapes."""

    def __init__(self, program: A.Program) -> None:
        self._decls: dict[str, A.Decl] = {}
        self._consts: dict[str, A.Expr] = {}
        for d in program.decls:
            if isinstance(d, A.StructLikeDecl | A.TypedefDecl | A.EnumDecl):
                self._decls[d.name] = d
            elif isinstance(d, A.ConstantDecl):
                self._consts[d.name] = d.value
        self._cache: dict[str, Shape] = {}

    def of(self, ref: A.TypeRef | None) -> Shape:
        if ref is None:
            return OPAQUE
        if isinstance(ref, A.BitTypeRef | A.VarbitTypeRef):
            return SCALAR
        if isinstance(ref, A.SimpleTypeRef):
            return SCALAR if ref.kind in ("bool", "int") else OTHER_SCALAR
        if isinstance(ref, A.StackTypeRef):
            size = self._int(ref.size)
            if size is None:
                return OPAQUE
            return Shape("stack", element=self.of(ref.element), size=size)
        if isinstance(ref, A.NamedTypeRef):
            return self.named(ref.name)
        return OPAQUE

    def named(self, name: str) -> Shape:
        hit = self._cache.get(name)
        if hit is not None:
            return hit
        d = self._decls.get(name)
        shape = OPAQUE
        self._cache[name] = OPAQUE  # a recursive type stays opaque
        if isinstance(d, A.TypedefDecl):
            shape = self.of(d.type_ref)
        elif isinstance(d, A.EnumDecl):
            shape = OTHER_SCALAR
        elif isinstance(d, A.StructLikeDecl) and not d.type_params:
            kind = {"header": "header", "header_union": "union"}.get(d.kind, "struct")
            fields = tuple((f.name, self.of(f.type_ref)) for f in d.fields)
            shape = Shape(kind, fields)
        elif name in ("error", "match_kind"):
            shape = OTHER_SCALAR
        self._cache[name] = shape
        return shape

    def _int(self, e: A.Expr) -> int | None:
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.NameRef) and e.name in self._consts:
            return self._int(self._consts[e.name])
        return None
