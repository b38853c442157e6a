"""The P4Info, indexed by id, tied to the switch objects it names.

Every P4Runtime message names objects by P4Info id; the switch names them by their fully
qualified P4Info name. `P4InfoIndex` does the translation once per pipeline: match fields
get their position in the engine table's key (matched by name), action parameters their
position in the action's parameter list, widths their P4Info bitwidth (the engine's when
the P4Info leaves it 0, as for `error`-typed keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4rt_proto import p4info_pb2

__all__ = [
    "ActionInfo",
    "DigestInfo",
    "DirectInfo",
    "FieldInfo",
    "IndexedInfo",
    "P4InfoIndex",
    "ParamInfo",
    "ProfileInfo",
    "RegisterInfo",
    "TableInfo",
    "ValueSetInfo",
]

_KINDS = {
    p4info_pb2.MatchField.EXACT: "exact",
    p4info_pb2.MatchField.LPM: "lpm",
    p4info_pb2.MatchField.TERNARY: "ternary",
    p4info_pb2.MatchField.RANGE: "range",
    p4info_pb2.MatchField.OPTIONAL: "optional",
}
_SCOPES = {
    p4info_pb2.ActionRef.TABLE_AND_DEFAULT: "TABLE_AND_DEFAULT",
    p4info_pb2.ActionRef.TABLE_ONLY: "TABLE_ONLY",
    p4info_pb2.ActionRef.DEFAULT_ONLY: "DEFAULT_ONLY",
}


@dataclass(frozen=True, slots=True)
class FieldInfo:
    id: int
    name: str
    bitwidth: int
    kind: str  # exact, lpm, ternary, range, optional (or the other_match_type)
    position: int  # index in the engine key / value-set member tuple


@dataclass(frozen=True, slots=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int
    position: int


@dataclass(frozen=True, slots=True)
class ActionInfo:
    id: int
    name: str
    params: tuple[ParamInfo, ...]
    params_by_id: dict[int, ParamInfo]


@dataclass(frozen=True, slots=True)
class TableInfo:
    id: int
    name: str
    fields: dict[int, FieldInfo]
    order: tuple[FieldInfo, ...]  # in engine key order
    scopes: dict[int, str]  # action id -> TABLE_AND_DEFAULT / TABLE_ONLY / DEFAULT_ONLY
    has_priority: bool
    const_default: bool
    is_const: bool
    profile: int  # implementation (action profile) id, 0 for direct tables
    direct_counter: int
    direct_meter: int
    idle_timeout: bool
    size: int


@dataclass(frozen=True, slots=True)
class ProfileInfo:
    id: int
    name: str
    table_ids: tuple[int, ...]
    with_selector: bool
    size: int
    max_group_size: int
    sum_of_members: bool  # selector_size_semantics (default: sum of weights)
    max_member_weight: int
    weights_disallowed: bool


@dataclass(frozen=True, slots=True)
class IndexedInfo:
    """A counter, meter or register array."""

    id: int
    name: str
    size: int
    unit: str  # counters/meters: packets, bytes, both; registers: ""
    meter_type: int = 0  # MeterSpec.Type


@dataclass(frozen=True, slots=True)
class DirectInfo:
    id: int
    name: str
    table_id: int
    unit: str
    meter_type: int = 0


@dataclass(frozen=True, slots=True)
class RegisterInfo:
    id: int
    name: str
    size: int
    kind: str  # bit, int, bool or "" (a type softswitch cannot carry in P4Data)
    bitwidth: int


@dataclass(frozen=True, slots=True)
class ValueSetInfo:
    id: int
    name: str
    size: int
    fields: dict[int, FieldInfo]
    order: tuple[FieldInfo, ...]


@dataclass(frozen=True, slots=True)
class DigestInfo:
    id: int
    name: str


@dataclass(slots=True)
class P4InfoIndex:
    p4info: Any
    tables: dict[int, TableInfo] = field(default_factory=dict)
    actions: dict[int, ActionInfo] = field(default_factory=dict)
    profiles: dict[int, ProfileInfo] = field(default_factory=dict)
    counters: dict[int, IndexedInfo] = field(default_factory=dict)
    meters: dict[int, IndexedInfo] = field(default_factory=dict)
    direct_counters: dict[int, DirectInfo] = field(default_factory=dict)
    direct_meters: dict[int, DirectInfo] = field(default_factory=dict)
    registers: dict[int, RegisterInfo] = field(default_factory=dict)
    value_sets: dict[int, ValueSetInfo] = field(default_factory=dict)
    digests: dict[int, DigestInfo] = field(default_factory=dict)
    action_names: dict[str, ActionInfo] = field(default_factory=dict)

    @classmethod
    def build(cls, p4info: Any, switch: Any) -> P4InfoIndex:
        ix = cls(p4info)
        engine_actions = switch.info.actions
        for a in p4info.actions:
            spec = engine_actions.get(a.preamble.name)
            widths = [p.width for p in spec.params] if spec is not None else []
            params = tuple(
                ParamInfo(
                    p.id,
                    p.name,
                    p.bitwidth or (widths[i] if i < len(widths) else 0),
                    i,
                )
                for i, p in enumerate(a.params)
            )
            info = ActionInfo(a.preamble.id, a.preamble.name, params, {p.id: p for p in params})
            ix.actions[info.id] = info
            ix.action_names[info.name] = info
        dc_ids = {dc.preamble.id for dc in p4info.direct_counters}
        dm_ids = {dm.preamble.id for dm in p4info.direct_meters}
        for t in p4info.tables:
            ix.tables[t.preamble.id] = _table(t, switch, dc_ids, dm_ids)
        for dc in p4info.direct_counters:
            ix.direct_counters[dc.preamble.id] = DirectInfo(
                dc.preamble.id, dc.preamble.name, dc.direct_table_id, _unit(dc.spec.unit)
            )
        for dm in p4info.direct_meters:
            ix.direct_meters[dm.preamble.id] = DirectInfo(
                dm.preamble.id,
                dm.preamble.name,
                dm.direct_table_id,
                _unit(dm.spec.unit),
                dm.spec.type,
            )
        for ap in p4info.action_profiles:
            sem = ap.WhichOneof("selector_size_semantics")
            ix.profiles[ap.preamble.id] = ProfileInfo(
                ap.preamble.id,
                ap.preamble.name,
                tuple(ap.table_ids),
                ap.with_selector,
                ap.size,
                ap.max_group_size,
                sem == "sum_of_members",
                ap.sum_of_members.max_member_weight if sem == "sum_of_members" else 0,
                ap.weights_disallowed,
            )
        for c in p4info.counters:
            ix.counters[c.preamble.id] = IndexedInfo(
                c.preamble.id, c.preamble.name, c.size, _unit(c.spec.unit)
            )
        for m in p4info.meters:
            ix.meters[m.preamble.id] = IndexedInfo(
                m.preamble.id, m.preamble.name, m.size, _unit(m.spec.unit), m.spec.type
            )
        for r in p4info.registers:
            kind, width = _register_type(r.type_spec)
            ix.registers[r.preamble.id] = RegisterInfo(
                r.preamble.id, r.preamble.name, r.size, kind, width
            )
        for v in p4info.value_sets:
            fields = tuple(
                FieldInfo(f.id, f.name, f.bitwidth, _KINDS.get(f.match_type, f.other_match_type), i)
                for i, f in enumerate(v.match)
            )
            ix.value_sets[v.preamble.id] = ValueSetInfo(
                v.preamble.id, v.preamble.name, v.size, {f.id: f for f in fields}, fields
            )
        for d in p4info.digests:
            ix.digests[d.preamble.id] = DigestInfo(d.preamble.id, d.preamble.name)
        return ix

    def by_name(self, kind: str) -> dict[str, Any]:
        """`{name: info}` of one kind (`tables`, `actions`, `profiles`, ...)."""
        return {x.name: x for x in getattr(self, kind).values()}


def _table(t: Any, switch: Any, dc_ids: set[int], dm_ids: set[int]) -> TableInfo:
    name = t.preamble.name
    engine = switch.tables.get(name)
    keys = list(engine.spec.keys) if engine is not None else []
    used: set[int] = set()
    fields: list[FieldInfo] = []
    for i, mf in enumerate(t.match_fields):
        pos = next(
            (j for j, k in enumerate(keys) if k.name == mf.name and j not in used),
            next((j for j in range(len(keys)) if j not in used), i),
        )
        used.add(pos)
        width = mf.bitwidth or (keys[pos].width if pos < len(keys) else 0)
        kind = _KINDS.get(mf.match_type, mf.other_match_type)
        fields.append(FieldInfo(mf.id, mf.name, width, kind, pos))
    order = tuple(sorted(fields, key=lambda f: f.position))
    dc = next((r for r in t.direct_resource_ids if r in dc_ids), 0)
    dm = next((r for r in t.direct_resource_ids if r in dm_ids), 0)
    return TableInfo(
        id=t.preamble.id,
        name=name,
        fields={f.id: f for f in fields},
        order=order,
        scopes={ar.id: _SCOPES.get(ar.scope, "TABLE_AND_DEFAULT") for ar in t.action_refs},
        has_priority=any(f.kind in ("ternary", "range", "optional") for f in fields),
        const_default=t.const_default_action_id != 0,
        is_const=t.is_const_table,
        profile=t.implementation_id,
        direct_counter=dc,
        direct_meter=dm,
        idle_timeout=t.idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL,
        size=t.size,
    )


def _unit(unit: int) -> str:
    return {1: "bytes", 2: "packets", 3: "both"}.get(unit, "")


def _register_type(ts: Any) -> tuple[str, int]:
    kind = ts.WhichOneof("type_spec")
    if kind == "bitstring":
        bs = ts.bitstring
        which = bs.WhichOneof("type_spec")
        if which == "bit":
            return "bit", bs.bit.bitwidth
        if which == "int":
            return "int", bs.int.bitwidth
        return "", 0
    if kind == "bool":
        return "bool", 1
    return "", 0
