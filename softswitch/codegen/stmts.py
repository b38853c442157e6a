"""Statements -> Python statements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from .effects import plain_path
from .printer import expr_text
from .symbols import Const, Var
from .values import DIRTY, V, as_bits, field_py, mask, wrap_code

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


class Stmts:
    """The statements part of the generator: P4 statements -> Python statements, with
    P4's assignment rules, constant conditions folded and `exit`/`return` copy-out."""

    __slots__ = ("gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts

    def stmt(self, s: A.Stmt) -> None:  # noqa: C901
        if isinstance(s, A.Assign):
            target = s.target
            value = s.value
            if isinstance(value, A.Binary) and value.left is target:
                # compound assignment (`a[i] += x`): the target is evaluated once
                target = self.gen.calls.stabilize(target)
                value = A.Binary(value.pos, value.op, target, value.right)
            target_type = self.gen.exprs.expr(target).type
            v, pre = self.st.capture(
                lambda: self.gen.exprs.convert(
                    self.gen.exprs.expr(value, target_type), target_type, s.pos
                )
            )
            if pre.lines:
                # the target's indices are evaluated before the value (left to right)
                target = self.gen.calls.stabilize(target)
                self.st.out.lines.extend(pre.lines)
            self.assign(target, v, value)
        elif isinstance(s, A.CallStmt):
            self.gen.calls.call_stmt(s.call)
        elif isinstance(s, A.If):
            c = self.gen.exprs.convert(self.gen.exprs.expr(s.cond), T.BOOL, s.cond.pos)
            if c.is_const:
                # folded as p4c folds it: only the branch taken is generated
                live, dead = (s.then, s.other) if c.const else (s.other, s.then)
                if dead is not None:
                    self.dead_branch(dead)
                before = len(self.st.out.lines)
                if live is not None:
                    self.block_scoped(live)
                if len(self.st.out.lines) == before:
                    self.st.out.line("pass")
                return
            path_before = set(self.st.path_tables)
            self.st.out.line(f"if {c.code}:")
            with self.st.out.indent():
                self.block_scoped(s.then)
            if s.other is not None:
                after_then, self.st.path_tables = self.st.path_tables, set(path_before)
                self.st.out.line("else:")
                with self.st.out.indent():
                    self.block_scoped(s.other)
                self.st.path_tables |= after_then
        elif isinstance(s, A.Block):
            self.block_scoped(s)
        elif isinstance(s, A.VarDecl):
            self.check_new_name(s.name, s.pos)
            t = self.gen.types.resolve_type(s.type_ref)
            py = self.st.local_name(s.name)
            if s.init is not None:
                v = self.gen.exprs.convert(self.gen.exprs.expr(s.init, t), t, s.init.pos)
                code = self.gen.types.copy_code(v.code, t) if _needs_copy(s.init) else v.code
            else:
                code = self.gen.types.zero_code(t)
            self.st.scope.define(s.name, Var(py, t))
            self.st.out.line(f"{py} = {code}")
        elif isinstance(s, A.ConstDecl):
            self.check_new_name(s.name, s.pos)
            t = self.gen.types.resolve_type(s.type_ref)
            v = self.gen.exprs.convert(self.gen.exprs.expr(s.value, t), t, s.value.pos)
            if v.is_const:
                self.st.scope.define(s.name, Const(v.const, t))
            else:
                py = self.st.local_name(s.name)
                self.st.out.line(f"{py} = {v.code}")
                self.st.scope.define(s.name, Var(py, t))
        elif isinstance(s, A.Exit):
            self.exit_stmt()
        elif isinstance(s, A.Return):
            self.return_stmt(s)
        elif isinstance(s, A.Switch):
            self.switch_stmt(s)
        elif isinstance(s, A.EmptyStmt):
            self.st.out.line("pass")
        elif isinstance(s, A.For | A.ForIn):
            self.for_stmt(s)
        elif isinstance(s, A.Break | A.Continue):
            if not self.st.loop_depth:
                raise P4TypeError.at(s.pos, f"{type(s).__name__.lower()} outside of a loop")
            self.st.out.line("break" if isinstance(s, A.Break) else "continue")
        else:
            raise P4Unsupported.at(s.pos, f"statement {type(s).__name__} here")

    def dead_branch(self, s: A.Stmt) -> None:
        """Check a branch no packet can take, generating and recording nothing."""
        self.st.maybe_dead(lambda: self.st.capture(lambda: self.block_scoped(s)), True)

    def block_scoped(self, s: A.Stmt) -> None:
        saved = self.st.scope
        self.st.scope = saved.child()
        try:
            if isinstance(s, A.Block):
                for x in s.stmts:
                    self.stmt(x)
            else:
                self.stmt(s)
        finally:
            self.st.scope = saved

    def for_stmt(self, s: A.For | A.ForIn) -> None:
        saved = self.st.scope
        self.st.scope = saved.child()
        self.st.loop_depth += 1
        try:
            if isinstance(s, A.ForIn):
                t = self.gen.types.resolve_type(s.type_ref)
                it = s.iterable
                py = self.st.local_name(s.name)
                self.st.scope.define(s.name, Var(py, t))
                if isinstance(it, A.RangeKeyset):
                    lo = self.gen.exprs.convert(self.gen.exprs.expr(it.lo, t), t, it.pos)
                    hi = self.gen.exprs.convert(self.gen.exprs.expr(it.hi, t), t, it.pos)
                    self.st.out.line(f"for {py} in range({lo.code}, {hi.code} + 1):")
                else:
                    v = self.gen.exprs.expr(it)
                    vt = T.strip_newtype(v.type)
                    src = f"{v.code}.h" if isinstance(vt, T.StackType) else v.code
                    self.st.out.line(f"for {py} in {src}:")
                with self.st.out.indent():
                    self.block_scoped(s.body)
                return
            for st in s.init:
                self.stmt(st)
            first = self.st.temp()
            self.st.out.line(f"{first} = True")
            self.st.out.line("while True:")
            with self.st.out.indent():
                if s.update:
                    self.st.out.line(f"if not {first}:")
                    with self.st.out.indent():
                        for st in s.update:
                            self.stmt(st)
                    self.st.out.line(f"{first} = False")
                if s.cond is not None:
                    c = self.gen.exprs.convert(self.gen.exprs.expr(s.cond), T.BOOL, s.cond.pos)
                    self.st.out.line(f"if not {c.code}:")
                    with self.st.out.indent():
                        self.st.out.line("break")
                self.block_scoped(s.body)
        finally:
            self.st.loop_depth -= 1
            self.st.scope = saved

    def exit_stmt(self) -> None:
        """`exit`: out/inout values of the current action or function still go back."""
        fn = self.st.func_ctx
        if fn is not None and fn.copy_back:
            vals = ", ".join(fn.copy_back)
            self.st.out.line(f"raise _ExitSignal(({vals},))")
        else:
            self.st.out.line("raise _EXIT")

    def return_stmt(self, s: A.Return) -> None:
        fn = self.st.func_ctx
        if fn is None:
            raise P4TypeError.at(s.pos, "return outside of a function, action or control")
        parts: list[str] = []
        if s.value is not None:
            if fn.ret is None or isinstance(fn.ret, T.VoidType):
                raise P4TypeError.at(s.pos, "this function returns no value")
            parts.append(
                self.gen.exprs.convert(self.gen.exprs.expr(s.value, fn.ret), fn.ret, s.pos).code
            )
        parts.extend(fn.copy_back)
        if fn.breaks and not parts:
            self.st.out.line("break")
        elif not parts:
            self.st.out.line("return")
        elif len(parts) == 1 and not fn.copy_back:
            self.st.out.line(f"return {parts[0]}")
        else:
            self.st.out.line(f"return ({', '.join(parts)},)")

    def check_lvalue(self, target: A.Expr) -> None:
        """p4c's rules for assignment targets: an `in` or directionless parameter (or a
        part of one) is read-only; a header stack's `last` is no left-value at all; `next`
        may be assigned whole (in a parser), but not a field of it (that would read the
        element first)."""
        e, depth = target, 0
        while isinstance(e, A.Member | A.Index | A.Slice):
            if isinstance(e, A.Member) and e.name in ("last", "next") and self.stack_member(e):
                if e.name == "last" or depth > 0:
                    raise P4TypeError.at(
                        target.pos,
                        f"{expr_text(target)} cannot be the target of an assignment",
                    )
            e = e.base
            depth += 1
        if isinstance(e, A.NameRef):
            sym = self.st.scope.lookup(e.name)
            if isinstance(sym, Var) and sym.direction in ("in", "none"):
                kind = "an 'in'" if sym.direction == "in" else "a directionless"
                raise P4TypeError.at(
                    target.pos,
                    f"{expr_text(target)} cannot be the target of an assignment "
                    f"({e.name} is {kind} parameter)",
                )

    def stack_member(self, e: A.Member) -> bool:
        """`e` is a member of a header stack (its `next`, `last`, ...)."""
        return isinstance(T.strip_newtype(self.gen.exprs.expr(e.base).type), T.StackType)

    def check_new_name(self, name: str, pos: Any) -> None:
        """A local declared twice in one block is an error (an inner block may shadow)."""
        if name in self.st.scope.names:
            raise P4TypeError.at(pos, f"duplicate declaration of {name} in this block")

    def switch_stmt(self, s: A.Switch) -> None:
        if self.st.in_action:
            raise P4Unsupported.at(
                s.pos, "switch statements inside actions are not supported on this target"
            )
        subj = self.gen.exprs.expr(s.subject)
        before = set(self.st.path_tables)
        joined = set(before)  # a packet may match no case
        tmp = self.st.temp()
        self.st.out.line(f"{tmp} = {subj.code}")
        action_run = subj.type if isinstance(subj.type, T.ActionEnumType) else None
        pending: list[str] = []
        first = True
        defaults = [case for case in s.cases if case.label is None]
        if len(defaults) > 1:
            raise P4TypeError.at(defaults[1].pos, "a switch statement has one default label")
        labels: set[str] = set()
        for case in s.cases:
            if action_run is not None and isinstance(case.label, A.NameRef):
                if case.label.name in labels:
                    raise P4TypeError.at(case.pos, f"switch label {case.label.name} appears twice")
                labels.add(case.label.name)
            if case.label is None:
                cond = "True"
            elif action_run is not None:
                if not isinstance(case.label, A.NameRef):
                    raise P4TypeError.at(case.pos, "switch on action_run needs action names")
                aid = self.gen.tables.action_index(action_run.table, case.label.name, case.pos)
                cond = f"{tmp} == {aid}"
            else:
                lv = self.gen.exprs.convert(
                    self.gen.exprs.expr(case.label, subj.type), subj.type, case.pos
                )
                if not lv.is_const:
                    raise P4TypeError.at(case.pos, "switch labels must be constants")
                cond = f"{tmp} == {lv.code}"
            pending.append(cond)
            if case.body is None:
                continue
            kw = "if" if first else "elif"
            cond_all = " or ".join(pending) if "True" not in pending else "True"
            self.st.out.line(f"{kw} {cond_all}:")
            first = False
            self.st.path_tables = set(before)  # each case starts where the switch does
            with self.st.out.indent():
                self.block_scoped(case.body)
            joined |= self.st.path_tables
            pending = []
        self.st.path_tables = joined

    # ------------------------------------------------------------ assignment
    def assign(self, target: A.Expr, v: V, src: A.Expr | None = None) -> None:  # noqa: C901
        """Generate `target = v`; `src` is the assigned expression when there is one."""
        self.check_lvalue(target)
        t = target.type if target.type is not None else self.gen.exprs.expr(target).type
        code = v.code
        # headers and structs: `_kept(old, new)` (an invalid header assigned keeps its bits)
        kept = isinstance(T.strip_newtype(t), T.StructLikeType)
        if isinstance(T.strip_newtype(t), T.StackType) and not code.startswith(
            ("_mk(", "_Stack", "H_")
        ):
            code = self.gen.types.copy_code(code, t)
        if isinstance(target, A.NameRef):
            sym = self.st.scope.lookup(target.name)
            if not isinstance(sym, Var):
                raise P4TypeError.at(target.pos, f"{target.name} cannot be assigned")
            if (
                sym.direction == "in"
                and self.st.func_ctx is not None
                and self.st.func_ctx.strict_in
            ):
                raise P4TypeError.at(target.pos, f"{target.name} is an 'in' parameter")
            if sym.direction in ("inout", "out") and isinstance(
                T.strip_newtype(t), T.StructLikeType | T.StackType
            ):
                # the caller holds this object: overwrite it in place
                self.st.out.line(f"_assign({sym.py}, {code})")
                self.st.out.line(DIRTY)
            elif kept:
                self.st.out.line(f"{sym.py} = _kept({sym.py}, {code})")
            else:
                self.st.out.line(f"{sym.py} = {code}")
            return
        if isinstance(target, A.Member):
            base = self.gen.exprs.expr(target.base)
            bt = T.strip_newtype(base.type)
            if isinstance(bt, T.StructLikeType):
                if bt.is_union:
                    # assigning a member header of a union invalidates the others
                    for n in bt.fields:
                        if n != target.name:
                            self.st.out.line(f"{base.code}.{field_py(n)}._v = False")
                dst = f"{base.code}.{field_py(target.name)}"
                self.st.out.line(f"{dst} = _kept({dst}, {code})" if kept else f"{dst} = {code}")
                # what may leave bits in an invalid header (see DIRTY)
                if kept or bt.is_union:
                    self.st.out.line(DIRTY)
                elif bt.is_header:
                    self.st.out.line(f"if not {base.code}._v:")
                    self.st.out.line(f"    {DIRTY}")
                if isinstance(T.strip_newtype(t), T.VarbitType) and bt.is_header:
                    self._copy_varbit_width(base.code, src)
                return
            if isinstance(bt, T.StackType) and target.name in ("next", "last"):
                code = self.gen.types.copy_code(code, t) if kept else code
                self.st.out.line(f"{base.code}.set_{target.name}({code})")
                return
            raise P4TypeError.at(target.pos, "this member cannot be assigned")
        if isinstance(target, A.Index):
            base = self.gen.exprs.expr(target.base)
            idx = self.gen.exprs.expr(target.index)
            if isinstance(T.strip_newtype(base.type), T.StackType):
                if idx.is_const:
                    dst = f"{base.code}.h[{idx.const}]"
                    self.st.out.line(f"{dst} = _kept({dst}, {code})" if kept else f"{dst} = {code}")
                else:
                    code = self.gen.types.copy_code(code, t) if kept else code
                    self.st.out.line(f"{base.code}.put({idx.code}, {code})")
                return
            raise P4Unsupported.at(target.pos, "assignment to an indexed tuple")
        if isinstance(target, A.Slice):
            base = self.gen.exprs.expr(target.base)
            bt = T.strip_newtype(base.type)
            if not isinstance(bt, T.BitType):
                raise P4TypeError.at(target.pos, "only bit values can be sliced")
            hi, lo = self.gen.exprs.const_int(target.hi), self.gen.exprs.const_int(target.lo)
            m = mask(hi - lo + 1)
            clear = mask(bt.width) ^ (m << lo)
            new = (
                f"({as_bits(base.code, bt)} & {clear}) | (({as_bits(code, v.type)} & {m}) << {lo})"
            )
            if bt.signed:
                new = wrap_code(new, bt)
            self.assign(target.base, V(new, base.type))
            return
        raise P4TypeError.at(target.pos, "this expression cannot be assigned")

    def _copy_varbit_width(self, dst: str, src: A.Expr | None) -> None:
        """`h2.v = h1.v` on varbit fields copies h1.v's current length too, as BMv2 does."""
        if not isinstance(src, A.Member) or not plain_path(src.base):
            return
        base = self.gen.exprs.expr(src.base)
        bt = T.strip_newtype(base.type)
        if isinstance(bt, T.StructLikeType) and bt.is_header:
            self.st.out.line(f"{dst}._vw = {base.code}._vw")


def _needs_copy(e: A.Expr) -> bool:
    return not isinstance(e, A.ListExpr | A.StructExpr | A.InvalidHeader)
