"""ProgramInfo -> P4Info, the way `p4c-bm2-ss --p4runtime-files` builds it for v1model.

The control-plane view the code generator records (`softswitch.program_info.ProgramInfo`)
is turned into a `p4.config.v1.P4Info` message: ids and aliases as p4c gives them (see `ids`), the
same objects in the same order, the same annotations and the same `type_info`. What p4c
does and why is written up in the project notes; the points that matter here:

* Symbols: every action, table (also `@hidden` ones), extern instance, value set, digest
  and controller header takes part in id assignment and alias computation, even when it is
  not written out (hidden objects, unused direct counters).
* Order: controls are visited in pipeline order and all their actions come before any
  table; in a control, the top-level actions it uses come first (in order of first use),
  then its own actions. Tables, extern instances, value sets, digests and controller
  headers keep declaration order; direct counters/meters and in-place action profiles are
  written with their table.
* `type_info` is present (possibly empty) as soon as p4c would have touched it: any
  table, any action parameter, any extern instance, digest, controller header field or
  extern function call made from a control.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from p4rt_proto import p4info_pb2, p4types_pb2

from .. import program_info as pinfo
from ..frontend import types as T
from .ids import IdAllocator, P4InfoError, Prefix, field_ids

__all__ = ["build_p4info", "format_annotation"]

_MATCH_TYPES = {
    "exact": p4info_pb2.MatchField.EXACT,
    "lpm": p4info_pb2.MatchField.LPM,
    "ternary": p4info_pb2.MatchField.TERNARY,
    "range": p4info_pb2.MatchField.RANGE,
    "optional": p4info_pb2.MatchField.OPTIONAL,
}
_SCOPES = {
    "TABLE_AND_DEFAULT": p4info_pb2.ActionRef.TABLE_AND_DEFAULT,
    "TABLE_ONLY": p4info_pb2.ActionRef.TABLE_ONLY,
    "DEFAULT_ONLY": p4info_pb2.ActionRef.DEFAULT_ONLY,
}
_COUNTER_UNITS = {
    "packets": p4info_pb2.CounterSpec.PACKETS,
    "bytes": p4info_pb2.CounterSpec.BYTES,
    "packets_and_bytes": p4info_pb2.CounterSpec.BOTH,
}
_METER_UNITS = {
    "packets": p4info_pb2.MeterSpec.PACKETS,
    "bytes": p4info_pb2.MeterSpec.BYTES,
}
_EXTERN_PREFIX = {
    "counter": Prefix.COUNTER,
    "direct_counter": Prefix.DIRECT_COUNTER,
    "meter": Prefix.METER,
    "direct_meter": Prefix.DIRECT_METER,
    "register": Prefix.REGISTER,
    "action_profile": Prefix.ACTION_PROFILE,
    "action_selector": Prefix.ACTION_PROFILE,
}
# never echoed in `annotations`: represented elsewhere in the message
_NOT_ECHOED = frozenset({"name", "id", "brief", "description"})
# parsed by p4c as expression lists (printed back with ", "); everything else is kept as
# tokens and printed separated by single spaces
_EXPRESSION_ANNOTATIONS = frozenset(
    {"name", "deprecated", "noWarn", "length", "synchronous", "field_list", "match", "id"}
)
_NUMBER = r"(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)"
_TOKEN = re.compile(
    rf"""\s*(?:("(?:[^"\\]|\\.)*")|((?:\d+[wsWS])?{_NUMBER})"""
    r"""|([A-Za-z_$][\w$]*)|(&&&|\.\.|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|[^\s]))"""
)


# ---------------------------------------------------------------- annotations


def _tokens(body: str) -> list[str]:
    out = []
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None or m.end() == pos:
            break
        tok = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        if tok:
            out.append(tok)
        pos = m.end()
    return out


