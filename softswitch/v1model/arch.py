"""The v1model architecture as the code generator sees it: externs -> generated calls.

Each extern call becomes a call on an object or helper that `v1model.externs` and
`v1model.switch` provide at run time; this module only decides the Python code.
"""

from __future__ import annotations

from typing import Any

from .. import program_info as pinfo
from ..codegen.arch_api import ArchContext, InstanceSym, V, as_bits
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4Error, P4TypeError, P4Unsupported, Pos
from . import field_lists as FL
from .hashes import BMV2_ALGORITHMS, U64_MASK

HASH_ALGOS = {
    "crc32",
    "crc32_custom",
    "crc16",
    "crc16_custom",
    "random",
    "identity",
    "csum16",
    "xor16",
}

EXTERN_KINDS = {
    "register",
    "counter",
    "direct_counter",
    "meter",
    "direct_meter",
    "action_profile",
    "action_selector",
    "Checksum16",
}


class V1Model:
    """The v1model architecture (`softswitch.codegen.arch_api.Architecture`)."""

    name: str = "v1model"
    roles: tuple[str, ...] = ("parser", "verify", "ingress", "egress", "compute", "deparser")
    preamble: tuple[str, ...] = ("from softswitch.v1model.support import *  # noqa: F403",)

    def __init__(self) -> None:
        # the number of cells of each register and counter instance (python name -> size),
        # a constant of the program: generated bounds checks compare with it directly
        self._sizes: dict[str, int] = {}
        # `digest` calls of a list of values (no struct type), by position -> their name
        self._anonymous_digests: dict[Pos, str] = {}

    # ------------------------------------------------------------ instances
    def instantiate(
        self, cx: ArchContext, sym: InstanceSym, d: A.Instance, in_place: bool = False
    ) -> None:
        t = sym.type
        assert isinstance(t, T.ExternType)
        if t.name not in EXTERN_KINDS:
            raise P4Unsupported.at(d.pos, f"extern {t.name} is not part of v1model")
        ctor = self._ctor_params(t, len(d.args), d.pos)
        bound = cx.bind_args(ctor, d.args, d.pos)
        values: list[Any] = []
        for p, a in zip(ctor, bound, strict=True):
            if a is None:
                values.append(None)
                continue
            pt = cx.resolve_type(p.type_ref)
            v = cx.expr(a, None if isinstance(pt, T.TypeVar) else pt)
            vt = T.strip_newtype(v.type)
            if isinstance(vt, T.EnumType) and vt.underlying is None and v.is_const:
                # a plain enum argument by member name (CounterType.packets, ...)
                values.append(vt.members[v.const] if isinstance(v.const, int) else str(v.const))
            elif v.is_const:  # a serializable enum's member gives its value
                values.append(int(v.const) if isinstance(vt, T.EnumType) else v.const)
            elif isinstance(a, A.Member) and isinstance(a.base, A.TypeNameExpr):
                values.append(a.name)
            else:
                raise P4TypeError.at(a.pos, "extern constructor arguments must be constants")
        spec = pinfo.ExternSpec(
            t.name, sym.qualified, t.args, tuple(values), cx.annotations(d.annotations), in_place
        )
        cx.add_extern(spec)
        if t.name in ("register", "counter") and isinstance(values[0], int):
            self._sizes[sym.py] = values[0]
        cx.line(f"{sym.py} = rt.extern({sym.qualified!r})")

    @staticmethod
    def _ctor_params(t: T.ExternType, nargs: int, pos: Any) -> tuple[A.Param, ...]:
        ctors = t.decl.constructors
        for c in ctors:
            if len(c) == nargs:
                return c
        raise P4TypeError.at(pos, f"no constructor of {t.name} takes {nargs} arguments")

    # ------------------------------------------------------------ methods
    def extern_method(
        self, cx: ArchContext, sym: InstanceSym, method: str, c: A.Call, statement: bool
    ) -> V:
        t = sym.type
        assert isinstance(t, T.ExternType)
        o = sym.py
        args = [a.value for a in c.args]
        kind = t.name
        proto = next((m for m in t.decl.methods if m.name == method), None)
        if proto is None:
            raise P4TypeError.at(c.pos, f"{kind} has no method {method}")
        bindings = dict(zip(t.decl.type_params, t.args, strict=False))
        cx.check_extern_args(proto.params, cx.bind_args(proto.params, c.args, c.pos), bindings)
        if kind == "register" and method == "read":
            elem = t.args[0] if t.args else T.BitType(32)
            idx, unsigned = self._index_of(cx, args[1])
            dst = args[0]
            cur = cx.expr(dst)
            # in range: the value itself, written out; out of range: read() logs it
            i = cx.temp()
            cx.line(f"{i} = {idx}")
            cx.line(f"if {self._in_range(o, i, unsigned)}:")
            with cx.indent():
                cx.assign(dst, V(f"{o}.values[{i}]", elem))
            cx.line("else:")
            with cx.indent():
                cx.assign(dst, V(f"{o}.read({i}, {cur.code})", elem))
            return V("", T.VOID)
        if kind == "register" and method == "write":
            elem = t.args[0] if t.args else T.BitType(32)
            idx, unsigned = self._index_of(cx, args[0])
            v = cx.convert(cx.expr(args[1], elem), elem, c.pos)
            # Register.write written out (out of range: nothing); a struct or header value
            # is stored as a copy, since the packet's own objects are reused
            i, val = cx.temp(), cx.temp()
            cx.line(f"{i} = {idx}")
            cx.line(f"{val} = {cx.copy_code(v.code, v.type)}")
            cx.line(f"if {self._in_range(o, i, unsigned)}:")
            with cx.indent():
                cx.line(f"{o}.values[{i}] = {val}")
            return V("", T.VOID)
        if kind == "counter" and method == "count":
            # Counter.count written out (out of range: nothing)
            i = cx.temp()
            idx, unsigned = self._index_of(cx, args[0])
            cx.line(f"{i} = {idx}")
            cx.line(f"if {self._in_range(o, i, unsigned)}:")
            with cx.indent():
                cx.line(f"{o}.packets[{i}] += 1")
                cx.line(f"{o}.bytes[{i}] += ctx.packet_length")
            return V("", T.VOID)
        if kind == "direct_counter" and method == "count":
            return V("", T.VOID)  # BMv2 counts on the table hit itself
        if kind == "meter" and method == "execute_meter":
            dst = args[1]
            dt = cx.expr(dst).type
            cx.assign(dst, V(f"{o}.execute({self._index_of(cx, args[0])[0]})", dt))
            return V("", T.VOID)
        if kind == "direct_meter" and method == "read":
            dst = args[0]
            dt = cx.expr(dst).type
            cx.assign(dst, V(f"{o}.color", dt))
            return V("", T.VOID)
        raise P4Unsupported.at(c.pos, f"{kind}.{method}")

    def _index_of(self, cx: ArchContext, e: A.Expr | None) -> tuple[str, bool]:
        """Code for an extern's index, and whether it is never negative (a bit pattern;
        a literal may be)."""
        if e is None:
            raise P4TypeError("missing index", "<program>", 0, 0)
        v = cx.expr(e, T.BitType(32))
        if isinstance(v.type, T.IntLiteralType):
            return v.code, False
        return as_bits(v.code, v.type), isinstance(T.strip_newtype(v.type), T.BitType)

    def _in_range(self, o: str, i: str, unsigned: bool) -> str:
        """The test that index `i` names a cell of register or counter `o`."""
        size = self._sizes.get(o)
        if size is None:
            return f"0 <= {i} < {o}.size"
        return f"{i} < {size}" if unsigned else f"0 <= {i} < {size}"

    # ------------------------------------------------------------ functions
    def extern_function(  # noqa: C901
        self, cx: ArchContext, decl: A.ExternFunctionDecl, c: A.Call, statement: bool
    ) -> V:
        name = decl.name
        params = decl.proto.params
        if name == "mark_to_drop" and not params:
            # v1model's deprecated form: p4c-bm2-ss refuses it
            raise P4Unsupported.at(
                c.pos,
                "mark_to_drop() needs the standard metadata on this target:"
                " mark_to_drop(standard_metadata)",
            )
        bound = cx.bind_args(params, c.args, c.pos)
        bindings = {
            tp: cx.resolve_type(ta)
            for tp, ta in zip(decl.proto.type_params, c.type_args, strict=False)
        }
        cx.check_extern_args(params, bound, bindings)
        args = dict(zip((p.name for p in params), bound, strict=True))
        pos = c.pos
        if name == "mark_to_drop":
            return V(f"ctx.mark_to_drop({cx.expr(bound[0]).code})", T.VOID)
        if name == "hash":
            dst = bound[0]
            dt = cx.expr(dst).type
            algo = self._enum_name(bound[1])
            base = self._uint(cx, bound[2])
            parts = FL.flatten(cx, bound[3])
            data = FL.bytes_code(parts)
            mx = self._uint(cx, bound[4])
            width = T.width_of(dt)
            if algo == "random":
                code = f"ctx.random_hash({base}, {mx}, {width})"
            else:
                code = _hash_code(algo, base, data, mx, width, _algo_code(algo, parts, data))
            cx.assign(dst, V(code, dt))
            return V("", T.VOID)
        if name == "random":
            dst = bound[0]
            dt = cx.expr(dst).type
            lo = self._uint(cx, bound[1])
            hi = self._uint(cx, bound[2])
            cx.assign(dst, V(f"ctx.random({lo}, {hi})", dt))
            return V("", T.VOID)
        if name in ("verify_checksum", "verify_checksum_with_payload"):
            cond = cx.convert(cx.expr(bound[0]), T.BOOL, pos).code
            parts = FL.flatten(cx, bound[1])
            data = FL.bytes_code(parts)
            ck = cx.expr(bound[2])
            algo = self._enum_name(bound[3])
            valid = FL.valid_of(cx, bound[2])
            if name.endswith("payload"):
                data = f"{data} + ctx.payload"
            if algo not in BMV2_ALGORITHMS:  # refused at run time, as BMv2 does
                return V(f"ctx.verify_checksum({cond}, {valid}, {algo!r}, {data})", T.VOID)
            # BMv2 checks the header's validity, then the condition, then compares the
            # untruncated result with the field
            result = _csum16_code(algo, name, parts, valid)  # 16 bits: nothing to mask
            if result is None:
                result = f"_HASHES[{algo!r}]({data}) & {U64_MASK:#x}"
            tested = _tests_validity(cx, bound[0], valid)
            cx.line(f"if {cond}:" if tested else f"if {valid} and {cond}:")
            with cx.indent():
                cx.line(f"if {result} != {as_bits(ck.code, ck.type)}:")
                with cx.indent():
                    cx.line("ctx.std.checksum_error = 1")
            return V("", T.VOID)
        if name in ("update_checksum", "update_checksum_with_payload"):
            cond = cx.convert(cx.expr(bound[0]), T.BOOL, pos).code
            parts = FL.flatten(cx, bound[1])
            data = FL.bytes_code(parts)
            dst = bound[2]
            dt = cx.expr(dst).type
            algo = self._enum_name(bound[3])
            if name.endswith("payload"):
                data = f"{data} + ctx.payload"
            width = T.width_of(dt)
            if algo in BMV2_ALGORITHMS:
                pv = parts[0].valid if parts else "True"  # the list's header, tested by `cond`?
                known = pv if _tests_validity(cx, bound[0], pv) else "True"
                folded = _csum16_code(algo, name, parts, known)
                if folded is not None and width >= 16:  # a csum16 fold is 16 bits: no mask
                    code = folded
                else:
                    result = folded or f"_HASHES[{algo!r}]({data})"
                    code = f"{result} & {(1 << min(width, 64)) - 1:#x}"
            else:  # refused at run time, as BMv2 does
                code = f"_checksum({algo!r}, {data}, {width})"
            cx.line(f"if {cond}:")
            with cx.indent():
                cx.assign(dst, V(code, dt))
            return V("", T.VOID)
        if name in ("clone", "clone3", "clone_preserving_field_list"):
            ctype = self._enum_name(bound[0])
            want = "ingress" if ctype == "I2E" else "egress"
            self._only_in(cx, want, f"clone({ctype}, ...)", pos)
            session = self._uint(cx, bound[1])
            fl = "None"
            if name == "clone_preserving_field_list":
                fl = self._uint(cx, bound[2])
            elif name == "clone3":
                raise P4Unsupported.at(pos, "clone3 (use clone_preserving_field_list)")
            return V(f"ctx.clone({ctype!r}, {session}, {fl})", T.VOID)
        if name in ("resubmit", "resubmit_preserving_field_list"):
            self._only_in(cx, "ingress", "resubmit", pos)
            fl = self._uint(cx, bound[0]) if name.endswith("list") else "None"
            return V(f"ctx.resubmit({fl})", T.VOID)
        if name in ("recirculate", "recirculate_preserving_field_list"):
            self._only_in(cx, "egress", "recirculate", pos)
            fl = self._uint(cx, bound[0]) if name.endswith("list") else "None"
            return V(f"ctx.recirculate({fl})", T.VOID)
        if name == "truncate":
            return V(f"ctx.truncate({self._uint(cx, bound[0])})", T.VOID)
        if name == "digest":
            recv = self._uint(cx, bound[0])
            digest_type = cx.resolve_type(c.type_args[0]) if c.type_args else None
            value = cx.expr(bound[1], digest_type)
            if digest_type is not None:
                value = cx.convert(value, digest_type, pos)
            dtype = T.strip_newtype(value.type)
            dname = getattr(dtype, "name", "digest")
            if isinstance(dtype, T.TupleType | T.ListType):
                # a list of values, no struct type: p4c names it `digest_N`, N counting
                # such calls in program order
                dname = self._anonymous_digests.setdefault(
                    pos, f"digest_{len(self._anonymous_digests)}"
                )
                if not cx.has_digest(dname):
                    fields = tuple(
                        pinfo.HeaderFieldSpec(f"f{i}", T.width_of(ft), (), ft)
                        for i, ft in enumerate(dtype.elements)
                    )
                    cx.add_digest(pinfo.DigestSpec(dname, fields, T.TupleType(dtype.elements)))
            elif isinstance(dtype, T.StructLikeType) and not cx.has_digest(dname):
                cx.add_digest(
                    pinfo.DigestSpec(
                        dname,
                        tuple(
                            pinfo.HeaderFieldSpec(n, T.width_of(ft), (), ft)
                            for n, ft in dtype.fields.items()
                        ),
                        value.type,
                    )
                )
            return V(
                f"ctx.digest({recv}, {dname!r}, {cx.copy_code(value.code, value.type)})", T.VOID
            )
        if name in ("assert", "assume"):
            cond = cx.convert(cx.expr(bound[0]), T.BOOL, pos).code
            return V(f"ctx.check({cond}, {name!r}, {str(pos)!r})", T.VOID)
        if name == "log_msg":
            msg = cx.expr(bound[0]).code
            data = "()"
            if len(bound) > 1 and bound[1] is not None:
                data = cx.expr(bound[1]).code
            return V(f"ctx.log_msg({msg}, {data})", T.VOID)
        if name == "verify":
            cond = cx.convert(cx.expr(bound[0]), T.BOOL, pos).code
            err = cx.expr(bound[1]).code
            cx.line(f"if not {cond}:")
            with cx.indent():
                cx.line(f"raise _ParserError({err})")
            return V("", T.VOID)
        del args
        raise P4Unsupported.at(pos, f"extern function {name}")

    @staticmethod
    def _only_in(cx: ArchContext, role: str, what: str, pos: Any) -> None:
        """p4c-bm2-ss refuses these externs outside the block that BMv2 can run them in."""
        if cx.block_role is not None and cx.block_role != role:
            raise P4Unsupported.at(pos, f"'{what}' can only be used in {role} on this target")

    def check_block(self, cx: ArchContext, role: str, arg: A.Expr) -> None:
        """BMv2's checksum blocks hold only checksum calls (p4c-bm2-ss refuses the rest)."""
        if role not in ("verify", "compute"):
            return
        t: T.P4Type | None
        if isinstance(arg, A.Construct):
            t = cx.resolve_type(arg.ref)
        else:
            t = cx.type_of_name(getattr(arg, "name", ""))
        decl = getattr(t, "decl", None)
        if not isinstance(decl, A.ControlDecl):
            return
        allowed = (
            ("verify_checksum", "verify_checksum_with_payload")
            if role == "verify"
            else ("update_checksum", "update_checksum_with_payload")
        )
        self._check_checksum_stmts(cx, decl, decl.body.stmts, allowed)

    def _check_inlined_args(self, decl: A.ControlDecl, allowed: tuple[str, str]) -> None:
        """p4c inlines an applied control by substituting its arguments only when every
        apply of that instance passes the same arguments and no two of them overlap (`hdr`
        and `hdr.s`, `hdr.s` twice); otherwise it copies them in and out, and the copies
        are statements a checksum block may not hold. A direct `Ctl.apply(...)` is an
        instance of its own, applied once."""
        calls: dict[str, list[A.Call]] = {}
        for call in _apply_calls(decl.body.stmts):
            f = call.func
            assert isinstance(f, A.Member)
            local = isinstance(f.base, A.NameRef) and any(
                isinstance(d, A.Instance) and d.name == f.base.name for d in decl.locals
            )
            key = f.base.name if local and isinstance(f.base, A.NameRef) else str(id(call))
            calls.setdefault(key, []).append(call)
        for call in (c for group in calls.values() for c in group):
            for a in call.args:
                if _has_conditional(a.value):
                    raise P4Unsupported.at(
                        a.pos,
                        "a ?: argument is evaluated by an if statement, and only calls to "
                        f"{allowed[0]} or {allowed[1]} are allowed here on this target",
                    )
        for name, group in calls.items():
            keys = {tuple(_expr_key(a.value) for a in c.args) for c in group}
            if len(keys) > 1 or any(None in k for k in keys) and len(group) > 1:
                raise P4Unsupported.at(
                    group[1].pos,
                    f"'{name}' is applied with different arguments, so they are copied in and "
                    f"out, and only calls to {allowed[0]} or {allowed[1]} are allowed here "
                    "on this target",
                )
            locs = [loc for arg in group[0].args if (loc := _location(arg.value)) is not None]
            for i, la in enumerate(locs):
                for lb in locs[i + 1 :]:
                    n = min(len(la), len(lb))
                    if la[:n] == lb[:n]:
                        raise P4Unsupported.at(
                            group[0].pos,
                            f"arguments {'.'.join(la)} and {'.'.join(lb)} overlap, so they are "
                            f"copied in and out, and only calls to {allowed[0]} or "
                            f"{allowed[1]} are allowed here on this target",
                        )

    def _check_checksum_stmts(
        self,
        cx: ArchContext,
        decl: A.ControlDecl,
        stmts: tuple[A.Stmt, ...],
        allowed: tuple[str, str],
        depth: int = 0,
    ) -> None:
        """p4c inlines the controls a checksum block applies before it checks the block:
        `inner.apply(...)` is allowed when `inner`'s own body holds only checksum calls."""
        if not depth:
            self._check_inlined_args(decl, allowed)
        for st in stmts:
            if isinstance(st, A.Block):
                self._check_checksum_stmts(cx, decl, st.stmts, allowed, depth)
            elif isinstance(st, A.EmptyStmt):
                continue
            elif (inner := self._applied_control(cx, decl, st)) is not None and depth < 16:
                self._check_inlined_args(inner, allowed)
                self._check_checksum_stmts(cx, inner, inner.body.stmts, allowed, depth + 1)
            elif (
                isinstance(st, A.CallStmt)
                and isinstance(st.call.func, A.NameRef)
                and st.call.func.name in allowed
            ):
                for a in st.call.args[1:2]:
                    if a.value is not None:
                        _check_simple(a.value, allowed[0])
            else:
                raise P4Unsupported.at(
                    st.pos,
                    f"only calls to {allowed[0]} or {allowed[1]} are allowed here on this target",
                )

    @staticmethod
    def _applied_control(cx: ArchContext, decl: A.ControlDecl, st: A.Stmt) -> A.ControlDecl | None:
        """The control declaration behind `x.apply(...);` for a local instance `x`, or
        behind a direct invocation `Ctl.apply(...);` of a control type."""
        if not isinstance(st, A.CallStmt):
            return None
        f = st.call.func
        if not (isinstance(f, A.Member) and f.name == "apply"):
            return None
        ref: A.TypeRef | None = None
        if isinstance(f.base, A.TypeNameExpr):
            ref = f.base.ref
        elif isinstance(f.base, A.NameRef):
            name = f.base.name
            inst = next(
                (d for d in decl.locals if isinstance(d, A.Instance) and d.name == name), None
            )
            ref = inst.type_ref if inst is not None else A.NamedTypeRef(f.base.pos, name)
        if ref is None:
            return None
        try:
            inner = getattr(cx.resolve_type(ref), "decl", None)
        except P4Error:
            return None
        return inner if isinstance(inner, A.ControlDecl) else None

    def _uint(self, cx: ArchContext, e: A.Expr | None) -> str:
        if e is None:
            return "0"
        v = cx.expr(e)
        return as_bits(v.code, v.type)

    def _enum_name(self, e: A.Expr | None) -> str:
        if isinstance(e, A.Member) and isinstance(e.base, A.TypeNameExpr):
            return e.name
        raise P4TypeError.at(e.pos if e is not None else None, "an enum member is expected here")  # type: ignore[arg-type]

    # ------------------------------------------------------------ the package
    def package(self, cx: ArchContext, d: A.Instance, blocks: list[InstanceSym]) -> None:
        t = cx.resolve_type(d.type_ref)
        if not isinstance(t, T.BlockType) or t.name != "V1Switch":
            raise P4Unsupported.at(d.pos, f"package {t} (softswitch runs v1model's V1Switch)")
        if len(blocks) != 6:
            raise P4TypeError.at(d.pos, "V1Switch takes 6 blocks")
        parser = blocks[0].decl
        htype = cx.resolve_type(parser.params[1].type_ref)
        mtype = cx.resolve_type(parser.params[2].type_ref)
        stype = cx.resolve_type(parser.params[3].type_ref)
        for b, kind in zip(
            blocks, ("parser", "control", "control", "control", "control", "control"), strict=True
        ):
            if b.decl is None or (kind == "parser") != isinstance(b.decl, A.ParserDecl):
                raise P4TypeError.at(d.pos, f"V1Switch argument {b.qualified} has the wrong kind")
        self._controller_headers(cx, htype)
        roles = ("parser", "verify", "ingress", "egress", "compute", "deparser")
        items = ", ".join(f"{r}={b.py}" for r, b in zip(roles, blocks, strict=True))
        # a deparser that only emits headers of its struct: also as one function that
        # resets the headers as it deparses them (the switch reuses them for the next packet)
        emitted = _emitted_headers(cx, blocks[5].decl, htype)
        fn = None
        if emitted is not None and isinstance(htype, T.StructLikeType):
            fn = cx.deparse_reset(htype, emitted)
        if fn is not None:
            items += f", deparse_reset={fn}"
        cx.line(
            f"return dict({items}, H={getattr(htype, 'pyname', 'None')}, "
            f"M={getattr(mtype, 'pyname', 'None')}, S={getattr(stype, 'pyname', 'None')})"
        )

    def _controller_headers(self, cx: ArchContext, htype: T.P4Type) -> None:
        for st in cx.struct_types.values():
            ann = A.find_annotation(st.annotations, "controller_header")
            if ann is None or not st.is_header:
                continue
            name = ann.string_value() or st.name
            fields = tuple(_flat_fields(cx, st, ""))
            cx.add_controller_header(
                pinfo.ControllerHeaderSpec(name, st.name, fields, cx.annotations(st.annotations))
            )
        del htype


