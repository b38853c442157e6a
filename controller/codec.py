"""Typed entities (`entities.py`) <-> P4Runtime protobufs, checked against a P4Info.

Builders (`table_entry`, `action_profile_member`, ...) take names and friendly values,
resolve the names through the schema and check every value against its P4Info width, so
a mistake is a `ValueError`/`P4InfoError` here, naming the field, rather than an
INVALID_ARGUMENT from the switch. Match values in `table_entry(match={...})`, by the
field's P4Info match kind:

    exact     value
    lpm       (value, prefix_len) | "10.0.0.0/8" | value (full length)
    ternary   (value, mask) | value (all bits cared for)
    range     (low, high)
    optional  value

or an `Exact`/`Lpm`/`Ternary`/`Range`/`OptionalMatch` object. A don't-care (a ternary
mask of 0, a /0 prefix, a full range) is sent as an omitted field, as the specification
requires; an omitted ternary/lpm/range/optional field is a don't-care too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from p4rt_proto import p4runtime_pb2 as p4r

from .entities import (
    Action,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSession,
    CounterData,
    CounterEntry,
    DigestEntry,
    DirectCounterEntry,
    DirectMeterEntry,
    Entity,
    Exact,
    GroupMember,
    GroupRef,
    Lpm,
    Match,
    MemberRef,
    MeterConfig,
    MeterEntry,
    MulticastGroup,
    OptionalMatch,
    Range,
    RegisterEntry,
    Replica,
    TableEntry,
    Ternary,
)
from .p4info import FieldInfo, P4Schema, TableInfo
from .values import Value, decode, encode, to_int

__all__ = [
    "action_profile_group",
    "action_profile_member",
    "decode_entity",
    "decode_p4data",
    "encode_entity",
    "make_action",
    "make_match",
    "replicas",
    "table_entry",
]

MatchInput = Match | Value | tuple[Value, Value]


# ---------------------------------------------------------------- builders
def _fit(value: Value, width: int, what: str) -> int:
    v = to_int(value, what)
    if v >> width:
        raise ValueError(f"{what}: {value!r} does not fit in {width} bits")
    return v


def make_match(f: FieldInfo, value: MatchInput, table: str) -> Match:
    """A typed match for field `f` from any accepted form (see the module docstring)."""
    what = f"{table} match field {f.name} ({f.match_kind}, {f.bitwidth} bits)"
    w = f.bitwidth
    kind = f.match_kind
    if isinstance(value, Exact | Lpm | Ternary | Range | OptionalMatch):
        expected = {
            "exact": Exact,
            "lpm": Lpm,
            "ternary": Ternary,
            "range": Range,
            "optional": OptionalMatch,
        }.get(kind)
        if not isinstance(value, expected or ()):
            raise ValueError(f"{what}: a {type(value).__name__} match does not fit")
        m = value
    elif kind == "lpm":
        if isinstance(value, str) and "/" in value:
            net = ipaddress.ip_network(value, strict=False)
            m = Lpm(int(net.network_address), net.prefixlen)
            if net.max_prefixlen != w:
                raise ValueError(f"{what}: {value!r} is not a {w}-bit prefix")
        elif isinstance(value, tuple):
            m = Lpm(_fit(value[0], w, what), int(to_int(value[1], what)))
        else:
            m = Lpm(_fit(value, w, what), w)
    elif kind == "ternary":
        if isinstance(value, tuple):
            m = Ternary(_fit(value[0], w, what), _fit(value[1], w, what))
        else:
            m = Ternary(_fit(value, w, what), (1 << w) - 1)
    elif kind == "range":
        if not isinstance(value, tuple):
            raise ValueError(f"{what}: give a range as (low, high)")
        m = Range(_fit(value[0], w, what), _fit(value[1], w, what))
    elif kind in ("exact", "optional"):
        if isinstance(value, tuple):
            raise ValueError(f"{what}: takes a single value, not {value!r}")
        v = _fit(value, w, what)
        m = Exact(v) if kind == "exact" else OptionalMatch(v)
    else:
        raise ValueError(f"{what}: match kind not supported by this client")
    _check_match(m, w, what)
    return m


def _check_match(m: Match, w: int, what: str) -> None:
    full = (1 << w) - 1
    if isinstance(m, Lpm):
        if not 0 <= m.prefix_len <= w:
            raise ValueError(f"{what}: prefix length {m.prefix_len} out of 0..{w}")
        host = full >> m.prefix_len
        if m.value & host:
            raise ValueError(f"{what}: value {m.value:#x} has bits outside /{m.prefix_len}")
    elif isinstance(m, Ternary):
        if m.value & ~m.mask & full:
            raise ValueError(f"{what}: value {m.value:#x} has bits outside mask {m.mask:#x}")
    elif isinstance(m, Range):
        if m.low > m.high:
            raise ValueError(f"{what}: low {m.low} > high {m.high}")
    for v in (getattr(m, a, 0) for a in ("value", "mask", "low", "high")):
        if v >> w:
            raise ValueError(f"{what}: {v:#x} does not fit in {w} bits")


def make_action(
    schema: P4Schema, name: str, params: Mapping[str, Value] | None, table: TableInfo | None
) -> Action:
    """A typed action; every parameter exactly once, each fitting its width."""
    info = schema.table_action(table, name) if table is not None else schema.action(name)
    given = dict(params or {})
    out: dict[str, int] = {}
    for p in info.params:
        if p.name not in given:
            raise ValueError(f"action {info.name}: parameter {p.name!r} missing")
        out[p.name] = _fit(given.pop(p.name), p.bitwidth, f"{info.name} parameter {p.name}")
    if given:
        info.param(next(iter(given)))  # raises P4InfoError naming the parameters
    return Action(info.name, out)


def table_entry(
    schema: P4Schema,
    table: str,
    match: Mapping[str, MatchInput] | None = None,
    action: str | None = None,
    params: Mapping[str, Value] | None = None,
    priority: int = 0,
    *,
    member: int | None = None,
    group: int | None = None,
    counter: CounterData | None = None,
    meter: MeterConfig | None = None,
    is_default: bool = False,
) -> TableEntry:
    t = schema.table(table)
    matches = {n: make_match(t.field(n), v, t.name) for n, v in (match or {}).items()}
    for f in t.fields:
        if f.match_kind == "exact" and f.name not in matches and not is_default:
            raise ValueError(f"table {t.name}: exact match field {f.name!r} missing")
    if is_default and matches:
        raise ValueError(f"table {t.name}: a default entry has no match")
    if t.needs_priority and not is_default and priority <= 0:
        raise ValueError(f"table {t.name} has ternary/range/optional fields: give a priority > 0")
    if not t.needs_priority and priority:
        raise ValueError(f"table {t.name} takes no priority (only exact/lpm fields)")
    act: Action | MemberRef | GroupRef | None = None
    if sum(x is not None for x in (action, member, group)) > 1:
        raise ValueError("give one of action, member, group")
    if action is not None:
        act = make_action(schema, action, params, t)
    elif member is not None:
        act = MemberRef(member)
    elif group is not None:
        act = GroupRef(group)
    elif params:
        raise ValueError("params given without an action")
    return TableEntry(t.name, matches, act, priority, is_default, counter, meter)


def action_profile_member(
    schema: P4Schema, profile: str, member_id: int, action: str, params: Mapping[str, Value]
) -> ActionProfileMember:
    prof = schema.action_profiles[profile]
    return ActionProfileMember(prof.name, member_id, make_action(schema, action, params, None))


def action_profile_group(
    schema: P4Schema,
    profile: str,
    group_id: int,
    members: Iterable[int | tuple[int, int] | GroupMember],
    max_size: int = 0,
) -> ActionProfileGroup:
    prof = schema.action_profiles[profile]
    ms = tuple(
        m
        if isinstance(m, GroupMember)
        else GroupMember(*m)
        if isinstance(m, tuple)
        else GroupMember(m)
        for m in members
    )
    return ActionProfileGroup(prof.name, group_id, ms, max_size)


def replicas(ports: Iterable[int | tuple[int, int] | Replica]) -> tuple[Replica, ...]:
    """Replicas from ports, (port, instance) pairs or Replica objects."""
    return tuple(
        p if isinstance(p, Replica) else Replica(*p) if isinstance(p, tuple) else Replica(p)
        for p in ports
    )


# ---------------------------------------------------------------- encode
def encode_entity(schema: P4Schema, e: Entity) -> p4r.Entity:
    out = p4r.Entity()
    if isinstance(e, TableEntry):
        out.table_entry.CopyFrom(_encode_table_entry(schema, e))
    elif isinstance(e, ActionProfileMember):
        m = out.action_profile_member
        m.action_profile_id = schema.action_profiles[e.profile].id
        m.member_id = e.member_id
        if e.action is not None:
            m.action.CopyFrom(_encode_action(schema, e.action))
    elif isinstance(e, ActionProfileGroup):
        g = out.action_profile_group
        g.action_profile_id = schema.action_profiles[e.profile].id
        g.group_id = e.group_id
        g.max_size = e.max_size
        for gm in e.members:
            g.members.add(member_id=gm.member_id, weight=gm.weight)
    elif isinstance(e, MulticastGroup):
        mg = out.packet_replication_engine_entry.multicast_group_entry
        mg.multicast_group_id = e.group_id
        for r in e.replicas:
            mg.replicas.add(egress_port=r.port, instance=r.instance)
    elif isinstance(e, CloneSession):
        cs = out.packet_replication_engine_entry.clone_session_entry
        cs.session_id = e.session_id
        cs.class_of_service = e.class_of_service
        cs.packet_length_bytes = e.packet_length_bytes
        for r in e.replicas:
            cs.replicas.add(egress_port=r.port, instance=r.instance)
    elif isinstance(e, CounterEntry):
        c = out.counter_entry
        c.counter_id = schema.counters[e.counter].id
        if e.index is not None:
            c.index.index = e.index
        if e.data is not None:
            c.data.packet_count, c.data.byte_count = e.data.packets, e.data.bytes
    elif isinstance(e, DirectCounterEntry):
        dc = out.direct_counter_entry
        dc.table_entry.CopyFrom(_encode_table_entry(schema, e.table_entry, key_only=True))
        if e.data is not None:
            dc.data.packet_count, dc.data.byte_count = e.data.packets, e.data.bytes
    elif isinstance(e, MeterEntry):
        me = out.meter_entry
        me.meter_id = schema.meters[e.meter].id
        if e.index is not None:
            me.index.index = e.index
        if e.config is not None:
            _encode_meter(me.config, e.config)
    elif isinstance(e, DirectMeterEntry):
        dm = out.direct_meter_entry
        dm.table_entry.CopyFrom(_encode_table_entry(schema, e.table_entry, key_only=True))
        if e.config is not None:
            _encode_meter(dm.config, e.config)
    elif isinstance(e, RegisterEntry):
        r = out.register_entry
        r.register_id = schema.registers[e.register].id
        if e.index is not None:
            r.index.index = e.index
        if e.value is not None:
            width = schema.register_bitwidth(e.register)
            r.data.bitstring = encode(e.value, width, f"register {e.register}")
    elif isinstance(e, DigestEntry):
        d = out.digest_entry
        d.digest_id = schema.digests[e.digest].id
        d.config.max_timeout_ns = e.max_timeout_ns
        d.config.max_list_size = e.max_list_size
        d.config.ack_timeout_ns = e.ack_timeout_ns
    else:
        raise TypeError(f"not an entity: {e!r}")
    return out


def _encode_meter(out: Any, c: MeterConfig) -> None:
    out.cir, out.cburst, out.pir, out.pburst = c.cir, c.cburst, c.pir, c.pburst


def _encode_action(schema: P4Schema, a: Action) -> p4r.Action:
    info = schema.action(a.name)
    out = p4r.Action(action_id=info.id)
    for p in info.params:
        out.params.add(param_id=p.id, value=encode(a.params[p.name], p.bitwidth, p.name))
    return out


def _encode_table_entry(schema: P4Schema, e: TableEntry, key_only: bool = False) -> p4r.TableEntry:
    t = schema.table(e.table)
    out = p4r.TableEntry(table_id=t.id, priority=e.priority, is_default_action=e.is_default)
    for name, m in e.match.items():
        f = t.field(name)
        full = (1 << f.bitwidth) - 1
        if isinstance(m, Exact):
            out.match.add(field_id=f.id).exact.value = encode(m.value, f.bitwidth)
        elif isinstance(m, Lpm):
            if m.prefix_len:
                fm = out.match.add(field_id=f.id)
                fm.lpm.value, fm.lpm.prefix_len = encode(m.value, f.bitwidth), m.prefix_len
        elif isinstance(m, Ternary):
            if m.mask:
                fm = out.match.add(field_id=f.id)
                fm.ternary.value = encode(m.value, f.bitwidth)
                fm.ternary.mask = encode(m.mask, f.bitwidth)
        elif isinstance(m, Range):
            if (m.low, m.high) != (0, full):
                fm = out.match.add(field_id=f.id)
                fm.range.low, fm.range.high = encode(m.low, f.bitwidth), encode(m.high, f.bitwidth)
        elif isinstance(m, OptionalMatch):
            out.match.add(field_id=f.id).optional.value = encode(m.value, f.bitwidth)
    if key_only:
        return out
    if isinstance(e.action, Action):
        out.action.action.CopyFrom(_encode_action(schema, e.action))
    elif isinstance(e.action, MemberRef):
        out.action.action_profile_member_id = e.action.member_id
    elif isinstance(e.action, GroupRef):
        out.action.action_profile_group_id = e.action.group_id
    if e.counter is not None:
        out.counter_data.packet_count = e.counter.packets
        out.counter_data.byte_count = e.counter.bytes
    if e.meter is not None:
        _encode_meter(out.meter_config, e.meter)
    return out


# ---------------------------------------------------------------- decode
def decode_entity(schema: P4Schema, ent: p4r.Entity) -> Entity:
    kind = ent.WhichOneof("entity")
    if kind == "table_entry":
        return _decode_table_entry(schema, ent.table_entry)
    if kind == "action_profile_member":
        m = ent.action_profile_member
        prof = schema.action_profiles.id(m.action_profile_id)
        return ActionProfileMember(prof.name, m.member_id, _decode_action(schema, m.action))
    if kind == "action_profile_group":
        g = ent.action_profile_group
        prof = schema.action_profiles.id(g.action_profile_id)
        ms = tuple(GroupMember(x.member_id, x.weight) for x in g.members)
        return ActionProfileGroup(prof.name, g.group_id, ms, g.max_size)
    if kind == "packet_replication_engine_entry":
        pre = ent.packet_replication_engine_entry
        if pre.WhichOneof("type") == "multicast_group_entry":
            mg = pre.multicast_group_entry
            return MulticastGroup(mg.multicast_group_id, _decode_replicas(mg.replicas))
        cs = pre.clone_session_entry
        return CloneSession(
            cs.session_id,
            _decode_replicas(cs.replicas),
            cs.class_of_service,
            cs.packet_length_bytes,
        )
    if kind == "counter_entry":
        c = ent.counter_entry
        data = CounterData(c.data.packet_count, c.data.byte_count)
        return CounterEntry(schema.counters.id(c.counter_id).name, c.index.index, data)
    if kind == "direct_counter_entry":
        dc = ent.direct_counter_entry
        data = CounterData(dc.data.packet_count, dc.data.byte_count)
        return DirectCounterEntry(_decode_table_entry(schema, dc.table_entry), data)
    if kind == "meter_entry":
        me = ent.meter_entry
        cfg = _decode_meter(me.config) if me.HasField("config") else None
        return MeterEntry(schema.meters.id(me.meter_id).name, me.index.index, cfg)
    if kind == "direct_meter_entry":
        dm = ent.direct_meter_entry
        cfg = _decode_meter(dm.config) if dm.HasField("config") else None
        return DirectMeterEntry(_decode_table_entry(schema, dm.table_entry), cfg)
    if kind == "register_entry":
        r = ent.register_entry
        name = schema.registers.id(r.register_id).name
        return RegisterEntry(name, r.index.index, decode(r.data.bitstring))
    if kind == "digest_entry":
        d = ent.digest_entry
        cfg = d.config
        name = schema.digests.id(d.digest_id).name
        return DigestEntry(name, cfg.max_timeout_ns, cfg.max_list_size, cfg.ack_timeout_ns)
    raise ValueError(f"cannot decode a {kind} entity")


def _decode_replicas(reps: Iterable[Any]) -> tuple[Replica, ...]:
    out = []
    for r in reps:
        port = decode(r.port) if r.WhichOneof("port_kind") == "port" else r.egress_port
        out.append(Replica(port, r.instance))
    return tuple(out)


def _decode_meter(c: Any) -> MeterConfig:
    return MeterConfig(c.cir, c.cburst, c.pir, c.pburst)


def _decode_action(schema: P4Schema, a: p4r.Action) -> Action:
    info = schema.actions.id(a.action_id)
    return Action(info.name, {info.param_by_id(p.param_id).name: decode(p.value) for p in a.params})


def _decode_table_entry(schema: P4Schema, te: p4r.TableEntry) -> TableEntry:
    t = schema.tables.id(te.table_id)
    matches: dict[str, Match] = {}
    for fm in te.match:
        f = t.field_by_id(fm.field_id)
        which = fm.WhichOneof("field_match_type")
        if which == "exact":
            matches[f.name] = Exact(decode(fm.exact.value))
        elif which == "lpm":
            matches[f.name] = Lpm(decode(fm.lpm.value), fm.lpm.prefix_len)
        elif which == "ternary":
            matches[f.name] = Ternary(decode(fm.ternary.value), decode(fm.ternary.mask))
        elif which == "range":
            matches[f.name] = Range(decode(fm.range.low), decode(fm.range.high))
        elif which == "optional":
            matches[f.name] = OptionalMatch(decode(fm.optional.value))
    act: Action | MemberRef | GroupRef | None = None
    which = te.action.WhichOneof("type") if te.HasField("action") else None
    if which == "action":
        act = _decode_action(schema, te.action.action)
    elif which == "action_profile_member_id":
        act = MemberRef(te.action.action_profile_member_id)
    elif which == "action_profile_group_id":
        act = GroupRef(te.action.action_profile_group_id)
    counter = (
        CounterData(te.counter_data.packet_count, te.counter_data.byte_count)
        if te.HasField("counter_data")
        else None
    )
    meter = _decode_meter(te.meter_config) if te.HasField("meter_config") else None
    return TableEntry(
        t.name, matches, act, te.priority, te.is_default_action, counter, meter, te.is_const
    )


def decode_p4data(schema: P4Schema, data: Any, spec: Any) -> Any:
    """A P4Data as Python values, its shape from the P4Info type spec `spec`: bit<W> and
    int<W> -> int, bool -> bool, struct/header -> dict by member name, tuple/stack -> tuple,
    enum/error -> the member name."""
    info = schema.p4info.type_info
    kind = spec.WhichOneof("type_spec")
    if kind == "bitstring":
        bs = spec.bitstring
        if bs.WhichOneof("type_spec") == "int":
            return int.from_bytes(data.bitstring, "big", signed=True)
        if data.WhichOneof("data") == "varbit":
            return decode(data.varbit.bitstring)
        return decode(data.bitstring)
    if kind == "bool":
        return data.bool
    if kind == "tuple":
        return tuple(
            decode_p4data(schema, d, s)
            for d, s in zip(data.tuple.members, spec.tuple.members, strict=True)
        )
    if kind == "struct":
        members = info.structs[spec.struct.name].members
        return {
            m.name: decode_p4data(schema, d, m.type_spec)
            for m, d in zip(members, data.struct.members, strict=True)
        }
    if kind == "header":
        members = info.headers[spec.header.name].members
        h = data.header
        if not h.is_valid:
            return None
        return {m.name: decode(b) for m, b in zip(members, h.bitstrings, strict=True)}
    if kind == "serializable_enum":
        return decode(data.enum_value)
    if kind == "enum":
        return data.enum
    if kind == "error":
        return data.error
    raise ValueError(f"cannot decode P4Data of type {kind}")
