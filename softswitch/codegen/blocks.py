"""Parsers, controls, actions, tables and functions -> factories of Python closures.

Each parser or control *instance* becomes a factory `make_N(rt)` that creates the
instance's extern objects and tables once, defines its actions and states as closures, and
returns the apply function. Parameters and control-level variables live in the factory's
frame (closure cells), so actions reach them without extra arguments. A sub-control's
header and struct parameters that are always the applying control's own (see sharing.py)
are that control's cells: its apply function takes only the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from .emitter import Emitter
from .sharing import has_return, inlinable, shared_params
from .state import FuncCtx, InstanceCtx
from .symbols import ActionSym, Const, FunctionSym, InlineBody, InstanceSym, StateSym, Var
from .values import V, copies_back, is_scalar

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


class Blocks:
    """The blocks part of the generator: functions, actions, parser and control instances
    (factories of closures), parser states and transitions."""

    __slots__ = ("_sharing", "gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts
        # instance name -> its parameters shared with the control being generated, and
        # whether it is written out where it is applied
        self._sharing: dict[str, tuple[dict[str, Var], bool]] = {}

    # ------------------------------------------------------------ shared helpers
    def params_into_scope(self, params: tuple[A.Param, ...], cell: bool) -> list[str]:
        pys = []
        for p in params:
            t = self.gen.types.resolve_type(p.type_ref)
            py = self.st.local_name(p.name)
            self.st.scope.define(p.name, Var(py, t, p.direction or "none", cell))
            pys.append(py)
        return pys

    def copy_back_codes(
        self, params: tuple[A.Param, ...], pys: list[str], aggregates: bool = True
    ) -> list[str]:
        return [
            py
            for p, py in zip(params, pys, strict=True)
            if copies_back(p, self.gen.types.resolve_type(p.type_ref), aggregates)
        ]

    def emit_nonlocal(self) -> None:
        if self.st.inst is not None and self.st.inst.cells:
            self.st.out.line(f"nonlocal {', '.join(self.st.inst.cells)}")

    # ------------------------------------------------------------ functions and actions
    def gen_function(self, d: A.FunctionDecl) -> None:
        py = self.st.unique("f_" + d.name)
        self.st.scope.define(d.name, FunctionSym(d, py))
        ret = self.gen.types.resolve_type(d.proto.return_type)
        saved_scope, saved_fn = self.st.scope, self.st.func_ctx
        self.st.scope = saved_scope.child("function")
        try:
            pys = self.params_into_scope(d.proto.params, cell=False)
            self.st.out.line(f"def {py}({', '.join(pys)}):")
            self.st.func_ctx = FuncCtx(ret, self.copy_back_codes(d.proto.params, pys))
            with self.st.out.indent():
                for s in d.body.stmts:
                    self.gen.stmts.stmt(s)
                if self.st.func_ctx.copy_back:
                    self.gen.stmts.return_stmt(A.Return(d.pos, None))
        finally:
            self.st.scope, self.st.func_ctx = saved_scope, saved_fn

    def gen_action(self, d: A.ActionDecl, qualified: str) -> ActionSym:
        py = self.st.unique("a_" + d.name)
        sym = ActionSym(d, py, qualified)
        self.st.scope.define(d.name, sym)
        self.gen.tables.record_action(d, qualified)
        if not d.params and not d.body.stmts and not self.st.trace_enabled:
            self.st.out.line(f"{py} = _noop_action")
            return sym
        saved_scope, saved_fn = self.st.scope, self.st.func_ctx
        self.st.scope = saved_scope.child("action")
        self.st.in_action, self.st.action = True, qualified
        try:
            pys = self.params_into_scope(d.params, cell=False)
            self.st.out.line(f"def {py}({', '.join(pys)}):")
            self.st.func_ctx = FuncCtx(None, self.copy_back_codes(d.params, pys))
            with self.st.out.indent():
                self.emit_nonlocal()
                if self.st.trace_enabled:
                    self.st.out.line(f"_trace('action', {qualified!r})")
                for s in d.body.stmts:
                    self.gen.stmts.stmt(s)
                if self.st.func_ctx.copy_back:
                    self.gen.stmts.return_stmt(A.Return(d.pos, None))
        finally:
            self.st.scope, self.st.func_ctx = saved_scope, saved_fn
            self.st.in_action, self.st.action = False, ""
        return sym

    # ------------------------------------------------------------ instances
    def gen_instance(self, d: A.Instance, qualified: str, in_place: bool = False) -> InstanceSym:
        t = self.gen.types.resolve_type(d.type_ref)
        if isinstance(t, T.BlockType):
            args = self.ctor_arg_values(t.decl, d.args, d.pos)
            shared, inline = self._sharing.get(d.name, ({}, False))
            if inline:
                body = self.gen_inline_instance(t.decl, qualified, args, shared)
                sym = InstanceSym(t, "", qualified, t.decl, frozenset(shared), body)
            else:
                py = self.gen_block_instance(t.decl, qualified, args, shared)
                sym = InstanceSym(t, py, qualified, t.decl, frozenset(shared))
                self.st.out.line(f"{py} = make_{py}(rt)")
        elif isinstance(t, T.ExternType):
            py = self.st.unique("x_" + d.name)
            sym = InstanceSym(t, py, qualified, d)
            self.st.arch.instantiate(self.gen.arch_cx, sym, d, in_place)
        else:
            raise P4TypeError.at(d.pos, f"cannot instantiate {t}")
        self.st.scope.define(d.name, sym)
        return sym

    def instantiate_anonymous(self, t: T.BlockType, pos: Any) -> InstanceSym:
        qualified = f"{self.st.inst.qualified}.{t.name}" if self.st.inst else t.name
        # define it in the enclosing factory (before the current closure is called)
        saved = self.st.out
        self.st.out = self.st.hoisted
        try:
            py = self.gen_block_instance(t.decl, qualified, {})
        finally:
            self.st.out = saved
        self.st.hoisted.line(f"{py} = make_{py}(rt)")
        return InstanceSym(t, py, qualified, t.decl)

    def ctor_arg_values(self, decl: Any, args: tuple[A.Argument, ...], pos: Any) -> dict[str, Any]:
        params = getattr(decl, "ctor_params", ())
        if not params:
            if args:
                raise P4TypeError.at(pos, f"{decl.name} takes no constructor arguments")
            return {}
        bound = self.gen.calls.bind_args(params, args, pos)
        out: dict[str, Any] = {}
        for p, a in zip(params, bound, strict=True):
            pt = self.gen.types.resolve_type(p.type_ref)
            if a is None:
                continue
            if isinstance(pt, T.BlockType | T.ExternType):
                # an instance passed to a constructor (`C2(c1) c2;`) is shared, not copied
                sym = self.st.scope.lookup(a.name) if isinstance(a, A.NameRef) else None
                if not isinstance(sym, InstanceSym):
                    raise P4TypeError.at(a.pos, f"an instance of {pt} is expected")
                out[p.name] = (sym, pt)
                continue
            v = self.gen.exprs.convert(self.gen.exprs.expr(a, pt), pt, a.pos)
            out[p.name] = (v, pt)
        return out

    def gen_inline_instance(
        self, decl: A.ControlDecl, qualified: str, ctor_args: dict[str, Any], shared: dict[str, Var]
    ) -> InlineBody:
        """A sub-control whose body is written out where it is applied (`apply_inline`):
        its tables, actions, instances and variables are made in the applying control's
        factory, its parameters are that control's cells."""
        parent = self.st.instance()
        with self._instance_factory(qualified, ctor_args) as (factory, inst):
            self._declare_cells(decl.params, shared)
            resets = self._control_body_locals(decl)
            scope = self.st.scope
        self.st.out.extend(factory)
        parent.cells.extend(c for c in inst.cells if c not in parent.cells)
        return InlineBody(decl, scope, inst, resets)

    def apply_inline(self, sym: InstanceSym) -> None:
        """Write out the body of a sub-control applied here (see `gen_inline_instance`),
        as its apply function would run it."""
        body = sym.inline
        assert body is not None
        st = self.st
        saved = (st.scope, st.inst, st.func_ctx, st.dead, st.loop_depth)
        st.inst = body.inst
        st.scope = body.scope.child()
        # as in its own function: no values to copy back, recorded as live code, no
        # enclosing loop
        returns = has_return(body.decl)
        st.func_ctx = FuncCtx(None, [], breaks=returns)
        st.dead = st.loop_depth = 0
        try:
            self._emit_resets(body.resets)
            if st.trace_enabled:
                st.out.line(f"_trace('control', {body.inst.qualified!r})")
            if returns:  # a `return` ends the body: it runs in a loop that `break` leaves
                st.out.line("while True:")
                with st.out.indent():
                    for s in body.decl.body.stmts:
                        self.gen.stmts.stmt(s)
                    st.out.line("break")
            else:
                for s in body.decl.body.stmts:
                    self.gen.stmts.stmt(s)
        finally:
            st.scope, st.inst, st.func_ctx, st.dead, st.loop_depth = saved

    @contextmanager
    def _instance_factory(
        self, qualified: str, ctor_args: dict[str, Any]
    ) -> Iterator[tuple[Emitter, InstanceCtx]]:
        """Generate into a fresh factory body for instance `qualified`: its own emitter,
        scope (with the constructor arguments) and instance context; the generator's
        state is restored afterwards. Yields (the factory's emitter, the instance)."""
        st = self.st
        saved = (st.out, st.scope, st.inst, st.func_ctx, st.hoisted)
        factory = Emitter()
        st.out = factory
        st.scope = st.global_scope.child("instance")
        st.inst = inst = InstanceCtx(qualified)
        st.func_ctx = None
        try:
            self._define_ctor_args(ctor_args)
            yield factory, inst
        finally:
            st.out, st.scope, st.inst, st.func_ctx, st.hoisted = saved

    def _define_ctor_args(self, ctor_args: dict[str, Any]) -> None:
        for name, (v, t) in ctor_args.items():
            if isinstance(v, InstanceSym):
                self.st.scope.define(name, v)
            elif v.is_const:
                self.st.scope.define(name, Const(v.const, t))
            else:
                self.st.scope.define(name, Const(None, t, v.code))

    def gen_block_instance(
        self,
        decl: Any,
        qualified: str,
        ctor_args: dict[str, Any],
        shared: dict[str, Var] | None = None,
    ) -> str:
        """Generate `def make_X(rt)` for one parser/control instance; return X. `shared`:
        parameters that are the applying control's (their cells, no cells of its own)."""
        py = self.st.unique("i_" + qualified.replace(".", "_"))
        with self._instance_factory(qualified, ctor_args) as (factory, _inst):
            if isinstance(decl, A.ParserDecl):
                self.gen_parser_body(decl, py)
            elif isinstance(decl, A.ControlDecl):
                self.gen_control_body(decl, py, shared or {})
            else:
                raise P4Unsupported.at(decl.pos, f"instance of {decl.name}")
        self.st.out.line(f"def make_{py}(rt):")
        with self.st.out.indent():
            self.st.out.extend(factory)
        return py

    def _declare_cells(
        self, params: tuple[A.Param, ...], shared: dict[str, Var] | None = None
    ) -> list[str]:
        """Parameters as cells of the factory being generated; a `shared` one names the
        applying control's cell instead (declared there, assigned through `nonlocal`)."""
        shared = shared or {}
        pys = self.params_into_scope(params, cell=True)
        for p, py in zip(params, pys, strict=True):
            if p.name in shared:
                outer = shared[p.name]
                self.st.scope.define(p.name, Var(outer.py, outer.type, p.direction, True))
                self.st.instance().cells.append(outer.py)
                continue
            self.st.instance().cells.append(py)
            self.st.out.line(f"{py} = None")
        return [
            shared[p.name].py if p.name in shared else py for p, py in zip(params, pys, strict=True)
        ]

    def _control_locals(self, locals_: tuple[A.Decl, ...]) -> list[tuple[str, A.Decl]]:
        """Declare control/parser-level variables (cells, re-initialised per packet)."""
        resets: list[tuple[str, A.Decl]] = []
        for d in locals_:
            if isinstance(d, A.VariableDecl):
                t = self.gen.types.resolve_type(d.type_ref)
                py = self.st.local_name(d.name)
                self.st.scope.define(d.name, Var(py, t, "", True))
                self.st.instance().cells.append(py)
                self.st.out.line(f"{py} = None")
                resets.append((py, d))
            elif isinstance(d, A.ConstantDecl):
                t = self.gen.types.resolve_type(d.type_ref)
                v = self.gen.exprs.convert(self.gen.exprs.expr(d.value, t), t, d.value.pos)
                self.st.scope.define(d.name, Const(v.const, t, v.code))
            elif isinstance(d, A.Instance):
                self.gen_instance(d, self.qualify(d.name, d.annotations))
            elif isinstance(d, A.ValueSetDecl):
                self.gen.tables.gen_value_set(d)
            elif isinstance(d, A.ActionDecl):
                self.gen_action(d, self.qualify(d.name, d.annotations))
            elif isinstance(d, A.TableDecl):
                self.gen.tables.gen_table(d)
            else:
                raise P4Unsupported.at(d.pos, f"{type(d).__name__} inside a control")
        return resets

    def _emit_resets(self, resets: list[tuple[str, A.Decl]]) -> None:
        for py, d in resets:
            assert isinstance(d, A.VariableDecl)
            t = self.gen.types.resolve_type(d.type_ref)
            if d.init is not None:
                v = self.gen.exprs.convert(self.gen.exprs.expr(d.init, t), t, d.init.pos)
                self.st.out.line(f"{py} = {self.gen.types.copy_code(v.code, t)}")
            else:
                self.st.out.line(f"{py} = {self.gen.types.zero_code(t)}")

    def qualify(self, name: str, annots: A.Annots) -> str:
        n = A.find_annotation(annots, "name")
        if n is not None and n.string_value() is not None:
            s = n.string_value() or name
            if s.startswith("."):
                return s[1:]
            return f"{self.st.inst.qualified}.{s}" if self.st.inst else s
        return f"{self.st.inst.qualified}.{name}" if self.st.inst else name

    # ------------------------------------------------------------ controls
    def _control_body_locals(self, d: A.ControlDecl) -> list[tuple[str, A.Decl]]:
        """A control's local declarations into the factory being generated (what they
        hoist after them); its control-level variables, set at each apply."""
        hoisted = Emitter()
        self.st.hoisted = hoisted
        saved_sharing = self._sharing
        self._sharing = self._shareable(d)
        try:
            resets = self._control_locals(d.locals)
        finally:
            self._sharing = saved_sharing
        self.st.out.extend(hoisted)
        hoisted.lines.clear()
        return resets

    def gen_control_body(self, d: A.ControlDecl, py: str, shared: dict[str, Var]) -> None:
        params = self._declare_cells(d.params, shared)
        resets = self._control_body_locals(d)
        hoisted = self.st.hoisted
        own = [(p, py) for p, py in zip(d.params, params, strict=True) if p.name not in shared]
        args = [f"p_{py}" for _, py in own]
        saved_fn = self.st.func_ctx
        self.st.func_ctx = FuncCtx(None, self.copy_back_codes(d.params, params, aggregates=False))
        body = Emitter()
        body.depth = 1
        saved_out = self.st.out
        self.st.out = body
        try:
            self.emit_nonlocal()
            for (_, p), a in zip(own, args, strict=True):
                self.st.out.line(f"{p} = {a}")
            self._emit_resets(resets)
            if self.st.trace_enabled:
                self.st.out.line(f"_trace('control', {self.st.instance().qualified!r})")
            saved_scope, saved_path = self.st.scope, self.st.path_tables
            self.st.scope, self.st.path_tables = saved_scope.child(), set()
            for s in d.body.stmts:
                self.gen.stmts.stmt(s)
            self.st.block_tables[self.st.instance().qualified] = frozenset(self.st.path_tables)
            self.st.scope, self.st.path_tables = saved_scope, saved_path
            if self.st.func_ctx.copy_back:
                self.gen.stmts.return_stmt(A.Return(d.pos, None))
        finally:
            self.st.out = saved_out
            self.st.func_ctx = saved_fn
        self.st.out.extend(hoisted)
        self.st.out.line(f"def {py}({', '.join(args)}):")
        self.st.out.lines.extend(body.lines)
        if len(body.lines) == 0:
            self.st.out.line("    pass")
        self.st.out.line(f"return {py}")

    def _shareable(self, d: A.ControlDecl) -> dict[str, tuple[dict[str, Var], bool]]:
        """For each control instance declared in `d`: its parameters that can be the
        cells of `d`'s own (codegen/sharing.py), with those cells, and whether its body
        can be written out where `d` applies it."""
        out: dict[str, tuple[dict[str, Var], bool]] = {}
        for inst in d.locals:
            if not isinstance(inst, A.Instance):
                continue
            try:
                t = self.gen.types.resolve_type(inst.type_ref)
            except P4TypeError:
                continue  # reported where the instance is generated
            if not isinstance(t, T.BlockType) or not isinstance(t.decl, A.ControlDecl):
                continue
            child = t.decl
            pairs = shared_params(d, inst, child, self.gen.calls.bind_args, self._aggregate_param)
            cells = {}
            for c, q in pairs.items():
                v = self.st.scope.lookup(q)
                if isinstance(v, Var) and v.cell:
                    cells[c] = v
            if cells:
                whole = len(cells) == len(child.params) and inlinable(d, inst, child)
                out[inst.name] = (cells, whole)
        return out

    def _aggregate_param(self, p: A.Param) -> bool:
        """A header, struct, union or stack parameter (passed by reference)."""
        try:
            return not is_scalar(self.gen.types.resolve_type(p.type_ref))
        except P4TypeError:
            return False

    # ------------------------------------------------------------ parsers
    def gen_parser_body(self, d: A.ParserDecl, py: str) -> None:
        saved = self.st.in_parser
        self.st.in_parser = True
        try:
            self._gen_parser_body(d, py)
        finally:
            self.st.in_parser = saved

    def _gen_parser_body(self, d: A.ParserDecl, py: str) -> None:
        params = self._declare_cells(d.params)
        self.st.hoisted = Emitter()
        saved_sharing, self._sharing = self._sharing, {}  # sub-parsers share nothing
        try:
            resets = self._control_locals(d.locals)
        finally:
            self._sharing = saved_sharing
        # without a loop among the states each transition calls the next state (a chain of
        # calls as deep as the longest path) instead of going back to the parser's loop
        tail = not _has_loop(d)
        states = {s.name: StateSym(self.st.unique("s_" + s.name), tail) for s in d.states}
        if "start" not in states:
            raise P4TypeError.at(d.pos, f"parser {d.name} has no start state")
        if not _reaches_an_end(d):
            raise P4TypeError.at(d.pos, f"parser {d.name} never reaches accept or reject")
        for name, sym in states.items():
            self.st.scope.define(name, sym)
        for s in d.states:
            self.gen_state(s, states[s.name].py)
        self.st.out.extend(self.st.hoisted)
        args = [f"p_{p}" for p in params]
        self.st.out.line(f"def {py}({', '.join(args)}):")
        with self.st.out.indent():
            self.emit_nonlocal()
            for p, a in zip(params, args, strict=True):
                self.st.out.line(f"{p} = {a}")
            self._emit_resets(resets)
            if self.st.trace_enabled:
                self.st.out.line(f"_trace('parser', {self.st.instance().qualified!r})")
            self.st.out.line(f"_st = {states['start'].py}")
            outs = self.copy_back_codes(d.params, params, aggregates=False)
            if outs:
                # a sub-parser: when parsing fails its caller still gets the values
                self.st.out.line("try:")
                with self.st.out.indent():
                    self.st.out.line("while _st is not None:")
                    with self.st.out.indent():
                        self.st.out.line("_st = _st()")
                self.st.out.line("except (_ParserError, _Reject) as _e:")
                with self.st.out.indent():
                    self.st.out.line(f"_e.outs = ({', '.join(outs)},)")
                    self.st.out.line("raise")
                self.st.out.line(f"return ({', '.join(outs)},)")
            else:
                self.st.out.line("while _st is not None:")
                with self.st.out.indent():
                    self.st.out.line("_st = _st()")
        self.st.out.line(f"return {py}")

    def gen_state(self, s: A.ParserState, py: str) -> None:
        self.st.out.line(f"def {py}():")
        saved_scope = self.st.scope
        self.st.scope = saved_scope.child()
        with self.st.out.indent():
            self.emit_nonlocal()
            if self.st.trace_enabled:
                self.st.out.line(f"_trace('state', {s.name!r})")
            for st in s.stmts:
                self.gen.stmts.stmt(st)
            self.gen_transition(s)
        self.st.scope = saved_scope

    def state_target(self, name: str, pos: Any) -> str:
        """What a transition to state `name` returns: the state's function for the
        parser's loop (None: accept), or the result of calling it (see StateSym)."""
        if name == "accept":
            return "None"
        if name == "reject":
            return "_reject"
        sym = self.st.scope.lookup(name)
        if not isinstance(sym, StateSym):
            raise P4TypeError.at(pos, f"{name}: no such parser state")
        return f"{sym.py}()" if sym.tail_call else sym.py

    def gen_transition(self, s: A.ParserState) -> None:
        tr = s.transition
        if tr is None:
            self.st.out.line("return _reject")
            return
        if isinstance(tr, str):
            self.st.out.line(f"return {self.state_target(tr, s.pos)}")
            return
        keys = [self.gen.exprs.expr(k) for k in tr.keys]
        kpys = []
        for k in keys:
            tmp = self.st.temp()
            self.st.out.line(f"{tmp} = {k.code}")
            kpys.append(V(tmp, k.type))
        for case in tr.cases:
            cond = self.keyset_cond(case.keyset, kpys, case.pos)
            target = self.state_target(case.state, case.pos)
            if cond == "True":
                self.st.out.line(f"return {target}")
                return
            self.st.out.line(f"if {cond}:")
            with self.st.out.indent():
                self.st.out.line(f"return {target}")
        # no case matched: BMv2 (as p4c-bm2-ss compiles it) ends parsing there, like
        # `reject`, with parser_error still NoError and the headers so far valid
        self.st.out.line("return _reject")

    def keyset_cond(self, ks: A.Expr, keys: list[V], pos: Any) -> str:
        items = A.keyset_items(ks)
        if isinstance(ks, A.DefaultKeyset | A.DontCare):
            return "True"
        if len(keys) > 1 and len(items) == 1 and isinstance(ks, A.NameRef):
            vs = self.st.scope.lookup(ks.name)
            tup = "(" + ", ".join(k.code for k in keys) + ")"
            return f"{vs.py}.match({tup})"
        if len(items) != len(keys):
            raise P4TypeError.at(pos, f"{len(items)} keyset values for {len(keys)} select keys")
        conds = []
        for item, key in zip(items, keys, strict=True):
            c = self.gen.tables.simple_keyset_cond(item, key, pos)
            if c != "True":
                conds.append(c)
        return " and ".join(conds) if conds else "True"