def _emitted_headers(cx: ArchContext, decl: Any, htype: T.P4Type) -> list[str] | None:
    """The fields of `htype` a deparser control emits, in order, when its body is only
    `packet.emit(hdr.<field>)` and `packet.emit(hdr)` (every field) statements on its two
    parameters, each field once (no locals, no other statement); None otherwise."""
    if not isinstance(decl, A.ControlDecl) or decl.locals or decl.ctor_params:
        return None
    if len(decl.params) != 2 or not isinstance(htype, T.StructLikeType):
        return None
    if cx.resolve_type(decl.params[1].type_ref) is not htype:
        return None
    pkt, hdr = decl.params[0].name, decl.params[1].name
    names: list[str] = []
    for st in decl.body.stmts:
        if not isinstance(st, A.CallStmt):
            return None
        f, args = st.call.func, st.call.args
        if not (
            isinstance(f, A.Member)
            and f.name == "emit"
            and isinstance(f.base, A.NameRef)
            and f.base.name == pkt
            and len(args) == 1
        ):
            return None
        a = args[0].value
        if isinstance(a, A.NameRef) and a.name == hdr:  # the whole struct: its fields in order
            fields = list(htype.fields)
        elif isinstance(a, A.Member) and isinstance(a.base, A.NameRef) and a.base.name == hdr:
            fields = [a.name]
        else:
            return None
        for n in fields:
            if n not in htype.fields or n in names:
                return None
            names.append(n)
    return names


