"""Tables, select keysets and value sets."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import program_info as pinfo
from ..engine import matches as M
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from .effects import ast_nodes, plain_path
from .operands import as_number
from .printer import expr_text
from .structured import annots_ir
from .symbols import ActionSym, InstanceSym, TableSym, ValueSetSym
from .values import V, as_bits, copies_back, is_scalar, mask

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState

DEFAULT_TABLE_SIZE = 1024


# key code that only reads values (names, fields, masks, shifts): safe not to evaluate
_PURE_KEY = re.compile(r"[\w.\s()&|<>,+-]*")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")


class Tables:
    """The tables part of the generator: tables (keys, actions, default action, constant
    entries, properties), value sets, select keysets, and the control-plane specs of
    tables, actions and value sets."""

    __slots__ = ("gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts

    def key_text(self, e: A.Expr) -> str:
        """A key's name as p4c writes it in P4Info: the expression as written, except that
        a struct or header field with `@name("x")` is called x (`@name(".x")`: the name
        starts there, as programs translated from P4_14 name their metadata)."""
        if (
            isinstance(e, A.Call)
            and isinstance(e.func, A.Member)
            and e.func.name == "isValid"
            and not e.args
            and plain_path(e.func.base)
        ):
            return f"{self.key_text(e.func.base)}.$valid$"
        if isinstance(e, A.Index) and plain_path(e.base):
            return f"{self.key_text(e.base)}[{expr_text(e.index)}]"
        if not isinstance(e, A.Member) or not plain_path(e.base):
            return expr_text(e)
        base = T.strip_newtype(self.gen.exprs.expr(e.base).type)
        if isinstance(base, T.StructLikeType):
            ann = A.find_annotation(
                self.st.field_annotations.get(base.name, {}).get(e.name, ()), "name"
            )
            s = ann.string_value() if ann is not None else None
            if s:
                return s[1:] if s.startswith(".") else f"{self.key_text(e.base)}.{s}"
        return f"{self.key_text(e.base)}.{e.name}"

    # ------------------------------------------------------------ select keysets
    def simple_keyset_cond(self, item: A.Expr, key: V, pos: Any) -> str:
        # a serializable enum key is masked and ranged as its underlying number
        nt = as_number(key.type)
        kt = T.strip_newtype(nt)
        kcode = as_bits(key.code, kt) if isinstance(kt, T.BitType) else key.code
        if isinstance(item, A.DefaultKeyset | A.DontCare):
            return "True"
        if isinstance(item, A.MaskKeyset):
            v = self.gen.exprs.convert(self.gen.exprs.expr(item.value, nt), nt, pos)
            m = self.gen.exprs.convert(self.gen.exprs.expr(item.mask, nt), nt, pos)
            if not (v.is_const and m.is_const):
                raise P4TypeError.at(pos, "keyset masks must be constants")
            w = T.width_of(kt)
            mm = m.const & mask(w)
            return f"({kcode} & {mm}) == {v.const & mm & mask(w)}"
        if isinstance(item, A.RangeKeyset):
            lo = self.gen.exprs.convert(self.gen.exprs.expr(item.lo, nt), nt, pos)
            hi = self.gen.exprs.convert(self.gen.exprs.expr(item.hi, nt), nt, pos)
            if not (lo.is_const and hi.is_const):
                raise P4TypeError.at(pos, "keyset ranges must be constants")
            return f"{lo.code} <= {key.code} <= {hi.code}"
        if isinstance(item, A.NameRef):
            sym = self.st.scope.lookup(item.name)
            if isinstance(sym, ValueSetSym):
                return f"{sym.py}.match(({key.code},))"
        v = self.gen.exprs.convert(self.gen.exprs.expr(item, key.type), key.type, pos)
        if not v.is_const:
            raise P4TypeError.at(pos, f"{expr_text(item)}: a keyset value must be a constant")
        return f"{key.code} == {v.code}"

    def gen_value_set(self, d: A.ValueSetDecl) -> None:
        t = self.gen.types.resolve_type(d.element)
        size = self.gen.exprs.const_int(d.size)
        qualified = self.gen.blocks.qualify(d.name, d.annotations)
        py = self.st.unique("vs_" + d.name)
        fields = self.value_set_fields(t, d.pos)
        self.st.info.value_sets[qualified] = pinfo.ValueSetSpec(
            qualified, size, fields, annots_ir(d.annotations, self.gen.exprs)
        )
        self.st.out.line(f"{py} = rt.value_set({qualified!r})")
        self.st.scope.define(d.name, ValueSetSym(py, t, qualified))

    def value_set_fields(self, t: T.P4Type, pos: Any) -> tuple[pinfo.HeaderFieldSpec, ...]:
        t0 = T.strip_newtype(t)
        if not _value_set_element(t0):
            raise P4Unsupported.at(
                pos,
                f"value_set<{t}>: a value set holds bit<W>, a serializable enum or a struct of"
                " them (as p4c-bm2-ss takes it)",
            )
        if isinstance(t0, T.StructLikeType):
            fa = self.st.field_annotations.get(t0.name, {})
            return tuple(
                pinfo.HeaderFieldSpec(
                    n, T.width_of(ft), annots_ir(fa.get(n, ()), self.gen.exprs), ft
                )
                for n, ft in t0.fields.items()
            )
        return (pinfo.HeaderFieldSpec("", T.width_of(t0), (), t0),)

    # ------------------------------------------------------------ actions
    def record_action(self, d: A.ActionDecl, qualified: str) -> None:
        params = []
        for p in d.params:
            if p.direction:
                if isinstance(self.gen.types.resolve_type(p.type_ref), T.IntLiteralType):
                    raise P4TypeError.at(p.pos, f"{p.name}: an int parameter has no direction")
                continue
            t = self.gen.types.resolve_type(p.type_ref)
            if isinstance(T.strip_newtype(t), T.ExternType):
                raise P4TypeError.at(p.pos, f"{p.name}: an action parameter cannot be an extern")
            params.append(
                pinfo.ParamSpec(
                    p.name,
                    T.width_of(t),
                    annots_ir(p.annotations, self.gen.exprs),
                    self.named_type(p),
                    t,
                )
            )
        idn = A.find_annotation(d.annotations, "id")
        if A.find_annotation(d.annotations, "hidden") is None:
            self.st.info.actions.setdefault(
                qualified,
                pinfo.ActionSpec(
                    qualified,
                    tuple(params),
                    annots_ir(d.annotations, self.gen.exprs),
                    idn.int_value() if idn else None,
                    self.st.inst.qualified if self.st.inst is not None else "",
                ),
            )

    def named_type(self, p: Any) -> str:
        ref = p.type_ref
        if isinstance(ref, A.NamedTypeRef) and ref.name in self.st.type_names:
            return ref.name
        return ""

    def action_index(self, table: TableSym, name: str, pos: Any) -> int:
        for i, a in enumerate(table.decl.actions):
            if a.name.lstrip(".") == name:
                return i
        if name == "NoAction" and table.decl.prop("default_action") is None:
            # a table without a default action gets NoAction, after its own (gen_table)
            return len(table.decl.actions)
        raise P4TypeError.at(pos, f"{name} is not an action of table {table.decl.name}")

    # ------------------------------------------------------------ tables
    def gen_table(self, d: A.TableDecl) -> None:  # noqa: C901
        qualified = self.gen.blocks.qualify(d.name, d.annotations)
        py = self.st.unique("t_" + d.name)
        tpy = self.st.unique("T_" + d.name)
        sym = TableSym(d, py, qualified)
        keys: list[pinfo.KeySpec] = []
        sel_keys: list[pinfo.KeySpec] = []
        key_codes: list[str] = []
        sel_codes: list[str] = []
        for k in d.keys:
            v = self.gen.exprs.expr(k.expr)
            kt = T.strip_newtype(v.type)
            if isinstance(kt, T.BoolType):
                code, width = f"int({v.code})", 1
            elif isinstance(kt, T.BitType | T.EnumType | T.ErrorType):
                code, width = as_bits(v.code, kt), T.width_of(kt)
            else:
                raise P4TypeError.at(k.pos, f"cannot match on a value of type {v.type}")
            if k.match_kind not in self.st.match_kind_type.members:
                raise P4TypeError.at(k.pos, f"{k.match_kind}: unknown match kind")
            nm = A.find_annotation(k.annotations, "name")
            if nm is None and not _nameable(k.expr):
                raise P4TypeError.at(
                    k.pos, f"{expr_text(k.expr)}: a complex key expression needs a @name"
                )
            kname = (nm.string_value() if nm else None) or self.key_text(k.expr)
            kspec = pinfo.KeySpec(
                kname,
                k.match_kind,
                width,
                annots_ir(k.annotations, self.gen.exprs),
                self.key_type_name(k.expr),
                v.type,
                len(keys) + len(sel_keys),
            )
            if k.match_kind == "selector":
                sel_keys.append(kspec)
                sel_codes.append(code)
            else:
                keys.append(kspec)
                key_codes.append(code)
        # actions
        action_refs: list[pinfo.ActionRefSpec] = []
        fns: list[str] = []
        for ar in d.actions:
            asym = self.st.scope.lookup(ar.name.lstrip("."))
            if not isinstance(asym, ActionSym):
                raise P4TypeError.at(ar.pos, f"{ar.name}: no such action")
            scope = "TABLE_AND_DEFAULT"
            if A.find_annotation(ar.annotations, "defaultonly"):
                scope = "DEFAULT_ONLY"
            elif A.find_annotation(ar.annotations, "tableonly"):
                scope = "TABLE_ONLY"
            action_refs.append(
                pinfo.ActionRefSpec(
                    asym.qualified, scope, annots_ir(ar.annotations, self.gen.exprs)
                )
            )
            if ar.args:
                fns.append(self.bound_action(asym, ar))
            else:
                fns.append(asym.py)
        # default action
        dprop = d.prop("default_action")
        if dprop is not None:
            dname, dargs = self.action_call_value(dprop.value, d, dprop.pos, "tableonly")
            dconst = dprop.const
        else:
            dname, dargs, dconst = "NoAction", (), False
            if not any(a.name == "NoAction" for a in action_refs):
                nsym = self.st.scope.lookup("NoAction")
                if isinstance(nsym, ActionSym):
                    action_refs.append(
                        pinfo.ActionRefSpec("NoAction", "DEFAULT_ONLY", (("defaultonly", ""),))
                    )
                    fns.append(nsym.py)
        size = DEFAULT_TABLE_SIZE
        sprop = d.prop("size")
        if sprop is not None:
            size = self.gen.exprs.const_int(sprop.value)
        impl = self.table_instance_prop(d, "implementation")
        dcounter = self.table_instance_prop(d, "counters")
        dmeter = self.table_instance_prop(d, "meters")
        timeout = d.prop("support_timeout")
        has_prio = any(k.match_kind in ("ternary", "range", "optional") for k in keys)
        entries = None
        if d.entries is not None:
            self._check_priorities(d, has_prio)
            entries = tuple(self.const_entry(e, d, keys, has_prio) for e in d.entries)
        spec = pinfo.TableSpec(
            name=qualified,
            keys=tuple(keys),
            actions=tuple(action_refs),
            size=size,
            default_action=dname,
            default_args=dargs,
            default_const=dconst,
            const_entries=entries,
            entries_const=d.entries_const,
            implementation=impl,
            direct_counter=dcounter,
            direct_meter=dmeter,
            selector_keys=tuple(sel_keys),
            support_timeout=bool(timeout and self.gen.exprs.expr(timeout.value).const),
            annotations=annots_ir(d.annotations, self.gen.exprs),
            hidden=A.find_annotation(d.annotations, "hidden") is not None,
            has_priority=has_prio,
        )
        self.st.info.tables[qualified] = spec
        here = self.st.inst.qualified if self.st.inst is not None else ""
        start = len(self.st.info.action_refs)
        for ref in spec.actions:
            self.st.info.action_refs.append((here, ref.name, "table"))
        self.st.info.action_refs.append((here, spec.default_action, "table"))
        self.st.table_refs[qualified] = (tpy, start, len(self.st.info.action_refs))
        self.st.out.line(
            f"{tpy} = rt.table({qualified!r}, ({', '.join(fns)}{',' if len(fns) == 1 else ''}))"
        )
        if all(not self._control_plane_params(a) for a in d.actions):
            sym.action_call = "{r}[2]()"  # every result's arguments are ()
        self.st.out.line(f"def {py}():")
        with self.st.out.indent():
            self.gen.blocks.emit_nonlocal()
            key = "(" + ", ".join(key_codes) + ("," if len(key_codes) == 1 else "") + ")"
            if sel_codes:
                sel = "(" + ", ".join(sel_codes) + ("," if len(sel_codes) == 1 else "") + ")"
                self.st.out.line(f"_r = {tpy}.lookup({key}, {sel})")
            elif _PURE_KEY.fullmatch(key) and not _CALL.search(key):
                # an empty table gives its default result without building the key
                self.st.out.line(f"_r = {tpy}.empty or {_hot(tpy)}({key})")
                if not self.st.trace_enabled:
                    sym.lookup = f"{tpy}.empty or {_hot(tpy)}({key})"
            else:
                self.st.out.line(f"_r = {_hot(tpy)}({key})")
            if self.st.trace_enabled:
                self.st.out.line(f"_trace('table', {qualified!r}, _r)")
            self.st.out.line(sym.action_call.format(r="_r"))
            self.st.out.line("return _r")
        self.st.scope.define(d.name, sym)

    def _control_plane_params(self, ar: A.ActionRef) -> list[A.Param]:
        asym = self.st.scope.lookup(ar.name.lstrip("."))
        assert isinstance(asym, ActionSym)  # gen_table checked it
        return control_plane_params(asym.decl)

    def key_type_name(self, e: A.Expr) -> str:
        return ""

    def bound_action(self, asym: ActionSym, ar: A.ActionRef) -> str:
        """`actions = { a(x); }`: the leading directional parameters are bound here."""
        py = self.st.unique(asym.py + "_bound")
        dir_params = [p for p in asym.decl.params if p.direction]
        if len(ar.args) > len(dir_params):
            raise P4TypeError.at(ar.pos, "too many bound arguments")
        for node in ast_nodes(ar.args):
            f = node.func if isinstance(node, A.Call) else None
            if isinstance(f, A.Member) and f.name == "apply" and isinstance(f.base, A.NameRef):
                if isinstance(self.st.scope.lookup(f.base.name), TableSym):
                    raise P4TypeError.at(node.pos, "a table is applied in an action argument")
        self.st.out.line(f"def {py}(*cp):")
        with self.st.out.indent():
            self.gen.blocks.emit_nonlocal()
            codes = []
            backs: list[tuple[A.Expr, T.P4Type]] = []
            for p, a in zip(dir_params, ar.args, strict=False):
                pt = self.gen.types.resolve_type(p.type_ref)
                assert a.value is not None
                v = self.gen.exprs.expr(a.value, pt)
                if p.direction == "out" and not is_scalar(pt):
                    codes.append(self.gen.types.zero_code(pt))
                else:
                    code = self.gen.exprs.convert(v, pt, a.pos).code
                    codes.append(
                        self.gen.types.copy_code(code, pt) if p.direction == "inout" else code
                    )
                if copies_back(p, pt):
                    backs.append((a.value, pt))
            call = f"{asym.py}({', '.join(codes)}, *cp)"
            if not backs:
                self.st.out.line(f"return {call}")
            else:
                self.st.out.line(f"_b = {call}")
                for i, (e, pt) in enumerate(backs):
                    self.gen.stmts.assign(e, V(f"_b[{i}]", pt))
        return py

    def table_instance_prop(self, d: A.TableDecl, prop: str) -> str | None:
        p = d.prop(prop)
        if p is None:
            return None
        if isinstance(p.value, A.NameRef):
            sym = self.st.scope.lookup(p.value.name)
            if isinstance(sym, InstanceSym):
                return sym.qualified
            raise P4TypeError.at(p.pos, f"{p.value.name} is not an extern instance")
        if isinstance(p.value, A.Construct):
            # an instance made in place: `implementation = action_selector(...);` is named
            # after the property's @name when it has one, else after the table (as p4c)
            nm = A.find_annotation(p.annotations, "name")
            name = (nm.string_value() if nm else None) or self.gen.blocks.qualify(
                d.name, d.annotations
            )
            inst = A.Instance(p.pos, f"{d.name}_{prop}", p.value.ref, p.value.args, p.annotations)
            sym = self.gen.blocks.gen_instance(inst, name.lstrip("."), in_place=True)
            return sym.qualified
        raise P4TypeError.at(p.pos, f"{prop} must name an extern instance")

    def _check_priorities(self, d: A.TableDecl, has_prio: bool) -> None:
        """p4c's rules for `priority=` in a table's entries: none under `const entries`,
        none where no key is ternary, range or optional; when one entry gives a priority
        the first gives one too, and with `largest_priority_wins` (the default) an entry
        without one takes the one before less `priority_delta` (default 1), which must
        leave room for that step below every entry, the last included ("Overflow in
        priority computation")."""
        entries = d.entries or ()
        given = [e for e in entries if e.priority is not None]
        if not given:
            return
        if d.entries_const:
            raise P4TypeError.at(given[0].pos, f"table {d.name}: const entries take no priorities")
        if not has_prio:
            raise P4TypeError.at(
                given[0].pos,
                f"table {d.name}: no key is ternary, range or optional, so entries take no"
                " priorities",
            )
        if entries[0].priority is None:
            raise P4TypeError.at(
                entries[0].pos,
                f"table {d.name}: entries give priorities, so the first must give one",
            )
        wins = d.prop("largest_priority_wins")
        if wins is not None and not self.gen.exprs.expr(wins.value).const:
            return  # smallest wins: priorities count up, with no bound that matters here
        step = d.prop("priority_delta")
        delta = self.gen.exprs.const_int(step.value) if step is not None else 1
        prio = 0
        for e in entries:
            prio = self.gen.exprs.const_int(e.priority) if e.priority is not None else prio - delta
            if prio < delta:
                raise P4TypeError.at(
                    e.pos,
                    f"table {d.name}: priority {prio} leaves no room for the next step of"
                    f" {delta} (overflow in priority computation)",
                )

    def action_call_value(
        self, e: A.Expr | A.ActionRef, d: A.TableDecl, pos: Any, refused: str
    ) -> tuple[str, tuple[int, ...]]:
        """The qualified action and argument values of a default action or an entry of
        table `d`; `refused`: the annotation of the table's actions this use may not take
        (`tableonly` for the default action, `defaultonly` for entries)."""
        args: tuple[A.Argument, ...]
        if isinstance(e, A.NameRef):
            name, args = e.name, ()
        elif isinstance(e, A.Call) and isinstance(e.func, A.NameRef):
            name, args = e.func.name, e.args
        elif isinstance(e, A.ActionRef):
            name, args = e.name, e.args
        else:
            raise P4TypeError.at(pos, "an action call is expected")
        name = name.lstrip(".")
        asym = self.st.scope.lookup(name)
        if not isinstance(asym, ActionSym):
            raise P4TypeError.at(pos, f"{name}: no such action")
        refs = [a for a in d.actions if a.name.lstrip(".") == name]
        if not refs:
            raise P4TypeError.at(pos, f"{name} is not in the actions of table {d.name}")
        if A.find_annotation(refs[0].annotations, refused):
            use = "as the default action" if refused == "tableonly" else "in an entry"
            raise P4TypeError.at(pos, f"{name}: an action marked @{refused} used {use}")
        cp = control_plane_params(asym.decl)
        ndir = len(asym.decl.params) - len(cp)
        args = args[ndir:] if len(args) >= ndir else args
        if len(args) != len(cp):
            raise P4TypeError.at(pos, f"{name} takes {len(cp)} control-plane arguments")
        vals = []
        for p, a in zip(cp, args, strict=True):
            pt = self.gen.types.resolve_type(p.type_ref)
            if a.value is None:
                raise P4TypeError.at(a.pos, "action arguments here must be constants")
            v = self.gen.exprs.convert(self.gen.exprs.expr(a.value, pt), pt, a.pos)
            if not v.is_const:
                raise P4TypeError.at(a.pos, "action arguments here must be constants")
            vals.append(int(v.const) & mask(T.width_of(pt)))
        return asym.qualified, tuple(vals)

    def const_entry(
        self,
        e: A.TableEntryDecl,
        d: A.TableDecl,
        keys: list[pinfo.KeySpec],
        has_prio: bool,
    ) -> pinfo.ConstEntrySpec:
        items = A.keyset_items(e.keyset)
        if len(items) != len(keys):
            raise P4TypeError.at(e.pos, f"{len(items)} key values for {len(keys)} keys")
        matches = []
        key_exprs = [k for k in d.keys if k.match_kind != "selector"]
        for item, k, kd in zip(items, keys, key_exprs, strict=True):
            matches.append(self.entry_match(item, k, kd.expr.type, e.pos))
        name, args = self.action_call_value(e.action, d, e.pos, "defaultonly")
        prio = self.gen.exprs.const_int(e.priority) if e.priority is not None else None
        ann = A.find_annotation(e.annotations, "priority")
        if prio is None and ann is not None:
            # BMv2's @priority(N): the smallest N wins; our tables let the largest win
            n = ann.int_value()
            if n is None:
                raise P4TypeError.at(e.pos, "@priority needs an integer")
            prio = -n
        return pinfo.ConstEntrySpec(tuple(matches), name, args, prio, e.is_const)

    def entry_match(self, item: A.Expr, k: pinfo.KeySpec, kt: Any, pos: Any) -> M.Match:
        w = k.width
        ty: T.P4Type = T.BitType(w)
        k0 = T.strip_newtype(kt) if kt is not None else None
        if isinstance(k0, T.BitType):
            ty = k0

        def val(x: A.Expr) -> int:
            v = self.gen.exprs.expr(x, ty)
            vt = T.strip_newtype(v.type)
            if isinstance(vt, T.BoolType):
                return int(bool(v.const))
            if isinstance(vt, T.EnumType | T.ErrorType) and v.is_const:
                return int(v.const) & mask(w)
            v = self.gen.exprs.convert(v, ty, pos)
            if not v.is_const:
                raise P4TypeError.at(pos, "entry keys must be constants")
            return int(v.const) & mask(w)

        if isinstance(item, A.DefaultKeyset | A.DontCare):
            return M.Wildcard()
        if (isinstance(item, A.MaskKeyset) and k.match_kind not in ("ternary", "lpm")) or (
            isinstance(item, A.RangeKeyset) and k.match_kind != "range"
        ):
            form = "mask (&&&)" if isinstance(item, A.MaskKeyset) else "range (..)"
            raise P4TypeError.at(item.pos, f"{k.name}: a {k.match_kind} key takes no {form}")
        if isinstance(item, A.MaskKeyset):
            value, m = val(item.value), val(item.mask)
            if k.match_kind == "lpm":
                plen = M.prefix_len_of_mask(m, w)
                if plen is None:
                    raise P4TypeError.at(pos, "lpm mask must be a prefix")
                return M.Lpm(value & m, plen)
            return M.Ternary(value & m, m)
        if isinstance(item, A.RangeKeyset):
            return M.Range(val(item.lo), val(item.hi))
        v = val(item)
        if k.match_kind == "lpm":
            return M.Lpm(v, w)
        if k.match_kind == "ternary":
            return M.Ternary(v, mask(w))
        if k.match_kind == "range":
            return M.Range(v, v)
        return M.Exact(v)


def control_plane_params(decl: A.ActionDecl) -> list[A.Param]:
    """The parameters of an action that a table entry gives (directionless)."""
    return [p for p in decl.params if not p.direction]


def _hot(tpy: str) -> str:
    """The call target of a table's lookup `hot`: read as an attribute (`hot` is an
    instance attribute, rebound by every change to the table), which the interpreter
    specialises, where `T.hot(key)` would look the name up anew for every packet."""
    return f"(_hot := {tpy}.hot)"


def _nameable(e: A.Expr) -> bool:
    """Whether p4c finds a control-plane name for key expression `e` without a @name:
    names, fields, constant-free indexes and slices of them, `&` of such, and isValid()."""
    if isinstance(e, A.NameRef | A.IntLit):
        return True
    if isinstance(e, A.Member):
        return _nameable(e.base)
    if isinstance(e, A.Index):
        return _nameable(e.base) and _nameable(e.index)
    if isinstance(e, A.Slice):
        return _nameable(e.base) and _nameable(e.hi) and _nameable(e.lo)
    if isinstance(e, A.Binary) and e.op == "&":
        return _nameable(e.left) and _nameable(e.right)
    if isinstance(e, A.Call):
        f = e.func
        return isinstance(f, A.Member) and f.name == "isValid" and not e.args and _nameable(f)
    return False


def _value_set_element(t: T.P4Type) -> bool:
    """Whether a value set may hold values of type `t` (stripped of newtypes): bits, a
    serializable enum, or a struct of them (nested structs too, as p4c-bm2-ss takes)."""
    if isinstance(t, T.StructLikeType):
        return t.kind == "struct" and all(
            _value_set_element(T.strip_newtype(ft)) for ft in t.fields.values()
        )
    return isinstance(t, T.BitType) or (isinstance(t, T.EnumType) and t.underlying is not None)