def _has_loop(d: A.ParserDecl) -> bool:
    """Whether a state of `d` can reach itself by transitions (a name that is no state of
    `d` counts as a loop: its transition reports it, and the parser keeps its loop)."""
    nexts: dict[str, set[str]] = {}
    for st in d.states:
        tr = st.transition
        if tr is None:
            nexts[st.name] = set()
        elif isinstance(tr, str):
            nexts[st.name] = {tr}
        else:
            nexts[st.name] = {c.state for c in tr.cases}
    done: set[str] = set()  # states whose successors have no loop

    def loops(name: str, path: set[str]) -> bool:
        if name in ("accept", "reject") or name in done:
            return False
        if name in path or name not in nexts:
            return True
        path.add(name)
        if any(loops(n, path) for n in nexts[name]):
            return True
        path.discard(name)
        done.add(name)
        return False

    return any(loops(name, set()) for name in nexts)


def _reaches_an_end(d: A.ParserDecl) -> bool:
    """Whether some path of transitions from `start` ends in accept or reject (a select
    can always end in reject: no case matched), as p4c requires."""
    nexts: dict[str, set[str]] = {}
    for st in d.states:
        tr = st.transition
        if tr is None:
            nexts[st.name] = {"reject"}
        elif isinstance(tr, str):
            nexts[st.name] = {tr}
        else:
            nexts[st.name] = {c.state for c in tr.cases} | {"reject"}
    seen, todo = set(), ["start"]
    while todo:
        name = todo.pop()
        if name in ("accept", "reject"):
            return True
        if name in seen:
            continue
        seen.add(name)
        # a name that is no state of this parser: its transition reports it, not this
        todo.extend(nexts.get(name, {"reject"}))
    return False