def _apply_calls(stmts: tuple[A.Stmt, ...]) -> list[A.Call]:
    """The `x.apply(...)` calls among `stmts` (in blocks too), in order."""
    out: list[A.Call] = []
    for st in stmts:
        if isinstance(st, A.Block):
            out.extend(_apply_calls(st.stmts))
        elif (
            isinstance(st, A.CallStmt)
            and isinstance(st.call.func, A.Member)
            and st.call.func.name == "apply"
        ):
            out.append(st.call)
    return out


def _expr_key(e: A.Expr | None) -> object:
    """An argument's shape without its position, to compare two calls' arguments (None:
    a shape not compared, such as an arithmetic expression)."""
    if isinstance(e, A.NameRef):
        return ("name", e.name)
    if isinstance(e, A.Member):
        base = _expr_key(e.base)
        return None if base is None else ("member", base, e.name)
    if isinstance(e, A.Index):
        base, index = _expr_key(e.base), _expr_key(e.index)
        return None if base is None or index is None else ("index", base, index)
    if isinstance(e, A.IntLit):
        return ("int", e.value, e.width, e.signed)
    if isinstance(e, A.BoolLit):
        return ("bool", e.value)
    return None


def _has_conditional(e: A.Expr | None) -> bool:
    """Whether `e` holds a `?:` (p4c turns it into an if statement before the checks)."""
    if isinstance(e, A.Conditional):
        return True
    if isinstance(e, (A.Unary, A.Cast)):
        return _has_conditional(e.operand)
    if isinstance(e, A.Binary):
        return _has_conditional(e.left) or _has_conditional(e.right)
    return False


