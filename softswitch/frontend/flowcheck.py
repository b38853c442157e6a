"""Flow warnings p4c gives: reads of possibly uninitialised values and field accesses of
possibly invalid headers.

The rules follow p4c's def-use pass (frontends/p4/simplifyDefUse), checked against
p4c-bm2-ss 1.2.4.8 on small programs:

* locals start uninitialised (a declaration with an initializer is an assignment); `out`
  parameters too, header fields included; reading a scalar that some path leaves unwritten
  warns "X may be uninitialized", reading a whole struct or header so "X may not be
  completely initialized". A slice assignment reads the variable it writes. `setValid()`
  does not initialise fields; `extract` and `out` arguments of externs, actions, functions
  and sub-blocks do.
* headers of `in`/`inout` parameters start valid, of `out` parameters (a parser's headers)
  invalid, local headers invalid. `setValid`, `setInvalid`, header assignments, `extract`
  and the `out`/`inout` arguments of externs and sub-blocks (valid) change it; a direct
  action call's body acts on the caller's headers. A field access (read or write) of a
  header that is invalid on some path warns "accessing a field of a potentially invalid
  header H" ("of an invalid header H" when invalid on every path), unless `H.isValid()`
  was called in the condition of the enclosing `if`/`switch` or in the same table key.
* parsers: states merge their predecessors to a fixed point; p4c's quirks are kept: a
  state entered from one predecessor inherits its `isValid()` tests, a table's actions do
  not change the caller's header validity (only its uninitialised set), an `if` merges
  validity even from a branch that ends in `exit`.

Where softswitch differs from p4c (docs/softswitch.md lists them): no warnings for `for`
loops beyond one pass, header stacks indexed at run time are checked as "any element",
`out parameter ... may be uninitialized when ... terminates` is not reported, and an
unused local whose initializer reads an uninitialised value is still reported (p4c removes
the declaration first).
"""

from __future__ import annotations

from dataclasses import fields

from . import ast as A
from .flowcalls import FlowCalls
from .flowfacts import Diagnostic, Facts, Ref, join

__all__ = ["Diagnostic", "check_flow"]

_MAX_PARSER_STEPS = 20_000


def check_flow(program: A.Program) -> list[Diagnostic]:
    """The uninitialised-use and invalid-header warnings of `program`, in source order."""
    return _Checker(program).run()


