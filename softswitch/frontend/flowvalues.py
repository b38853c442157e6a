"""The values side of the flow checks: names, places (l-values), reads and writes.

`FlowCore` holds the checker's state (the facts at the current point, the scopes, the
warnings found) and implements what expressions do to it; `flowcalls.FlowCalls` adds
calls and `flowcheck` statements and blocks. The rules are listed in flowcheck.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields, is_dataclass

from . import ast as A
from .flowfacts import MAYBE, NO, YES, Facts, Place, Ref, Var
from .shapes import Shape, ShapeResolver

__all__ = ["FlowCore"]

HEADER_METHODS = ("isValid", "setValid", "setInvalid")


class FlowCore:
    def __init__(self, program: A.Program) -> None:
        self.program = program
        self.shapes = ShapeResolver(program)
        self.found: dict[tuple[A.Pos, str], None] = {}
        self.types: dict[str, A.Decl] = {}
        self.globals: dict[str, Var | Ref] = {}
        externs: dict[str, list[A.Decl]] = {}
        for d in program.decls:
            if isinstance(d, A.ControlDecl | A.ParserDecl | A.ExternDecl | A.BlockTypeDecl):
                self.types.setdefault(d.name, d)
            elif isinstance(d, A.ActionDecl):
                self.globals[d.name] = Ref("action", (d,))
            elif isinstance(d, A.FunctionDecl):
                self.globals[d.name] = Ref("function", (d,))
            elif isinstance(d, A.ExternFunctionDecl):
                externs.setdefault(d.name, []).append(d)
            elif isinstance(d, A.Instance):
                self.globals[d.name] = Ref("instance", (d,))
            elif isinstance(d, A.ConstantDecl):
                self.globals[d.name] = Ref("const")
        for name, ds in externs.items():
            self.globals[name] = Ref("extern_fn", tuple(ds))
        self.env: list[dict[str, Var | Ref]] = [self.globals]
        self.facts = Facts()
        self.reporting = True
        self.returns: list[list[Facts]] = []
        self.used = _names_used(program.decls)  # p4c drops locals nothing reads

    def warn(self, pos: A.Pos, message: str) -> None:
        if self.reporting and self.facts.reach:
            self.found.setdefault((pos, message), None)

    @contextmanager
    def scope(self, names: dict[str, Var | Ref] | None = None) -> Iterator[None]:
        self.env.append(names if names is not None else {})
        try:
            yield
        finally:
            self.env.pop()

    def lookup(self, name: str) -> Var | Ref | None:
        name = name.lstrip(".")
        for frame in reversed(self.env):
            b = frame.get(name)
            if b is not None:
                return b
        return None

    def lookup_call(self, name: str, args: tuple[A.Argument, ...]) -> Var | Ref | None:
        """What a call of `name` with `args` calls: the innermost declaration, unless it
        cannot take the arguments and an outer one can (as the generator resolves it)."""
        name = name.lstrip(".")
        found = [b for frame in reversed(self.env) if (b := frame.get(name)) is not None]
        for b in found:
            if not isinstance(b, Ref) or _ref_accepts(b, args):
                return b
        return found[0] if found else None

    # ------------------------------------------------------------ declarations
    def new_var(self, node: object, name: str, ref: A.TypeRef | None) -> Var:
        tname = ref.name if isinstance(ref, A.NamedTypeRef) else ""
        v = Var(f"{name}@{id(node)}", self.shapes.of(ref), name, tname)
        self.env[-1][name] = v
        return v

    def declare(self, v: Var, initialised: bool) -> None:
        """A (re)declared variable: uninitialised (or not), its headers invalid/valid."""
        root = (v.root,)
        self.facts.kill(root)
        if not initialised:
            self.facts.uninit.update(v.shape.leaves(root))
        for h in v.shape.headers(root):
            self.facts.set_valid(h, YES if initialised else NO)

    # ------------------------------------------------------------ places
    def place(self, e: A.Expr) -> Place | None:
        """The storage `e` denotes, or None when it is not a variable's."""
        if isinstance(e, A.NameRef):
            b = self.lookup(e.name)
            if isinstance(b, Var):
                return Place(((b.root,),), b.shape, b.name)
            return None
        if isinstance(e, A.Member):
            base = self.place(e.base)
            if base is None:
                return None
            sh = base.shape
            if sh.kind == "stack" and e.name in ("next", "last") and sh.element is not None:
                paths = tuple((*p, f"[{i}]") for p in base.paths for i in range(sh.size))
                return Place(paths, sh.element, f"{base.text}.{e.name}", False)
            f = sh.field(e.name)
            if f is None:
                return None
            return Place(
                tuple((*p, e.name) for p in base.paths), f, f"{base.text}.{e.name}", base.exact
            )
        if isinstance(e, A.Index):
            base = self.place(e.base)
            el = base.shape.element if base is not None else None
            if base is None or el is None:
                return None
            sh = base.shape
            if isinstance(e.index, A.IntLit) and 0 <= e.index.value < sh.size:
                i = e.index.value
                paths = tuple((*p, f"[{i}]") for p in base.paths)
                return Place(paths, el, f"{base.text}[{i}]", base.exact)
            paths = tuple((*p, f"[{i}]") for p in base.paths for i in range(sh.size))
            return Place(paths, el, f"{base.text}[{_text(e.index)}]", False)
        return None

    def check_chain(self, e: A.Expr) -> None:
        """Validity checks of every header whose field `e` reaches, and reads of run-time
        stack indices on the way."""
        if isinstance(e, A.Member):
            self.check_chain(e.base)
            base = self.place(e.base)
            if base is not None and base.shape.kind == "header" and e.name not in HEADER_METHODS:
                v = self.facts.validity(base.paths)
                if v == NO:
                    self.warn(e.base.pos, f"accessing a field of an invalid header {base.text}")
                elif v == MAYBE:
                    self.warn(
                        e.base.pos, f"accessing a field of a potentially invalid header {base.text}"
                    )
        elif isinstance(e, A.Index):
            self.check_chain(e.base)
            self.read(e.index)

    def read_place(self, e: A.Expr | A.Param, place: Place) -> None:
        if any(self.facts.maybe_uninit(p) for p in place.paths):
            sh = place.shape
            if sh.kind == "scalar" and sh.base:
                self.warn(e.pos, f"{place.text} may be uninitialized")
            else:
                self.warn(e.pos, f"{place.text} may not be completely initialized")

    def write(self, e: A.Expr) -> Place | None:
        """An assignment to `e` (or an `out` argument): field checks and the write."""
        if isinstance(e, A.Slice):
            self.read(e.base)  # a slice assignment reads what it does not write
            place = self.place(e.base)
            if place is not None:
                self.kill(place)
            return None
        self.check_chain(e)
        place = self.place(e)
        if place is not None:
            self.kill(place)
        return place

    def kill(self, place: Place) -> None:
        if place.exact or place.text.endswith((".next", ".last")):
            for p in place.paths:
                self.facts.kill(p)

    def copy_validity(self, dst: Place, src: A.Expr | str) -> None:
        """Header validity of `dst` after it is assigned `src` (an expression, or YES/NO)."""
        sh = dst.shape
        if not isinstance(src, str):
            if isinstance(src, A.InvalidHeader):
                src = NO
            elif (
                isinstance(src, A.Call)
                or isinstance(src, A.StructExpr | A.ListExpr)
                and sh.kind == "header"
            ):
                src = YES
        if isinstance(src, A.ListExpr):  # positional, as p4c's StructInitializers reads it
            names = [n for n, _ in sh.fields] if sh.kind != "stack" else []
            for name, fe in zip(names, src.items, strict=False):
                fs = sh.field(name)
                if fs is not None and fs.holds_headers:
                    self.copy_validity(_sub(dst, name, fs), fe)
            return
        if isinstance(src, A.StructExpr):
            for name, fe in src.fields:
                fs = sh.field(name)
                if fs is not None and fs.holds_headers:
                    self.copy_validity(_sub(dst, name, fs), fe)
            return
        if isinstance(src, str):
            if dst.exact or src == YES:
                for p in dst.paths:
                    for h in sh.headers(p):
                        self.facts.set_valid(h, src)
            return
        sp = self.place(src)
        if sp is None or len(sp.paths) != 1 or len(dst.paths) != 1:
            return
        dpaths = list(sh.headers(dst.paths[0]))
        spaths = list(sp.shape.headers(sp.paths[0]))
        if len(dpaths) != len(spaths):
            return
        values = [self.facts.validity([q]) for q in spaths]
        for p, v in zip(dpaths, values, strict=True):
            self.facts.set_valid(p, v)

    # ------------------------------------------------------------ expressions
    def read(self, e: A.Expr | None) -> None:  # noqa: C901
        if e is None:
            return
        if isinstance(e, A.NameRef | A.Member | A.Index):
            if isinstance(e, A.Member) and isinstance(e.base, A.Call):
                self.call(e.base)  # t.apply().hit, .action_run
                return
            place = self.place(e)
            self.check_chain(e)
            if place is not None:
                self.read_place(e, place)
        elif isinstance(e, A.Call):
            self.call(e)
        elif isinstance(e, A.Slice):
            self.read(e.base)
        elif isinstance(e, A.Unary):
            self.read(e.operand)
        elif isinstance(e, A.Binary):
            self.read(e.left)
            self.read(e.right)
        elif isinstance(e, A.Conditional):
            self.read(e.cond)
            self.read(e.then)
            self.read(e.other)
        elif isinstance(e, A.Cast):
            self.read(e.operand)
        elif isinstance(e, A.ListExpr | A.TupleKeyset):
            for x in e.items:
                self.read(x)
        elif isinstance(e, A.StructExpr):
            for _, x in e.fields:
                self.read(x)
        elif isinstance(e, A.MaskKeyset):
            self.read(e.value)
            self.read(e.mask)
        elif isinstance(e, A.RangeKeyset):
            self.read(e.lo)
            self.read(e.hi)

    def assign(self, target: A.Expr, value: A.Expr) -> None:
        place = self.write(target)
        self.read(value)
        if place is not None and place.shape.holds_headers:
            self.copy_validity(place, value)

    def call(self, c: A.Call) -> None:
        raise NotImplementedError