def _location(e: A.Expr | None) -> tuple[str, ...] | None:
    """The storage an argument names, as a path of names (a stack element stands for its
    whole stack); None for a value that names no storage."""
    if isinstance(e, A.NameRef):
        return (e.name,)
    if isinstance(e, A.Member):
        base = _location(e.base)
        return None if base is None else (*base, e.name)
    if isinstance(e, (A.Index, A.Slice)):
        return _location(e.base)
    return None


def _algo_code(algo: str, parts: list[FL.Part], data: str) -> str:
    """Code for the algorithm's value over the field list (serialised as `data`).
    `identity` of a list of fixed fields is the list's first 8 bytes as an int, taken from
    the fields without making bytes; `crc32` calls zlib's directly."""
    if algo == "identity":
        packed = FL.int_code(parts)
        if packed is not None:
            code, nbytes, valid = packed
            if nbytes > 8:
                code = f"({code} >> {8 * (nbytes - 8)})"
            return code if valid == "True" else f"({code} if {valid} else 0)"
    if algo == "crc32":
        return f"_crc32({data})"
    return f"_HASHES[{algo!r}]({data})"


def _hash_code(
    algo: str, base: str, data: str, max_: str, width: int, value: str | None = None
) -> str:
    """Code for BMv2's `hash()` result: base + (algo(data) mod max), in uint64_t
    arithmetic, cut to the destination's width; max == 0 counts as 1 (the result is base).
    `value` is code for algo(data) when the caller has a cheaper form of it."""
    if algo not in BMV2_ALGORITHMS or not _is_int(base):
        return f"_hash({algo!r}, {base}, {data}, {max_}, {width})"
    hv = value or f"_HASHES[{algo!r}]({data})"
    mask = (1 << width) - 1 if width < 64 else U64_MASK
    if not _is_int(max_):  # max known at run time only
        b = int(base, 0) & U64_MASK
        h = f"(({hv} & {U64_MASK:#x}) % (({max_}) & {U64_MASK:#x} or 1))"
        return f"(({h} + {b:#x}) & {mask:#x})" if b else f"({h} & {mask:#x})"
    b, m = int(base, 0) & U64_MASK, int(max_, 0) & U64_MASK
    if m <= 1:
        return f"{b & mask:#x}"
    h = f"({hv} & {U64_MASK:#x})"
    if m <= U64_MASK and (m & (m - 1)) == 0:
        h = f"({h} & {m - 1:#x})"
    else:
        h = f"({h} % {m:#x})"
    return f"(({h} + {b:#x}) & {mask:#x})" if b else (f"({h} & {mask:#x})" if mask < m - 1 else h)