def _split_commas(tokens: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    depth = 0
    for t in tokens:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return parts


def format_annotation(name: str, body: str) -> str:
    """An annotation as p4c prints it back into P4Info (`@noWarn("unused")`)."""
    toks = _tokens(body)
    if not toks:
        return f"@{name}"
    if name in _EXPRESSION_ANNOTATIONS:
        inner = ", ".join(" ".join(p) for p in _split_commas(toks))
    else:
        inner = " ".join(toks)
    return f"@{name}({inner})"


def _string_arg(body: str) -> str | None:
    """The value of a single string-literal argument (as p4c keeps it: escapes as written)."""
    toks = _tokens(body)
    if len(toks) == 1 and toks[0].startswith('"'):
        return toks[0][1:-1]
    return None


def _int_arg(body: str) -> int | None:
    toks = _tokens(body)
    if len(toks) != 1:
        return None
    t = toks[0].replace("_", "")
    m = re.fullmatch(r"\d+[wsWS](\w+)", t)
    if m:
        t = m.group(1)
    try:
        return int(t, 0) if not re.fullmatch(r"0\d+", t) else int(t, 10)
    except ValueError:
        return None


def _annotation(annots: pinfo.Annotations, name: str) -> str | None:
    return pinfo.annotation(annots, name)


def _has(annots: pinfo.Annotations, name: str) -> bool:
    return any(n == name for n, _ in annots)


def _id_override(annots: pinfo.Annotations, what: str) -> int | None:
    body = _annotation(annots, "id")
    if body is None:
        return None
    v = _int_arg(body)
    if v is None or v < 0:
        raise P4InfoError(f"{what}: @id should be an unsigned integer")
    return v


def _translated_width(t: Any) -> int | None:
    """The controller's width of a type with @p4runtime_translation (0: a string), or None
    for a type without one."""
    body = _annotation(getattr(t, "annotations", ()) or (), "p4runtime_translation")
    if body is None:
        return None
    toks = [p for p in _split_commas(_tokens(body)) if p]
    ctl = toks[1] if len(toks) > 1 else []
    if not ctl or ctl[0].startswith('"') or ctl == ["string"]:
        return 0
    if ctl[:2] == ["bit", "<"] and len(ctl) > 2:  # bit<W>
        return _int_arg(ctl[2]) or 0
    return _int_arg(" ".join(ctl)) or 0


def _p4rt_width(t: Any, width: int) -> int:
    """The bitwidth P4Info gives a value of type `t`: the controller's width for a
    translated type (p4c's getTypeWidth), else `width`."""
    w = _translated_width(t) if isinstance(t, T.NewType) else None
    return width if w is None else w


def _add_annotations(msg: Any, annots: pinfo.Annotations, skip: Iterable[str] = ()) -> None:
    skipped = _NOT_ECHOED | frozenset(skip)
    for n, body in annots:
        value = pinfo.structured(body)
        if value is not None:
            _add_structured(msg, n, value)
        elif n not in skipped:
            msg.annotations.append(format_annotation(n, body))


def _add_structured(msg: Any, name: str, value: dict[str, list[Any]]) -> None:
    """A structured annotation, as p4c writes it (only where the message has room)."""
    if "structured_annotations" not in msg.DESCRIPTOR.fields_by_name:
        return
    sa = msg.structured_annotations.add(name=name)
    if "list" in value:
        sa.expression_list.SetInParent()
        for v in value["list"]:
            _structured_value(sa.expression_list.expressions.add(), v)
    elif "kv" in value:
        sa.kv_pair_list.SetInParent()
        for key, v in value["kv"]:
            _structured_value(sa.kv_pair_list.kv_pairs.add(key=key).value, v)


def _structured_value(expr: Any, v: pinfo.StructuredValue) -> None:
    if isinstance(v, bool):
        expr.bool_value = v
    elif isinstance(v, int):
        expr.int64_value = v
    else:
        expr.string_value = v


def _add_doc(msg: Any, annots: pinfo.Annotations) -> None:
    brief = _annotation(annots, "brief")
    desc = _annotation(annots, "description")
    if brief is not None:
        msg.doc.brief = _string_arg(brief) or ""
    if desc is not None:
        msg.doc.description = _string_arg(desc) or ""


def _preamble(
    msg: Any, ident: int, name: str, alias: str, annots: pinfo.Annotations, skip: Iterable[str] = ()
) -> None:
    pre = msg.preamble
    pre.id = ident
    pre.name = name
    pre.alias = alias
    _add_annotations(pre, annots, skip)
    _add_doc(pre, annots)


def _bytes(value: int, width: int) -> bytes:
    n = max((width + 7) // 8, 1)
    return (value & ((1 << (8 * n)) - 1)).to_bytes(n, "big")


# ---------------------------------------------------------------- types


class _TypeInfo:
    """Fills `type_info` the way p4c's TypeSpecConverter does."""

    def __init__(self, info: pinfo.ProgramInfo, type_info: p4types_pb2.P4TypeInfo) -> None:
        self.info = info
        self.ti = type_info

    def spec(self, t: Any) -> p4types_pb2.P4DataTypeSpec:
        s = p4types_pb2.P4DataTypeSpec()
        if isinstance(t, T.NewType):
            self.new_type(t)
            s.new_type.name = t.name
        elif isinstance(t, T.BitType):
            if t.signed:
                s.bitstring.int.bitwidth = t.width
            else:
                s.bitstring.bit.bitwidth = t.width
        elif isinstance(t, T.VarbitType):
            s.bitstring.varbit.max_bitwidth = t.max_width
        elif isinstance(t, T.BoolType):
            s.bool.SetInParent()
        elif isinstance(t, T.ErrorType):
            self.error(t)
            s.error.SetInParent()
        elif isinstance(t, T.EnumType):
            self.enum(t)
            if t.underlying is None:
                s.enum.name = t.name
            else:
                s.serializable_enum.name = t.name
        elif isinstance(t, T.StructLikeType):
            self.struct_like(t)
            if t.is_header:
                s.header.name = t.name
            elif t.is_union:
                s.header_union.name = t.name
            else:
                s.struct.name = t.name
        elif isinstance(t, T.StackType):
            self.struct_like(t.element)
            if t.element.is_union:
                s.header_union_stack.header_union.name = t.element.name
                s.header_union_stack.size = t.size
            else:
                s.header_stack.header.name = t.element.name
                s.header_stack.size = t.size
        elif isinstance(t, T.TupleType | T.ListType):
            for e in t.elements:
                s.tuple.members.add().CopyFrom(self.spec(e))
        else:
            raise P4InfoError(f"type {t} cannot be described in P4Info")
        return s

    def touch(self, t: Any) -> None:
        """Record a named type (and what it uses) in type_info, without a spec."""
        if t is not None:
            self.spec(t)

    def new_type(self, t: T.NewType) -> None:
        if t.name in self.ti.new_types:
            return
        base: Any = t
        while isinstance(base, T.NewType):
            base = base.base
        spec = self.spec(base)
        nt = p4types_pb2.P4NewTypeSpec()
        translation = _annotation(getattr(t, "annotations", ()) or (), "p4runtime_translation")
        if translation is not None:
            toks = [p for p in _split_commas(_tokens(translation)) if p]
            uri = _string_arg(" ".join(toks[0])) if toks else None
            nt.translated_type.uri = uri or ""
            ctl = _translated_width(t)
            if ctl == 0:
                nt.translated_type.sdn_string.SetInParent()
            elif ctl is not None:
                nt.translated_type.sdn_bitwidth = ctl
        else:
            nt.original_type.CopyFrom(spec)
        # the type's other annotations are echoed, as p4c does (SAI-P4's
        # @p4runtime_translation_mappings)
        _add_annotations(nt, getattr(t, "annotations", ()) or (), ("p4runtime_translation",))
        self.ti.new_types[t.name].CopyFrom(nt)

    def error(self, t: T.ErrorType) -> None:
        if self.ti.HasField("error"):
            return
        members = list(self.info.errors) or list(t.members)
        self.ti.error.members.extend(members)

    def enum(self, t: T.EnumType) -> None:
        if t.underlying is None:
            if t.name not in self.ti.enums:
                e = self.ti.enums[t.name]
                for m in t.members:
                    e.members.add().name = m
            return
        if t.name in self.ti.serializable_enums:
            return
        se = self.ti.serializable_enums[t.name]
        w = t.underlying.width
        se.underlying_type.bitwidth = w
        for m in t.members:
            mm = se.members.add()
            mm.name = m
            mm.value = _bytes(t.values[m], w)

    def struct_like(self, t: T.StructLikeType) -> None:
        if t.is_header:
            if t.name in self.ti.headers:
                return
            h = p4types_pb2.P4HeaderTypeSpec()
            for n, ft in t.fields.items():
                m = h.members.add()
                m.name = n
                m.type_spec.CopyFrom(self.spec(ft).bitstring)
            self.ti.headers[t.name].CopyFrom(h)
        elif t.is_union:
            if t.name in self.ti.header_unions:
                return
            u = p4types_pb2.P4HeaderUnionTypeSpec()
            for n, ft in t.fields.items():
                assert isinstance(ft, T.StructLikeType)
                self.struct_like(ft)
                m = u.members.add()
                m.name = n
                m.header.name = ft.name
            self.ti.header_unions[t.name].CopyFrom(u)
        else:
            if t.name in self.ti.structs:
                return
            s = p4types_pb2.P4StructTypeSpec()
            for n, ft in t.fields.items():
                m = s.members.add()
                m.name = n
                m.type_spec.CopyFrom(self.spec(ft))
            self.ti.structs[t.name].CopyFrom(s)


# ---------------------------------------------------------------- the builder


def _is_global(action: str) -> bool:
    return "." not in action


def _control_of(name: str) -> str:
    return name.split(".", 1)[0]


class _Builder:
    def __init__(self, info: pinfo.ProgramInfo, types: Mapping[str, Any]) -> None:
        self.info = info
        self.types = types
        self.p4info = p4info_pb2.P4Info()
        self.ids = IdAllocator()
        self.types_touched = False
        self.type_info = _TypeInfo(info, p4types_pb2.P4TypeInfo())
        self._order: list[tuple[pinfo.ActionSpec, bool]] | None = None

    # ------------------------------------------------------------ symbols
    def collect(self) -> None:
        info = self.info
        for a, _ in self.action_order():
            self.ids.add(Prefix.ACTION, a.name, a.id_override)
        for t in info.tables.values():
            self.ids.add(Prefix.TABLE, t.name, _id_override(t.annotations, t.name))
        for e in info.externs.values():
            prefix = _EXTERN_PREFIX.get(e.kind)
            if prefix is not None:
                self.ids.add(prefix, e.name, _id_override(e.annotations, e.name))
        for v in info.value_sets.values():
            self.ids.add(Prefix.VALUE_SET, v.name, _id_override(v.annotations, v.name))
        for d in info.digests.values():
            self.ids.add(Prefix.DIGEST, d.name)
        for h in info.controller_headers.values():
            self.ids.add(
                Prefix.CONTROLLER_HEADER, h.type_name, _id_override(h.annotations, h.type_name)
            )
        self.ids.assign()

    def action_order(self) -> list[tuple[pinfo.ActionSpec, bool]]:
        """Actions in p4c's order, each with whether its parameters survive.

        p4c localizes top-level actions into every control that uses them (the copies
        come first in the control, in order of first use), drops actions nothing uses,
        and removes all parameters of an action that is called directly.
        """
        if self._order is None:
            info = self.info
            recorded = bool(info.action_refs) or any(
                a.control is not None for a in info.actions.values()
            )
            self._order = self._recorded_order() if recorded else self._guessed_order()
        return self._order

    @staticmethod
    def _merge(first: list[str], second: list[str]) -> list[str]:
        """`first`, with the items only in `second` inserted after their predecessor there."""
        out = list(first)
        for i, c in enumerate(second):
            if c in out:
                continue
            before = [p for p in second[:i] if p in out]
            out.insert(out.index(before[-1]) + 1 if before else 0, c)
        return out

    def _recorded_order(self) -> list[tuple[pinfo.ActionSpec, bool]]:
        info = self.info
        own: dict[str, list[str]] = {}
        for a in info.actions.values():
            if a.control:
                own.setdefault(_control_of(a.control), []).append(a.name)
        refs: dict[str, list[str]] = {}
        direct: set[tuple[str, str]] = set()
        for control, action, how in info.action_refs:
            top = _control_of(control)
            refs.setdefault(top, []).append(action)
            if how == "call":
                direct.add((top, action))
        order: list[tuple[pinfo.ActionSpec, bool]] = []
        for top in self._merge(list(own), list(refs)):
            used = refs.get(top, [])
            names = [n for n in used if n in info.actions and not info.actions[n].control]
            names += [n for n in own.get(top, ()) if n in used]
            for n in dict.fromkeys(names):
                order.append((info.actions[n], (top, n) not in direct))
        return order

    def _guessed_order(self) -> list[tuple[pinfo.ActionSpec, bool]]:
        """Without recorded uses: controls from qualified names, uses from tables only."""
        info = self.info
        own: dict[str, list[str]] = {}
        for a in info.actions.values():
            if not _is_global(a.name):
                own.setdefault(_control_of(a.name), []).append(a.name)
        uses: dict[str, list[str]] = {}
        for t in info.tables.values():
            lst = uses.setdefault(_control_of(t.name), [])
            lst.extend(ref.name for ref in t.actions)
            lst.append(t.default_action)
        names: list[str] = []
        for c in self._merge(list(own), list(uses)):
            names += [n for n in uses.get(c, ()) if _is_global(n)]
            names += own.get(c, [])
        return [(info.actions[n], True) for n in dict.fromkeys(names) if n in info.actions]

    # ------------------------------------------------------------ build
    def build(self) -> p4info_pb2.P4Info:
        self.collect()
        p = self.p4info
        self.add_pkg_info()
        self.add_actions()
        self.add_tables_and_externs()
        self.add_value_sets()
        self.add_digests()
        self.add_controller_headers()
        if self.info.extern_calls or self._live_action_extern_calls():
            self.types_touched = True
        if self.types_touched:
            p.type_info.CopyFrom(self.type_info.ti)
        return p

    def _live_action_extern_calls(self) -> bool:
        """Does an action the program uses (from a table, an apply block, or another such
        action) call an extern function? p4c removes unused actions before it looks."""
        live = {q for _here, q, _kind in self.info.action_refs}
        grew = True
        while grew:
            grew = False
            for caller, callee in self.info.action_calls:
                if caller in live and callee not in live:
                    live.add(callee)
                    grew = True
        return any(action in live for action, _fn in self.info.action_extern_calls)

    def add_pkg_info(self) -> None:
        pkg = self.p4info.pkg_info
        pkg.arch = self.info.arch or "v1model"
        annots = self.info.package_annotations
        body = _annotation(annots, "pkginfo")
        if body is not None:
            for part in _split_commas(_tokens(body)):
                if len(part) == 3 and part[1] == "=" and part[2].startswith('"'):
                    key, value = part[0], _string_arg(part[2]) or ""
                    if key in ("name", "version", "organization", "contact", "url", "arch"):
                        setattr(pkg, key, value)
        body = _annotation(annots, "platform_property")
        if body is not None:
            for part in _split_commas(_tokens(body)):
                if len(part) == 3 and part[1] == "=":
                    v = _int_arg(part[2])
                    if v is not None and hasattr(pkg.platform_properties, part[0]):
                        setattr(pkg.platform_properties, part[0], v)
        _add_annotations(pkg, annots, ("pkginfo", "platform_property"))
        _add_doc(pkg, annots)

    def add_actions(self) -> None:
        seen: set[int] = set()
        for a, keep_params in self.action_order():
            ident = self.ids.id(Prefix.ACTION, a.name)
            if ident in seen:
                continue
            seen.add(ident)
            msg = self.p4info.actions.add()
            _preamble(msg, ident, a.name, self.ids.alias(a.name), a.annotations)
            params = a.params if keep_params else ()
            pids = field_ids(
                [_id_override(p.annotations, p.name) for p in params], (p.name for p in params)
            )
            for p, pid in zip(params, pids, strict=True):
                self.types_touched = True
                pm = msg.params.add()
                pm.id = pid
                pm.name = _annotation_name(p.annotations) or p.name
                _add_annotations(pm, p.annotations)
                _add_doc(pm, p.annotations)
                ptype = p.type
                stripped = T.strip_newtype(ptype) if ptype is not None else None
                if (
                    isinstance(stripped, T.EnumType)
                    and stripped.underlying is None
                    and not (isinstance(ptype, T.NewType))
                ):
                    pm.type_name.name = stripped.name
                else:
                    pm.bitwidth = _p4rt_width(ptype, p.width)
                    if isinstance(ptype, T.NewType):
                        pm.type_name.name = ptype.name
                    elif ptype is None and p.type_name:
                        nt = self.types.get(p.type_name)
                        if isinstance(nt, T.NewType):
                            pm.type_name.name = p.type_name
                self.type_info.touch(ptype)

    def add_tables_and_externs(self) -> None:
        """Tables and extern instances, in declaration order, kind by kind."""
        info = self.info
        for t in info.tables.values():
            if not t.hidden:
                self.add_table(t)
        for e in info.externs.values():
            if e.kind in ("counter", "meter", "register"):
                self.types_touched = True
                getattr(self, "add_" + e.kind)(e)
            elif e.kind in ("action_profile", "action_selector"):
                if not self._in_place(e):
                    self.types_touched = True
                self.add_action_profile(e)
            elif not self._in_place(e):
                # any other declared instance (direct counters, checksums ...): p4c's
                # extern handler touches type_info for it
                self.types_touched = True

    def _in_place(self, e: pinfo.ExternSpec) -> bool:
        if e.in_place is not None:
            return e.in_place
        # the code generator names an in-place instance after its table
        return e.name in self.info.tables

    def add_table(self, t: pinfo.TableSpec) -> None:
        self.types_touched = True
        ids = self.ids
        msg = self.p4info.tables.add()
        ident = ids.id(Prefix.TABLE, t.name)
        _preamble(msg, ident, t.name, ids.alias(t.name), t.annotations, ("hidden",))
        # match fields (selector keys take an id position but are not written)
        keys = list(t.keys)
        all_keys: list[pinfo.KeySpec | None]
        n_all = len(keys) + len(t.selector_keys)
        positions = [k.index for k in keys]
        if (
            positions
            and all(0 <= i < n_all for i in positions)
            and len(set(positions)) == len(positions)
        ):
            all_keys = [None] * n_all
            for key in keys:
                all_keys[key.index] = key
        else:
            all_keys = [*keys, *([None] * len(t.selector_keys))]
        overrides = [
            _id_override(k.annotations, k.name) if k is not None else None for k in all_keys
        ]
        kids = field_ids(overrides)
        for maybe_key, kid in zip(all_keys, kids, strict=True):
            if maybe_key is None:
                continue
            k = maybe_key
            mf = msg.match_fields.add()
            mf.id = kid
            mf.name = k.name
            _add_annotations(mf, k.annotations)
            _add_doc(mf, k.annotations)
            ktype = k.type
            mf.bitwidth = 0 if isinstance(ktype, T.ErrorType) else _p4rt_width(ktype, k.width)
            mt = _MATCH_TYPES.get(k.match_kind)
            if mt is not None:
                mf.match_type = mt
            else:
                mf.other_match_type = k.match_kind
            if isinstance(ktype, T.NewType):
                mf.type_name.name = ktype.name
            elif k.type_name:
                nt = self.types.get(k.type_name)
                if isinstance(nt, T.NewType) or (ktype is None and nt is None):
                    mf.type_name.name = k.type_name
            self.type_info.touch(ktype)
        # actions
        for ref in t.actions:
            ar = msg.action_refs.add()
            ar.id = ids.id(Prefix.ACTION, ref.name)
            _add_annotations(ar, ref.annotations)
            tableonly = _has(ref.annotations, "tableonly")
            defaultonly = _has(ref.annotations, "defaultonly")
            if tableonly and defaultonly:
                raise P4InfoError(
                    f"table {t.name}: action {ref.name} is both @tableonly and @defaultonly"
                )
            if tableonly:
                ar.scope = p4info_pb2.ActionRef.TABLE_ONLY
            elif defaultonly:
                ar.scope = p4info_pb2.ActionRef.DEFAULT_ONLY
            else:
                ar.scope = _SCOPES.get(ref.scope, p4info_pb2.ActionRef.TABLE_AND_DEFAULT)
        default_id = ids.id(Prefix.ACTION, t.default_action)
        if t.default_const:
            msg.const_default_action_id = default_id
        ida = msg.initial_default_action
        ida.action_id = default_id
        action = self.info.actions.get(t.default_action)
        params = action.params if action is not None else ()
        for i, value in enumerate(t.default_args):
            arg = ida.arguments.add()
            p = params[i] if i < len(params) else None
            pid = _id_override(p.annotations, p.name) if p is not None else None
            arg.param_id = pid if pid is not None else i + 1
            arg.value = _bytes(value, p.width if p is not None else 8)
        if t.const_entries is not None and t.entries_const:
            msg.is_const_table = True
        if t.const_entries:
            msg.has_initial_entries = True
        # v1model table properties
        if t.implementation is not None:
            impl = self.info.externs.get(t.implementation)
            if impl is not None and impl.kind in ("action_profile", "action_selector"):
                msg.implementation_id = ids.id(Prefix.ACTION_PROFILE, impl.name)
        if t.direct_counter is not None:
            dc = self.info.externs.get(t.direct_counter)
            if dc is not None:
                msg.direct_resource_ids.append(ids.id(Prefix.DIRECT_COUNTER, dc.name))
                self.add_direct_counter(dc, ident)
        if t.direct_meter is not None:
            dm = self.info.externs.get(t.direct_meter)
            if dm is not None:
                msg.direct_resource_ids.append(ids.id(Prefix.DIRECT_METER, dm.name))
                self.add_direct_meter(dm, ident)
        msg.size = t.size if t.size > 0 else 1024
        if t.support_timeout:
            msg.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL

    # ------------------------------------------------------------ externs
    def _extern_preamble(self, msg: Any, prefix: Prefix, e: pinfo.ExternSpec, skip=()) -> None:
        name = e.name
        _preamble(msg, self.ids.id(prefix, name), name, self.ids.alias(name), e.annotations, skip)

    @staticmethod
    def _unit(e: pinfo.ExternSpec) -> str:
        for a in e.args:
            if isinstance(a, str):
                return a
        return ""

    @staticmethod
    def _size(e: pinfo.ExternSpec, index: int = 0) -> int:
        ints = [a for a in e.args if isinstance(a, int) and not isinstance(a, bool)]
        return ints[index] if len(ints) > index else 0

    def add_counter(self, e: pinfo.ExternSpec) -> None:
        msg = self.p4info.counters.add()
        self._extern_preamble(msg, Prefix.COUNTER, e)
        msg.spec.unit = _COUNTER_UNITS.get(self._unit(e), p4info_pb2.CounterSpec.UNSPECIFIED)
        msg.size = self._size(e)
        self._index_type(msg, e)

    def add_direct_counter(self, e: pinfo.ExternSpec, table_id: int) -> None:
        msg = self.p4info.direct_counters.add()
        self._extern_preamble(msg, Prefix.DIRECT_COUNTER, e)
        msg.spec.unit = _COUNTER_UNITS.get(self._unit(e), p4info_pb2.CounterSpec.UNSPECIFIED)
        msg.direct_table_id = table_id

    def add_meter(self, e: pinfo.ExternSpec) -> None:
        msg = self.p4info.meters.add()
        self._extern_preamble(msg, Prefix.METER, e)
        msg.spec.unit = _METER_UNITS.get(self._unit(e), p4info_pb2.MeterSpec.UNSPECIFIED)
        msg.size = self._size(e)
        self._index_type(msg, e)

    def add_direct_meter(self, e: pinfo.ExternSpec, table_id: int) -> None:
        msg = self.p4info.direct_meters.add()
        self._extern_preamble(msg, Prefix.DIRECT_METER, e)
        msg.spec.unit = _METER_UNITS.get(self._unit(e), p4info_pb2.MeterSpec.UNSPECIFIED)
        msg.direct_table_id = table_id

    def _index_type(self, msg: Any, e: pinfo.ExternSpec) -> None:
        # counter<I>/meter<I>: a user-defined (`type`) index type is named
        idx = e.type_args[0] if e.kind in ("counter", "meter") and e.type_args else None
        if e.kind == "register" and len(e.type_args) > 1:
            idx = e.type_args[1]
        if isinstance(idx, T.NewType):
            msg.index_type_name.name = idx.name

    def add_register(self, e: pinfo.ExternSpec) -> None:
        msg = self.p4info.registers.add()
        self._extern_preamble(msg, Prefix.REGISTER, e)
        msg.size = self._size(e)
        elem = e.type_args[0] if e.type_args else T.BitType(32)
        msg.type_spec.CopyFrom(self.type_info.spec(elem))
        self._index_type(msg, e)

    def add_action_profile(self, e: pinfo.ExternSpec) -> None:
        msg = self.p4info.action_profiles.add()
        skip = ("max_group_size", "selector_size_semantics", "max_member_weight")
        self._extern_preamble(msg, Prefix.ACTION_PROFILE, e, skip)
        tables = sorted(t.name for t in self.info.tables.values() if t.implementation == e.name)
        for tn in tables:
            msg.table_ids.append(self.ids.id(Prefix.TABLE, tn))
        selector = e.kind == "action_selector"
        msg.with_selector = selector
        msg.size = self._size(e, 0)
        if not selector:
            return
        mgs = _annotation(e.annotations, "max_group_size")
        if mgs is not None:
            msg.max_group_size = _int_arg(mgs) or 0
        sem = _annotation(e.annotations, "selector_size_semantics")
        if sem is not None:
            v = (_string_arg(sem) or " ".join(_tokens(sem))).upper()
            if v == "SUM_OF_WEIGHTS":
                msg.sum_of_weights.SetInParent()
            elif v == "SUM_OF_MEMBERS":
                msg.sum_of_members.SetInParent()
            else:
                raise P4InfoError(
                    f"{e.name}: selector_size_semantics must be sum_of_weights or sum_of_members"
                )
        mmw = _annotation(e.annotations, "max_member_weight")
        if mmw is not None and msg.HasField("sum_of_members"):
            msg.sum_of_members.max_member_weight = _int_arg(mmw) or 0

    # ------------------------------------------------------------ others
    def add_value_sets(self) -> None:
        for v in self.info.value_sets.values():
            msg = self.p4info.value_sets.add()
            ident = self.ids.id(Prefix.VALUE_SET, v.name)
            _preamble(msg, ident, v.name, self.ids.alias(v.name), v.annotations)
            msg.size = v.size
            if len(v.fields) == 1 and not v.fields[0].name:
                m = msg.match.add()
                m.id = 1
                m.bitwidth = v.fields[0].width
                m.match_type = p4info_pb2.MatchField.EXACT
                continue
            fids = field_ids(
                [_id_override(f.annotations, f.name) for f in v.fields], (f.name for f in v.fields)
            )
            for f, fid in zip(v.fields, fids, strict=True):
                m = msg.match.add()
                m.id = fid
                m.name = _annotation_name(f.annotations) or f.name
                m.bitwidth = f.width
                kind = _annotation(f.annotations, "match")
                kind = " ".join(_tokens(kind)) if kind is not None else "exact"
                mt = _MATCH_TYPES.get(kind)
                if mt is not None:
                    m.match_type = mt
                else:
                    m.other_match_type = kind
                _add_annotations(m, f.annotations, ("match",))
                _add_doc(m, f.annotations)

    def add_digests(self) -> None:
        seen: set[int] = set()
        for d in self.info.digests.values():
            self.types_touched = True
            ident = self.ids.id(Prefix.DIGEST, d.name)
            if ident in seen:
                continue
            seen.add(ident)
            msg = self.p4info.digests.add()
            _preamble(msg, ident, d.name, self.ids.alias(d.name), ())
            t = d.type or self.types.get(d.name)
            if t is None:
                fields = {f.name: f.type or T.BitType(f.width) for f in d.fields}
                t = T.StructLikeType("struct", d.name, fields)
            msg.type_spec.CopyFrom(self.type_info.spec(t))

    def add_controller_headers(self) -> None:
        for h in self.info.controller_headers.values():
            if _has(h.annotations, "hidden"):
                continue
            msg = self.p4info.controller_packet_metadata.add()
            ident = self.ids.id(Prefix.CONTROLLER_HEADER, h.type_name)
            _preamble(msg, ident, h.name, h.name, h.annotations)
            fids = field_ids(
                [_id_override(f.annotations, f.name) for f in h.fields], (f.name for f in h.fields)
            )
            for f, fid in zip(h.fields, fids, strict=True):
                if _has(f.annotations, "hidden"):
                    continue
                self.types_touched = True
                m = msg.metadata.add()
                m.id = fid
                m.name = _annotation_name(f.annotations) or f.name
                _add_annotations(m, f.annotations)
                ftype = f.type
                m.bitwidth = _p4rt_width(ftype, f.width)
                if isinstance(ftype, T.NewType):
                    m.type_name.name = ftype.name
                self.type_info.touch(ftype)


def _annotation_name(annots: pinfo.Annotations) -> str | None:
    body = _annotation(annots, "name")
    if body is None:
        return None
    s = _string_arg(body)
    if s is None:
        return None
    return s[1:] if s.startswith(".") else s


def build_p4info(
    info: pinfo.ProgramInfo, *, types: Mapping[str, Any] | None = None
) -> p4info_pb2.P4Info:
    """The P4Info p4c would write for the program `info` describes.

    `types` maps type names to semantic types (e.g. `CompiledProgram.struct_types`): it
    lets digests and `type_info` describe struct fields fully. Raises `P4InfoError` on a
    bad `@id`.
    """
    return _Builder(info, dict(types or {})).build()
