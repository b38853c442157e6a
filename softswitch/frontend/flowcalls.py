"""Calls in the flow checks: header methods, externs, sub-blocks, functions, actions
(analysed in place, as p4c does) and tables (each action from the key's facts)."""

from __future__ import annotations

from . import ast as A
from .flowfacts import NO, YES, Facts, Path, Place, Ref, Var, join
from .flowvalues import HEADER_METHODS, FlowCore

__all__ = ["FlowCalls"]


class FlowCalls(FlowCore):
    def stmt(self, s: A.Stmt) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ calls
    def call(self, c: A.Call) -> None:  # noqa: C901
        f = c.func
        if isinstance(f, A.Member):
            base = self.place(f.base)
            if (
                base is not None
                and f.name in HEADER_METHODS
                and base.shape.kind in ("header", "union")
            ):
                self.header_method(f, base)
                return
            if (
                base is not None
                and base.shape.kind == "stack"
                and f.name in ("push_front", "pop_front")
            ):
                for p in base.paths:
                    for h in base.shape.headers(p):
                        self.facts.set_valid(h, YES)
                return
            if f.name == "apply":
                if isinstance(f.base, A.TypeNameExpr) and isinstance(f.base.ref, A.NamedTypeRef):
                    self.block_apply(self.types.get(f.base.ref.name), c.args)
                    return
                b = self.lookup(f.base.name) if isinstance(f.base, A.NameRef) else None
                if isinstance(b, Ref) and b.kind == "table":
                    assert isinstance(b.decls[0], A.TableDecl)
                    self.table_apply(b.decls[0])
                    return
                if isinstance(b, Ref) and b.kind == "instance":
                    self.block_apply(self.types.get(_type_name(b.decls[0])), c.args)
                    return
            self.extern_method(f, c.args)
            return
        if isinstance(f, A.NameRef):
            b = self.lookup_call(f.name, c.args)
            if isinstance(b, Ref) and b.kind == "action":
                assert isinstance(b.decls[0], A.ActionDecl)
                self.action_call(b.decls[0], c.args)
                return
            if isinstance(b, Ref) and b.kind == "function":
                fd = b.decls[0]
                assert isinstance(fd, A.FunctionDecl)
                self.pass_args(fd.proto.params, c.args, sets_headers=False)
                return
            if isinstance(b, Ref) and b.kind == "extern_fn":
                protos = [d.proto for d in b.decls if isinstance(d, A.ExternFunctionDecl)]
                self.pass_args(_pick(protos, len(c.args)), c.args, sets_headers=True)
                return
        self.pass_args(None, c.args, sets_headers=True)

    def header_method(self, f: A.Member, base: Place) -> None:
        self.check_chain(f.base)
        if f.name == "isValid":
            for p in base.paths:
                self.facts.quiet.add(p)
                self.facts.quiet.update(base.shape.headers(p))
            return
        value = YES if f.name == "setValid" else NO
        if not base.exact and value == NO:
            return  # p4c does not invalidate a whole stack for one unknown element
        parent = self.union_of(f.base)
        if parent is not None and value == YES:
            for p in parent.paths:
                for h in parent.shape.headers(p):
                    self.facts.set_valid(h, NO)
        for p in base.paths:
            for h in base.shape.headers(p):
                self.facts.set_valid(h, value)

    def union_of(self, e: A.Expr) -> Place | None:
        if isinstance(e, A.Member):
            up = self.place(e.base)
            if up is not None and up.shape.kind == "union":
                return up
        return None

    def extern_method(self, f: A.Member, args: tuple[A.Argument, ...]) -> None:
        b = self.lookup(f.base.name) if isinstance(f.base, A.NameRef) else None
        tname = ""
        if isinstance(b, Var):
            tname = b.type_name
        elif isinstance(b, Ref) and b.kind == "instance":
            tname = _type_name(b.decls[0])
        ext = self.types.get(tname)
        if isinstance(ext, A.ExternDecl):
            protos = [m for m in ext.methods if m.name == f.name]
            self.pass_args(_pick(protos, len(args)), args, sets_headers=True)
        else:
            self.pass_args(None, args, sets_headers=True)

    def block_apply(self, d: A.Decl | None, args: tuple[A.Argument, ...]) -> None:
        params = d.params if isinstance(d, A.ControlDecl | A.ParserDecl | A.BlockTypeDecl) else None
        self.pass_args(params, args, sets_headers=True)

    def pass_args(
        self, params: tuple[A.Param, ...] | None, args: tuple[A.Argument, ...], sets_headers: bool
    ) -> None:
        """Copy-in reads, then copy-out writes (and, for externs and sub-blocks, valid
        headers) of a call whose body is not analysed. Unknown callees only write."""
        bound = _bind(params, args)
        for p, a in bound:
            if p is not None and p.direction != "out":
                self.read(a)
        for p, a in bound:
            if p is None or p.direction in ("out", "inout"):
                place = self.write(a) if p is not None else self.place(a)
                if place is None:
                    continue
                if p is None:
                    self.kill(place)
                if sets_headers and place.shape.holds_headers:
                    self.copy_validity(place, YES)

    def action_call(
        self, d: A.ActionDecl, args: tuple[A.Argument, ...], from_table: bool = False
    ) -> None:
        """Analyse an action's body here, its parameters bound to the arguments given;
        the others are the control plane's (initialised, headers valid)."""
        bound = {id(p): a for p, a in _bind(d.params, args) if p is not None}
        incoming: list[tuple[A.Param, A.Expr | None, list[str] | None]] = []
        for p in d.params:  # copy-in, in the caller's scope
            a = bound.get(id(p))
            values: list[str] | None = None
            if a is not None and p.direction != "out":
                self.read(a)
                src = self.place(a)
                if src is not None and len(src.paths) == 1:
                    values = [self.facts.validity([q]) for q in src.shape.headers(src.paths[0])]
                elif isinstance(a, A.InvalidHeader):
                    values = [NO]
            incoming.append((p, a, values))
        params: list[tuple[A.Param, Var, A.Expr | None]] = []
        with self.scope():
            for p, a, values in incoming:
                v = self.new_var(p, p.name, p.type_ref)
                self.declare(v, p.direction != "out")
                heads = list(v.shape.headers((v.root,)))
                if values is not None and len(values) == len(heads):
                    for h, val in zip(heads, values, strict=True):
                        self.facts.set_valid(h, val)
                params.append((p, v, a))
            self.returns.append([])
            self.stmt(d.body)
            end = join([self.facts, *self.returns.pop()], self.facts.quiet)
            end.valid = self.facts.valid
            self.facts = end
            if not from_table:  # p4c inlines the call: copy-out reads the parameter
                for p, v, a in params:
                    if a is not None and p.direction == "out":
                        self.read_place(p, Place(((v.root,),), v.shape, v.name))
        for p, v, a in params:  # copy-out
            if a is not None and p.direction in ("out", "inout"):
                place = self.write(a)
                if place is not None and place.shape.holds_headers:
                    self._copy_from_var(place, v)

    def _copy_from_var(self, dst: Place, v: Var) -> None:
        src = list(v.shape.headers((v.root,)))
        dpaths = list(dst.shape.headers(dst.paths[0])) if len(dst.paths) == 1 else []
        if len(src) == len(dpaths):
            for p, q in zip(dpaths, src, strict=True):
                self.facts.set_valid(p, self.facts.validity([q]))

    def table_apply(self, t: A.TableDecl) -> None:
        quiet = set(self.facts.quiet)
        for k in t.keys:
            self.read(k.expr)
        after = self.facts
        ends: list[Facts] = []
        for ar in t.actions:
            b = self.lookup(ar.name)
            if not (isinstance(b, Ref) and b.kind == "action"):
                continue
            d = b.decls[0]
            assert isinstance(d, A.ActionDecl)
            self.facts = after.copy()
            self.action_call(d, ar.args, from_table=True)
            ends.append(self.facts)
        self.facts = after
        live = [e for e in ends if e.reach]
        if live:
            uninit: set[Path] = set()
            for e in live:
                uninit |= e.uninit
            self.facts.uninit = uninit
        self.facts.quiet = quiet


def _type_name(d: A.Decl) -> str:
    if isinstance(d, A.Instance) and isinstance(d.type_ref, A.NamedTypeRef):
        return d.type_ref.name
    return ""


def _pick(protos: list[A.Prototype], nargs: int) -> tuple[A.Param, ...] | None:
    for p in protos:
        required = sum(1 for x in p.params if x.default is None)
        if required <= nargs <= len(p.params):
            return p.params
    return None


def _bind(
    params: tuple[A.Param, ...] | None, args: tuple[A.Argument, ...]
) -> list[tuple[A.Param | None, A.Expr]]:
    """Arguments with the parameter each one fills (None when unknown)."""
    out: list[tuple[A.Param | None, A.Expr]] = []
    if params is not None:  # a block without parameters may hold something else here
        params = tuple(p for p in params if isinstance(p, A.Param))
    by_name = {p.name: p for p in params or ()}
    for i, a in enumerate(args):
        if a.value is None:
            continue
        p: A.Param | None = None
        if params is not None:
            if a.name is not None:
                p = by_name.get(a.name)
            elif i < len(params):
                p = params[i]
        out.append((p, a.value))
    return out