def _is_int(code: str) -> bool:
    try:
        int(code, 0)
    except ValueError:
        return False
    return True


def _flat_fields(cx: ArchContext, st: T.StructLikeType, prefix: str) -> list[pinfo.HeaderFieldSpec]:
    """Fields of a controller header, struct-typed fields flattened as `a.b` (as p4c)."""
    out: list[pinfo.HeaderFieldSpec] = []
    for n, ft in st.fields.items():
        f0 = T.strip_newtype(ft)
        if isinstance(f0, T.StructLikeType):
            out.extend(_flat_fields(cx, f0, f"{prefix}{n}."))
            continue
        annots = cx.field_annotations(st.name, n)
        out.append(pinfo.HeaderFieldSpec(prefix + n, T.width_of(ft), cx.annotations(annots), ft))
    return out


def _check_simple(e: A.Expr, where: str) -> None:
    """Checksum field lists: fields, constants and lists only (no computations)."""
    if isinstance(e, A.ListExpr):
        for i in e.items:
            _check_simple(i, where)
    elif isinstance(e, A.StructExpr):
        for _n, i in e.fields:
            _check_simple(i, where)
    elif isinstance(e, A.Member | A.Index):
        _check_simple(e.base, where)
    elif isinstance(e, A.NameRef | A.IntLit | A.BoolLit | A.TypeNameExpr):
        return
    else:
        raise P4Unsupported.at(e.pos, f"computations are not supported in {where} on this target")


def _tests_validity(cx: ArchContext, cond: A.Expr | None, valid: str) -> bool:
    """Whether condition `cond` can only hold while the header whose validity code is
    `valid` is valid: it is that header's `isValid()`, or an `&&` with such a side (so
    `valid` need not be tested again)."""
    if isinstance(cond, A.Binary) and cond.op == "&&":
        return _tests_validity(cx, cond.left, valid) or _tests_validity(cx, cond.right, valid)
    if not (isinstance(cond, A.Call) and isinstance(cond.func, A.Member)):
        return False
    is_valid = cond.func.name == "isValid" and not cond.args
    return is_valid and valid != "True" and FL.valid_of(cx, cond.func) == valid


def _csum16_code(
    algo: str, extern: str, parts: list[FL.Part], known_valid: str = "True"
) -> str | None:
    """A checksum extern's csum16 over its field list packed as one int (no bytes made,
    the same result), where the algorithm is csum16 and the list is one header's or
    metadata's fixed-width fields without the payload; else None. `known_valid`: the
    validity the code runs under."""
    if algo not in ("csum16", "cksum16") or extern.endswith("payload"):
        return None
    return FL.csum16_code(parts, known_valid)