class _Checker(FlowCalls):
    def run(self) -> list[Diagnostic]:
        made = _instantiated(self.program)  # p4c drops blocks nothing instantiates
        for d in self.program.decls:
            if isinstance(d, A.ControlDecl) and not d.type_params and d.name in made:
                self.control(d)
            elif isinstance(d, A.ParserDecl) and not d.type_params and d.name in made:
                self.parser(d)
            elif isinstance(d, A.FunctionDecl) and not d.proto.type_params and self.used[d.name]:
                self.function(d)
        out = [Diagnostic(pos, msg) for pos, msg in self.found]
        out.sort(key=lambda w: (w.pos.file, w.pos.line, w.pos.col, w.message))
        return out

    def param(self, p: A.Param) -> None:
        v = self.new_var(p, p.name, p.type_ref)
        self.declare(v, p.direction != "out")

    def local(self, d: A.Decl) -> None:
        if isinstance(d, A.VariableDecl):
            v = self.new_var(d, d.name, d.type_ref)
            self.declare(v, False)
            if d.init is not None and self.used[d.name]:
                self.assign(A.NameRef(d.pos, d.name), d.init)
        elif isinstance(d, A.ActionDecl):
            self.env[-1][d.name] = Ref("action", (d,))
        elif isinstance(d, A.TableDecl):
            self.env[-1][d.name] = Ref("table", (d,))
        elif isinstance(d, A.Instance):
            self.env[-1][d.name] = Ref("instance", (d,))
        elif isinstance(d, A.ConstantDecl | A.ValueSetDecl):
            self.env[-1][d.name] = Ref("const")

    def declare_block(self, d: A.ControlDecl | A.ParserDecl) -> None:
        """A control's or parser's parameters and locals, in the scope just opened."""
        for p in _params(d.ctor_params, d.params):
            self.param(p)
        for loc in _decls(d.locals):
            self.local(loc)

    def control(self, d: A.ControlDecl) -> None:
        self.facts = Facts()
        with self.scope():
            self.declare_block(d)
            self.block_body(d.body)

    def function(self, d: A.FunctionDecl) -> None:
        self.facts = Facts()
        with self.scope():
            for p in _params(d.proto.params):
                self.param(p)
            self.returns.append([])
            self.block_body(d.body)
            self.returns.pop()

    def parser(self, d: A.ParserDecl) -> None:
        self.facts = Facts()
        with self.scope():
            self.declare_block(d)
            states = {s.name: s for s in d.states}
            if "start" not in states:
                return
            inputs = {"start": self.facts.copy()}
            work = ["start"]
            self.reporting = False
            steps = 0
            while work and steps < _MAX_PARSER_STEPS:
                steps += 1
                name = work.pop(0)
                self.facts = inputs[name].copy()
                self.state(states[name])
                for nxt in _successors(states[name]):
                    if nxt not in states:
                        continue
                    old = inputs.get(nxt)
                    if old is None:
                        inputs[nxt] = self.facts.copy()
                    else:
                        new = join([self.facts, old], set())
                        new.reach = old.reach or self.facts.reach
                        if new.same(old):
                            continue
                        inputs[nxt] = new
                    if nxt not in work:
                        work.append(nxt)
            self.reporting = True
            for s in d.states:
                if s.name in inputs:
                    self.facts = inputs[s.name].copy()
                    self.state(s)

    def state(self, s: A.ParserState) -> None:
        with self.scope():
            for st in s.stmts:
                self.stmt(st)
            if isinstance(s.transition, A.Select) and self.facts.reach:
                for k in s.transition.keys:
                    self.read(k)

    # ------------------------------------------------------------ statements
    def block_body(self, b: A.Stmt) -> None:
        with self.scope():
            self.stmt(b)

    def stmt(self, s: A.Stmt) -> None:  # noqa: C901
        if not self.facts.reach:
            return
        if isinstance(s, A.Block):
            with self.scope():
                for x in s.stmts:
                    self.stmt(x)
        elif isinstance(s, A.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, A.CallStmt):
            self.call(s.call)
        elif isinstance(s, A.VarDecl):
            v = self.new_var(s, s.name, s.type_ref)
            self.declare(v, False)
            if s.init is not None and self.used[s.name]:
                # p4c removes a local no statement uses, with its initializer
                self.assign(A.NameRef(s.pos, s.name), s.init)
        elif isinstance(s, A.ConstDecl):
            self.read(s.value)
            self.env[-1][s.name] = Ref("const")
        elif isinstance(s, A.If):
            self.if_stmt(s)
        elif isinstance(s, A.Switch):
            self.switch(s)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.read(s.value)
            if self.returns:
                self.returns[-1].append(self.facts.copy())
            self.facts.reach = False
        elif isinstance(s, A.Exit):
            self.facts.reach = False
        elif isinstance(s, A.For):
            for x in s.init:
                self.stmt(x)
            before = self.facts.copy()
            if s.cond is not None:
                self.read(s.cond)
            self.stmt(s.body)
            for x in s.update:
                self.stmt(x)
            self.facts = join([self.facts, before], before.quiet)
        elif isinstance(s, A.ForIn):
            self.read(s.iterable)
            before = self.facts.copy()
            with self.scope():
                v = self.new_var(s, s.name, s.type_ref)
                self.declare(v, True)
                self.stmt(s.body)
            self.facts = join([self.facts, before], before.quiet)

    def if_stmt(self, s: A.If) -> None:
        if isinstance(s.cond, A.BoolLit):  # p4c folds constant conditions first
            branch = s.then if s.cond.value else s.other
            if branch is not None:
                self.stmt(branch)
            return
        quiet = set(self.facts.quiet)
        self.read(s.cond)
        after = self.facts
        self.facts = after.copy()
        self.stmt(s.then)
        then = self.facts
        self.facts = after.copy()
        if s.other is not None:
            self.stmt(s.other)
        self.facts = join([self.facts, then], quiet)

    def switch(self, s: A.Switch) -> None:
        quiet = set(self.facts.quiet)
        self.read(s.subject)
        after = self.facts
        ends: list[Facts] = []
        has_default = False
        for c in s.cases:
            if c.body is None:
                continue
            has_default = has_default or c.label is None
            self.facts = after.copy()
            self.stmt(c.body)
            ends.append(self.facts)
        if not ends:
            self.facts = after
            return
        reach = any(e.reach for e in ends)
        if not has_default:
            ends.append(after)
        self.facts = join(ends, quiet)
        self.facts.reach = reach


def _params(*groups: object) -> list[A.Param]:
    return [p for g in groups if isinstance(g, tuple) for p in g if isinstance(p, A.Param)]


def _decls(group: object) -> list[A.Decl]:
    return [d for d in group if isinstance(d, A.Decl)] if isinstance(group, tuple) else []


def _instantiated(program: A.Program) -> set[str]:
    """The parser and control types some instance or constructor call names."""
    out: set[str] = set()
    todo: list[object] = [program.decls]
    while todo:
        n = todo.pop()
        ref = (
            n.type_ref
            if isinstance(n, A.Instance)
            else n.ref
            if isinstance(n, A.Construct)
            else None
        )
        if isinstance(ref, A.NamedTypeRef):
            out.add(ref.name)
        if isinstance(n, tuple | list):
            todo.extend(n)
        elif isinstance(n, A.Decl | A.Stmt | A.Expr | A.Argument):
            todo.extend(getattr(n, f.name) for f in fields(n) if f.name != "type")
    return out


def _successors(s: A.ParserState) -> list[str]:
    t = s.transition
    if isinstance(t, str):
        return [t]
    if isinstance(t, A.Select):
        out: list[str] = []
        for c in t.cases:
            if c.state not in out:
                out.append(c.state)
        return out
    return []
