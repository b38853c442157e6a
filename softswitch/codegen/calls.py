"""Calls: methods of headers, stacks, tables and packets; actions; functions; externs."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from .effects import may_write, root_name
from .printer import expr_text
from .symbols import ActionSym, ExternFunctionSym, FunctionSym, InstanceSym, TableSym, Var
from .values import (
    DIRTY,
    SymType,
    V,
    const_v,
    copies_back,
    field_py,
    header_field_ok,
    is_scalar,
    mask,
)

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


def _arg(c: A.Call, i: int, method: str) -> A.Expr:
    """The value of argument `i` of a call (refused when it is left out or `_`)."""
    v = c.args[i].value if i < len(c.args) else None
    if v is None:
        raise P4TypeError.at(c.pos, f"{method}: argument {i + 1} is missing")
    return v


class Calls:
    """The calls part of the generator: arguments bound to parameters and copied in and
    out; methods of headers, stacks, tables, packets and sub-blocks; actions, functions;
    extern methods and functions (handed to the architecture)."""

    __slots__ = ("gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts

    def bind_args(
        self, params: tuple[A.Param, ...], args: tuple[A.Argument, ...], pos: Any
    ) -> list[A.Expr | None]:
        """Match arguments to parameters (positional or named, defaults, @optional)."""
        out: list[A.Expr | None] = [None] * len(params)
        given = [False] * len(params)
        names = [p.name for p in params]
        for i, a in enumerate(args):
            if a.name is not None:
                if a.name not in names:
                    raise P4TypeError.at(a.pos, f"no parameter named {a.name}")
                k = names.index(a.name)
            else:
                k = i
                if k >= len(params):
                    raise P4TypeError.at(a.pos, f"too many arguments ({len(args)} given)")
            out[k] = a.value
            given[k] = True
        for k, p in enumerate(params):
            if not given[k]:
                if p.default is not None:
                    out[k] = p.default
                elif not any(an.name == "optional" for an in p.annotations):
                    raise P4TypeError.at(pos, f"missing argument for parameter {p.name}")
        return out

    def check_extern_args(
        self,
        params: tuple[A.Param, ...],
        bound: list[A.Expr | None],
        bindings: dict[str, T.P4Type],
    ) -> None:
        """Arguments of extern calls must have the declared types (p4c allows no implicit
        width change: a `bit<8>` register index is an error, the index is `bit<32>`)."""
        literal_only: dict[str, A.Expr] = {}  # type variables given only int literals
        for p, a in zip(params, bound, strict=True):
            if a is None or isinstance(a, A.ListExpr | A.StructExpr):
                continue
            pt = self.gen.types.resolve_type(p.type_ref)
            if isinstance(pt, T.TypeVar):
                if pt.name in bindings:
                    pt = bindings[pt.name]
                else:
                    v = self.gen.exprs.expr(a)
                    if not isinstance(v.type, T.IntLiteralType):
                        bindings[pt.name] = v.type
                    else:
                        literal_only.setdefault(pt.name, a)
                    continue
            if isinstance(pt, T.TypeVar | T.DontCareType | T.StringType):
                continue
            v = self.gen.exprs.expr(a, pt)
            if isinstance(v.type, T.ListType):
                continue
            self.gen.exprs.convert(v, pt, a.pos)
        for name, a in literal_only.items():
            if name not in bindings:
                # p4c: an extern's type parameter needs a width (`16w0`, not `0`)
                raise P4TypeError.at(a.pos, f"{expr_text(a)}: could not infer a width")

    # ------------------------------------------------------------ entry points
    def call_stmt(self, c: A.Call) -> None:
        v = self.call_expr(c, None, statement=True)
        if v.code and v.code != "None":
            self.st.out.line(v.code)

    def call_expr(self, c: A.Call, expected: T.P4Type | None, statement: bool = False) -> V:
        f = c.func
        if isinstance(f, A.Member):
            return self.method_call(c, f, statement)
        if isinstance(f, A.NameRef):
            sym = self._callee(f.name, c.args)
            if isinstance(sym, ExternFunctionSym) and sym.decl.name == "static_assert":
                return self._static_assert(sym.decl, c)  # decided while compiling: no call
            info = self.st.info
            if isinstance(sym, ActionSym) and self.st.in_parser:
                raise P4TypeError.at(c.pos, f"{f.name}: actions cannot be called in a parser")
            if isinstance(sym, ActionSym) and not self.st.dead:
                if self.st.in_action:
                    # p4c inlines calls made inside actions: only apply-block calls count
                    info.action_calls.append((self.st.action, sym.qualified))
                else:
                    here = self.st.inst.qualified if self.st.inst is not None else ""
                    info.action_refs.append((here, sym.qualified, "call"))
            elif isinstance(sym, ExternFunctionSym) and not self.st.in_parser and not self.st.dead:
                if self.st.in_action:
                    info.action_extern_calls.append((self.st.action, sym.decl.name))
                else:
                    info.extern_calls.append(sym.decl.name)
            if isinstance(sym, ActionSym):
                return self.invoke(sym.py, sym.decl.params, c, statement, T.VOID)
            if isinstance(sym, FunctionSym):
                rt = self.gen.types.resolve_type(sym.decl.proto.return_type)
                return self.invoke(sym.py, sym.decl.proto.params, c, statement, rt)
            if isinstance(sym, ExternFunctionSym):
                return self.st.arch.extern_function(self.gen.arch_cx, sym.decl, c, statement)
            if sym is None:
                raise P4TypeError.at(f.pos, f"{f.name}: no such declaration")
        raise P4TypeError.at(c.pos, "this expression cannot be called")

    def _callee(self, name: str, args: tuple[A.Argument, ...]) -> Any:
        """The declaration a call of `name` with `args` means: the innermost one, unless
        it cannot take that many arguments and an outer one of the name can (p4c resolves
        calls by name and argument count: an action `hash()` may call the extern `hash`,
        as p4c's issue1541.p4 does)."""
        found = [
            o
            for sym in self.st.scope.lookup_all(name)
            for o in (sym.overloads() if isinstance(sym, ExternFunctionSym) else [sym])
        ]
        if len(found) > 1 and not _takes(found[0], args):
            for sym in found[1:]:
                if _takes(sym, args):
                    return sym
        return found[0] if found else None

    def _static_assert(self, decl: A.ExternFunctionDecl, c: A.Call) -> V:
        """core.p4's `static_assert(check[, message])`: decided while compiling (an error
        naming the message when the check is false); its value is true."""
        bound = self.bind_args(decl.proto.params, c.args, c.pos)
        if bound[0] is None:
            raise P4TypeError.at(c.pos, "static_assert needs a condition")
        check = self.gen.exprs.convert(self.gen.exprs.expr(bound[0], T.BOOL), T.BOOL, c.pos)
        if not check.is_const:
            raise P4TypeError.at(c.pos, "static_assert needs a condition known when compiling")
        if not check.const:
            message = "static_assert failed"
            if len(bound) > 1 and bound[1] is not None:
                text = self.gen.exprs.expr(bound[1])
                if isinstance(text.const, str):
                    message += f": {text.const}"
            raise P4TypeError.at(c.pos, message)
        return V("True", T.BOOL, True)

    def invoke(
        self,
        py: str,
        params: tuple[A.Param, ...],
        c: A.Call,
        statement: bool,
        ret: T.P4Type,
        aggregates: bool = True,
        callee: A.ParserDecl | A.ControlDecl | None = None,
    ) -> V:
        """Call a generated function with copy-in/copy-out of out and inout arguments.

        Arguments are evaluated left to right; when a later argument needs statements of
        its own (a call with out arguments), earlier values are saved first. An `in`
        header or struct given to a sub-block (`callee`) that cannot write through that
        parameter is passed by reference, unless another out/inout argument of the same
        call starts from the same variable.
        """
        bound = self.bind_args(params, c.args, c.pos)
        backs: list[tuple[A.Expr, T.P4Type]] = []
        written_roots = {
            root_name(a) for p, a in zip(params, bound, strict=True) if p.direction != "in"
        }

        def argument(p: A.Param, a: A.Expr | None) -> V:
            pt = self.gen.types.resolve_type(p.type_ref)
            if a is None:
                return V(self.gen.types.zero_code(pt), pt)
            if p.direction not in ("out", "inout"):
                v = self.gen.exprs.convert(self.gen.exprs.expr(a, pt), pt, a.pos)
                if is_scalar(pt) or (
                    callee is not None
                    and p.direction == "in"
                    and root_name(a) not in written_roots
                    and not may_write(callee, p.name)
                ):
                    return V(v.code, pt, v.const)
                return V(self.gen.types.copy_code(v.code, pt), pt, v.const)
            if copies_back(p, pt, aggregates):
                a = self.stabilize(a)
                backs.append((a, pt))
            v = self.gen.exprs.expr(a)
            if p.direction == "out":
                return V(self.gen.types.zero_code(pt) if not is_scalar(pt) else "0", pt)
            code = self.gen.exprs.convert(v, pt, a.pos).code
            return V(
                self.gen.types.copy_code(code, pt) if aggregates and not is_scalar(pt) else code, pt
            )

        values = self.gen.exprs.in_order(
            [partial(argument, p, a) for p, a in zip(params, bound, strict=True)]
        )
        codes = [v.code for v in values]
        call = f"{py}({', '.join(codes)})"
        has_ret = not isinstance(ret, T.VoidType)
        if not backs:
            return V(call, ret) if has_ret or not statement else V(call, T.VOID)
        tmp = self.st.temp()
        k = 1 if has_ret else 0
        self.st.out.line("try:")
        with self.st.out.indent():
            self.st.out.line(f"{tmp} = {call}")
        self.st.out.line("except _ExitSignal as _e:")
        with self.st.out.indent():
            # `exit` inside the callee: its out/inout values are still copied out
            self.st.out.line("if _e.args:")
            with self.st.out.indent():
                self.st.out.line(f"{tmp} = _e.args[0]")
                for i, (a, pt) in enumerate(backs):
                    self.gen.stmts.assign(a, V(f"{tmp}[{i}]", pt))
            self.gen.stmts.exit_stmt()
        if isinstance(callee, A.ParserDecl):
            # a sub-parser that failed: what it wrote stays, as p4c inlines it
            self.st.out.line("except (_ParserError, _Reject) as _e:")
            with self.st.out.indent():
                self.st.out.line(f"{tmp} = _e.outs")
                for i, (a, pt) in enumerate(backs):
                    self.gen.stmts.assign(a, V(f"{tmp}[{i}]", pt))
                self.st.out.line("raise")
        for i, (a, pt) in enumerate(backs):
            self.gen.stmts.assign(a, V(f"{tmp}[{i + k}]", pt))
        return V(f"{tmp}[0]", ret) if has_ret else V("", T.VOID)

    def stabilize(self, e: A.Expr) -> A.Expr:
        """An lvalue whose index expressions are evaluated now, once (for compound
        assignments and copy-out targets)."""
        if isinstance(e, A.Member):
            return A.Member(e.pos, self.stabilize(e.base), e.name)
        if isinstance(e, A.Slice):
            return A.Slice(e.pos, self.stabilize(e.base), e.hi, e.lo)
        if isinstance(e, A.Index):
            idx = self.gen.exprs.expr(e.index)
            if idx.is_const:
                return A.Index(e.pos, self.stabilize(e.base), e.index)
            t = self.st.temp()
            self.st.out.line(f"{t} = {idx.code}")
            name = f"${t}"
            self.st.scope.define(name, Var(t, idx.type))
            return A.Index(e.pos, self.stabilize(e.base), A.NameRef(e.index.pos, name))
        return e

    # ------------------------------------------------------------ methods
    def method_call(self, c: A.Call, f: A.Member, statement: bool) -> V:  # noqa: C901
        if isinstance(f.base, A.TypeNameExpr):
            t = self.gen.types.resolve_type(f.base.ref)
            if f.name in ("minSizeInBits", "maxSizeInBits"):
                return const_v(T.width_of(t), T.INT)
            if f.name in ("minSizeInBytes", "maxSizeInBytes"):
                return const_v((T.width_of(t) + 7) // 8, T.INT)
            if f.name == "apply" and isinstance(t, T.BlockType):
                inst = self.gen.blocks.instantiate_anonymous(t, c.pos)
                return self.apply_instance(inst, c, statement)
            raise P4TypeError.at(c.pos, f"{t} has no method {f.name}")
        base = self.gen.exprs.expr(f.base)
        bt = T.strip_newtype(base.type)
        if isinstance(bt, SymType):
            sym = bt.sym
            if isinstance(sym, TableSym):
                if f.name != "apply":
                    raise P4TypeError.at(c.pos, f"tables have no method {f.name}")
                if self.st.in_action:
                    raise P4TypeError.at(c.pos, "a table cannot be applied inside an action")
                if not self.st.dead:
                    self.on_path(frozenset((sym.qualified,)), c.pos)
                    self.st.applied_tables.add(sym.qualified)
                if sym.lookup is not None:
                    # the apply function's body, written out where the table is applied
                    r = self.st.temp()
                    self.st.out.line(f"{r} = {sym.lookup}")
                    self.st.out.line(sym.action_call.format(r=r))
                    return V("" if statement else r, T.ApplyResultType(sym))
                return V(f"{sym.py}()", T.ApplyResultType(sym))
            if isinstance(sym, InstanceSym):
                it = sym.type
                if isinstance(it, T.BlockType):
                    if f.name != "apply":
                        raise P4TypeError.at(c.pos, f"{it} has no method {f.name}")
                    return self.apply_instance(sym, c, statement)
                if isinstance(it, T.ExternType):
                    if it.name in ("packet_in", "packet_out"):
                        return self.packet_method(sym, f.name, c, statement)
                    return self.st.arch.extern_method(self.gen.arch_cx, sym, f.name, c, statement)
            raise P4TypeError.at(c.pos, f"{f.name} cannot be called here")
        if isinstance(bt, T.ExternType) and bt.name in ("packet_in", "packet_out"):
            sym = InstanceSym(bt, base.code, bt.name)
            return self.packet_method(sym, f.name, c, statement)
        if isinstance(bt, T.ExternType):
            # an extern instance a control was given as a parameter (`register<bit<8>> r`
            # of `control c(...)`, applied as `c_inst.apply(..., reg1)`): the instance the
            # caller passed, whichever it is
            sym = InstanceSym(bt, base.code, bt.name)
            return self.st.arch.extern_method(self.gen.arch_cx, sym, f.name, c, statement)
        if isinstance(bt, T.StructLikeType):
            return self.header_method(base, bt, f, c)
        if isinstance(bt, T.StackType):
            if f.name in ("push_front", "pop_front"):
                if self.st.in_parser:
                    raise P4TypeError.at(
                        c.pos, f"{f.name} of a header stack cannot be used in a parser"
                    )
                n = self.gen.exprs.const_int(c.args[0].value) if c.args and c.args[0].value else 1
                return V(f"{base.code}.{f.name}({n})", T.VOID)
        raise P4TypeError.at(c.pos, f"{base.type} has no method {f.name}")

    def header_method(self, base: V, bt: T.StructLikeType, f: A.Member, c: A.Call) -> V:
        if (
            f.name in ("setValid", "setInvalid")
            and isinstance(f.base, A.Member)
            and f.base.name == "last"
            and isinstance(T.strip_newtype(self.gen.exprs.expr(f.base.base).type), T.StackType)
        ):
            raise P4TypeError.at(c.pos, f"{expr_text(f)} must be applied to a left-value")
        if f.name in ("minSizeInBits", "maxSizeInBits"):
            return const_v(bt.bit_width(), T.INT)
        if f.name in ("minSizeInBytes", "maxSizeInBytes"):
            return const_v((bt.bit_width() + 7) // 8, T.INT)
        if bt.is_union and f.name == "isValid":
            parts = " or ".join(f"{base.code}.{field_py(n)}._v" for n in bt.fields) or "False"
            return V(f"({parts})", T.BOOL)
        if not bt.is_header:
            raise P4TypeError.at(c.pos, f"{bt.name} has no method {f.name}")
        if f.name == "isValid":
            return V(f"{base.code}._v", T.BOOL)
        union_siblings = self.union_siblings(f.base)
        if f.name == "setValid":
            for s in union_siblings:
                self.st.out.line(f"{s}._v = False")
            if union_siblings:
                self.st.out.line(DIRTY)
            return V(f"{base.code}._sv()", T.VOID)
        if f.name == "setInvalid":
            self.st.out.line(DIRTY)
            return V(f"{base.code}._v = False", T.VOID)
        raise P4TypeError.at(c.pos, f"headers have no method {f.name}")

    def union_siblings(self, e: A.Expr) -> list[str]:
        """Python paths of the other members when `e` is a member of a header union."""
        if isinstance(e, A.Member):
            ut = T.strip_newtype(e.base.type) if e.base.type is not None else None
            if isinstance(ut, T.StructLikeType) and ut.is_union:
                b = self.gen.exprs.expr(e.base).code
                return [f"{b}.{field_py(n)}" for n in ut.fields if n != e.name]
        return []

    # ------------------------------------------------------------ sub-parsers and sub-controls
    def on_path(self, tables: frozenset[str], pos: Any) -> None:
        """Tables applied here: each at most once on a path through the block, as
        p4c-bm2-ss requires (its pipeline graph holds each table once)."""
        twice = sorted(tables & self.st.path_tables)
        if twice:
            raise P4Unsupported.at(
                pos,
                f"table {twice[0]} is applied twice on one path through the control: this"
                " target's pipeline graph holds each table once (apply it in separate"
                " branches, or use a second table)",
            )
        self.st.path_tables |= tables

    def apply_instance(self, sym: InstanceSym, c: A.Call, statement: bool) -> V:
        decl = sym.decl
        params = decl.params
        if sym.inline is not None:
            self.gen.blocks.apply_inline(sym)  # its tables are checked as they are written out
            return V("", T.VOID)
        if not self.st.dead:
            self.on_path(self.st.block_tables.get(sym.qualified, frozenset()), c.pos)
        if sym.shared:
            # the shared parameters are the caller's own cells already: only the others
            # are passed (their arguments, bound as written, given in order)
            bound = self.bind_args(params, c.args, c.pos)
            kept = [(p, a) for p, a in zip(params, bound, strict=True) if p.name not in sym.shared]
            params = tuple(p for p, _ in kept)
            args = tuple(A.Argument(a.pos if a is not None else c.pos, None, a) for _, a in kept)
            c = A.Call(c.pos, c.func, c.type_args, args)
        return self.invoke(f"{sym.py}", params, c, statement, T.VOID, aggregates=False, callee=decl)

    # ------------------------------------------------------------ packet_in / packet_out
    def _extract_inline(self, pk: str, header: str, ht: T.StructLikeType) -> None:
        """`_extract(pk, header)` written out (the parser's hottest call): too few bytes
        left is PacketTooShort; otherwise the fields from the bytes, valid, cursor moved."""
        out = self.st.out
        h, o, e, v = self.st.temp(), self.st.temp(), self.st.temp(), self.st.temp()
        out.line(f"{h} = {header}")
        out.line(f"{o} = {pk}.off")
        lines = self.gen.types.ext_struct_lines(ht, h, f"{pk}.data", o, self.st.temp)
        if lines is not None:
            # the Struct reads exactly the header's bytes and fails when fewer are left:
            # the length test costs nothing until a packet is too short
            out.line("try:")
            out.line(f"    {lines[0]}")
            out.line("except _StructError:")
            out.line("    raise _ParserError(1) from None  # PacketTooShort")
            for ln in lines[1:]:
                out.line(ln)
            out.line(f"{pk}.off = {o} + {ht.bit_width() // 8}")
            return
        out.line(f"{e} = {o} + {ht.bit_width() // 8}")
        out.line(f"if {e} > len({pk}.data):")
        out.line("    raise _ParserError(1)  # PacketTooShort")
        out.line(f"{v} = int.from_bytes({pk}.data[{o}:{e}], 'big')")
        for ln in self.gen.types.ext_lines(ht, h, v):
            out.line(ln)
        out.line(f"{pk}.off = {e}")

    def packet_method(self, sym: InstanceSym, name: str, c: A.Call, statement: bool) -> V:
        pk = sym.py
        if name == "extract":
            if c.args and c.args[0].value is None and c.type_args:
                # extract<T>(_): skip a header of type T
                t = T.strip_newtype(self.gen.types.resolve_type(c.type_args[0]))
                if not isinstance(t, T.StructLikeType) or not t.is_header:
                    raise P4TypeError.at(c.pos, "extract<T>(_) needs a header type")
                return V(f"_extract({pk}, {t.pyname}())", T.VOID)
            if not c.args or c.args[0].value is None:
                raise P4TypeError.at(c.pos, "extract needs a header")
            target = c.args[0].value
            if isinstance(target, A.Member) and target.name == "next":
                stack = self.gen.exprs.expr(target.base)
                stack_t = T.strip_newtype(stack.type)
                if not isinstance(stack_t, T.StackType):
                    raise P4TypeError.at(target.pos, ".next applies to header stacks")
                h = self.st.temp()
                self.st.out.line(f"{h} = {stack.code}.next_for_extract()")
                hv = V(h, stack_t.element)
                after = f"{stack.code}.nxt += 1"
            elif (
                isinstance(target, A.Member)
                and isinstance(target.base, A.Member)
                and target.base.name == "next"
                and isinstance(
                    T.strip_newtype(self.gen.exprs.expr(target.base.base).type), T.StackType
                )
            ):
                # a member of the next element of a header-union stack
                stack = self.gen.exprs.expr(target.base.base)
                u = self.st.temp()
                self.st.out.line(f"{u} = {stack.code}.next_for_extract()")
                stack_t = T.strip_newtype(stack.type)
                assert isinstance(stack_t, T.StackType)  # the condition above checked it
                ut = stack_t.element
                if target.name not in ut.fields:
                    raise P4TypeError.at(target.pos, f"{ut} has no member {target.name}")
                for n in ut.fields:
                    if n != target.name:
                        self.st.out.line(f"{u}.{field_py(n)}._v = False")
                self.st.out.line(DIRTY)
                hv = V(f"{u}.{field_py(target.name)}", ut.fields[target.name])
                after = f"{stack.code}.nxt += 1"
            else:
                hv = self.gen.exprs.expr(target)
                after = ""
            ht = T.strip_newtype(hv.type)
            if not isinstance(ht, T.StructLikeType) or not ht.is_header:
                raise P4TypeError.at(c.pos, f"cannot extract a value of type {hv.type}")
            siblings = self.union_siblings(target)
            varbit = any(isinstance(T.strip_newtype(f), T.VarbitType) for f in ht.fields.values())
            if len(c.args) == 1 and varbit:
                raise P4TypeError.at(
                    c.pos,
                    f"{expr_text(target)} has a varbit field: extract it with its size"
                    " (extract(hdr, bits))",
                )
            if len(c.args) > 1:
                nbits = self.gen.exprs.expr(_arg(c, 1, "extract"))
                self.st.out.line(f"_extract_varbit({pk}, {hv.code}, {nbits.code})")
            elif ht.bit_width() % 8 == 0 and not varbit:
                self._extract_inline(pk, hv.code, ht)
            else:
                self.st.out.line(f"_extract({pk}, {hv.code})")
            for s in siblings:
                self.st.out.line(f"{s}._v = False")
            if siblings:
                self.st.out.line(DIRTY)
            if self.st.trace_enabled:
                self.st.out.line(f"_trace('extract', {expr_text(target)!r}, {hv.code})")
            if after:
                self.st.out.line(after)
            return V("", T.VOID)
        if name == "lookahead":
            if not c.type_args:
                raise P4TypeError.at(c.pos, "lookahead needs a type argument")
            t = self.gen.types.resolve_type(c.type_args[0])
            t0 = T.strip_newtype(t)
            if isinstance(t0, T.StructLikeType):
                if t0.kind == "struct" and not header_field_ok(t0):  # headers in it
                    return self._lookahead_aggregate(pk, t0, t, c.pos)
                return V(f"_lookahead_header({pk}, {t0.pyname})", t)
            try:
                w = T.width_of(t0)
            except TypeError:  # void, an extern, a varbit: no fixed width
                raise P4TypeError.at(c.pos, f"{t}: not a type lookahead can read") from None
            code = f"_lookahead({pk}, {w})"
            if isinstance(t0, T.BoolType):
                code = f"({code} != 0)"
            elif isinstance(t0, T.BitType) and t0.signed:
                code = f"_to_signed({code}, {w})"
            return V(code, t)
        if name == "advance":
            amount = self.gen.exprs.expr(_arg(c, 0, "advance"))
            return V(f"_advance({pk}, {amount.code})", T.VOID)
        if name == "length":
            return V(f"len({pk}.data)", T.BitType(32))
        if name == "emit":
            v = self.gen.exprs.expr(_arg(c, 0, "emit"))
            self.emit_value(pk, v, c.pos)
            return V("", T.VOID)
        raise P4TypeError.at(c.pos, f"packet has no method {name}")

    def _lookahead_aggregate(self, pk: str, st: T.StructLikeType, t: T.P4Type, pos: Any) -> V:
        """lookahead<S>() of a struct holding headers or header stacks: the next bits, as
        many as S's fields have, go into a new S field by field in order, and its headers
        (stack elements too) are made valid."""
        leaves: list[tuple[str, T.P4Type]] = []  # (python path, scalar type), in order
        valid: list[str] = []  # the headers to make valid

        def walk(path: str, ft: T.P4Type) -> None:
            f0 = T.strip_newtype(ft)
            if isinstance(f0, T.StackType):
                for i in range(f0.size):
                    walk(f"{path}.h[{i}]", f0.element)
            elif isinstance(f0, T.StructLikeType):
                if f0.is_union:
                    raise P4Unsupported.at(pos, "lookahead of a header union")
                if f0.is_header:
                    valid.append(path)
                for n, sub in f0.fields.items():
                    walk(f"{path}.{field_py(n)}", sub)
            elif isinstance(f0, T.BitType | T.BoolType) or (
                isinstance(f0, T.EnumType) and f0.underlying is not None
            ):
                leaves.append((path, f0))
            else:
                raise P4Unsupported.at(pos, f"lookahead of a struct with a {ft} field")

        walk("", st)
        width = sum(T.width_of(lt) for _, lt in leaves)
        bits, obj = self.st.temp(), self.st.temp()
        self.st.out.line(f"{bits} = _lookahead({pk}, {width})")
        self.st.out.line(f"{obj} = {self.gen.types.zero_code(st)}")
        shift = width
        for path, lt in leaves:
            w = T.width_of(lt)
            shift -= w
            value = f"{bits} >> {shift} & {mask(w)}"
            if isinstance(lt, T.BoolType):
                value = f"({value}) != 0"
            elif isinstance(lt, T.BitType) and lt.signed:
                value = f"_to_signed({value}, {w})"
            self.st.out.line(f"{obj}{path} = {value}")
        for path in valid:
            self.st.out.line(f"{obj}{path}._v = True")
        return V(obj, t)

    def emit_value(self, pk: str, v: V, pos: Any) -> None:
        t = T.strip_newtype(v.type)
        if isinstance(t, T.StructLikeType) and t.is_header:
            self.st.out.line(f"if {v.code}._v:")
            with self.st.out.indent():
                packed = self.gen.types.pack_struct_code(t, "_h")
                if _emitter(t) == "_emit" and packed is not None:
                    # inlined: the deparser's hottest call
                    self.st.out.line(f"_h = {v.code}")
                    self.st.out.line(f"{pk} += {packed}")
                elif _emitter(t) == "_emit":
                    nbytes = (t.bit_width() + 7) // 8
                    self.st.out.line(f"{pk} += {v.code}._pack().to_bytes({nbytes}, 'big')")
                else:
                    self.st.out.line(f"{_emitter(t)}({pk}, {v.code})")
            return
        if isinstance(t, T.StructLikeType):  # struct or header union: members in order
            for n, ft in t.fields.items():
                self.emit_value(pk, V(f"{v.code}.{field_py(n)}", ft), pos)
            return
        if isinstance(t, T.StackType):
            el = t.element
            self.st.out.line(f"for _h in {v.code}.h:")
            with self.st.out.indent():
                if el.is_union:
                    for n, ht in el.fields.items():
                        self.st.out.line(f"{_emitter(ht)}({pk}, _h.{field_py(n)})")
                else:
                    self.st.out.line(f"{_emitter(el)}({pk}, _h)")
            return
        raise P4Unsupported.at(pos, f"emit of a value of type {v.type}")


def _takes(sym: Any, args: tuple[A.Argument, ...]) -> bool:
    """Can the action, function or extern function `sym` take `args`? Other
    declarations: yes (the call fails later if it must)."""
    if isinstance(sym, ActionSym):
        return A.accepts(sym.decl.params, args)
    if isinstance(sym, FunctionSym | ExternFunctionSym):
        return A.accepts(sym.decl.proto.params, args)
    return True


def _emitter(t: T.P4Type) -> str:
    """The runtime function that deparses a header of type `t`."""
    assert isinstance(t, T.StructLikeType)
    varbit = any(isinstance(T.strip_newtype(f), T.VarbitType) for f in t.fields.values())
    return "_emit_varbit" if varbit else "_emit"