def _names_used(node: object) -> Counter[str]:
    """How often each name is referred to under `node` (declarations do not count)."""
    out: Counter[str] = Counter()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, A.NameRef):
            out[n.name] += 1
        elif isinstance(n, tuple | list):
            todo.extend(n)
        elif is_dataclass(n) and not isinstance(n, A.Pos | A.Annotation):
            todo.extend(getattr(n, f.name) for f in fields(n) if f.name != "type")
    return out


def _sub(dst: Place, name: str, shape: Shape) -> Place:
    return Place(tuple((*p, name) for p in dst.paths), shape, f"{dst.text}.{name}", dst.exact)


def _text(e: A.Expr) -> str:
    if isinstance(e, A.NameRef):
        return e.name
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.Member):
        return f"{_text(e.base)}.{e.name}"
    return "..."


def _ref_accepts(r: Ref, args: tuple[A.Argument, ...]) -> bool:
    """Can the action, function or extern function `r` take `args`? Other names: yes."""
    for d in r.decls:
        if isinstance(d, A.ActionDecl) and A.accepts(d.params, args):
            return True
        if isinstance(d, A.FunctionDecl | A.ExternFunctionDecl) and A.accepts(d.proto.params, args):
            return True
    return not any(
        isinstance(d, A.ActionDecl | A.FunctionDecl | A.ExternFunctionDecl) for d in r.decls
    )
