"""A P4Info, indexed by name: the one source of truth for the names a controller uses.

    schema = P4Schema.load("build/fabric.p4info.txtpb")
    t = schema.table("routing_v4")           # TableInfo: id, fields, actions ...
    a = schema.action("set_next_hop_group")  # ActionInfo: id, params

Every lookup takes the full P4Info name (`FabricIngress.routing.routing_v4`), its alias, or
any unique dot-separated suffix of the full name (`routing.routing_v4`); an unknown or
ambiguous name raises `P4InfoError` listing what exists. Nothing here is retyped from the
P4 program: ids, widths and match kinds all come from the P4Info.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from google.protobuf import text_format

from p4rt_proto import p4info_pb2
from p4rt_proto.errors import P4InfoError  # a name the P4Info does not have (or has twice)

__all__ = [
    "ActionInfo",
    "EntityInfo",
    "FieldInfo",
    "P4InfoError",
    "P4Schema",
    "ParamInfo",
    "TableInfo",
    "load_p4info",
]

_MATCH_KINDS = {
    p4info_pb2.MatchField.EXACT: "exact",
    p4info_pb2.MatchField.LPM: "lpm",
    p4info_pb2.MatchField.TERNARY: "ternary",
    p4info_pb2.MatchField.RANGE: "range",
    p4info_pb2.MatchField.OPTIONAL: "optional",
}
PRIORITY_KINDS = frozenset({"ternary", "range", "optional"})


def load_p4info(path: str | Path) -> p4info_pb2.P4Info:
    """A P4Info from a text (`.txt`, `.txtpb`, `.pbtxt`) or binary file."""
    path = Path(path)
    data = path.read_bytes()
    info = p4info_pb2.P4Info()
    if path.suffix in (".bin", ".pb"):
        info.ParseFromString(data)
    else:
        text_format.Parse(data.decode("utf-8"), info)
    return info


@dataclass(frozen=True, slots=True)
class FieldInfo:
    id: int
    name: str
    bitwidth: int
    match_kind: str  # exact, lpm, ternary, range, optional


@dataclass(frozen=True, slots=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True, slots=True)
class ActionInfo:
    id: int
    name: str
    params: tuple[ParamInfo, ...]

    def param(self, name: str) -> ParamInfo:
        for p in self.params:
            if p.name == name:
                return p
        raise P4InfoError(
            f"action {self.name} has no parameter {name!r} "
            f"(parameters: {', '.join(p.name for p in self.params) or 'none'})"
        )

    def param_by_id(self, pid: int) -> ParamInfo:
        for p in self.params:
            if p.id == pid:
                return p
        raise P4InfoError(f"action {self.name} has no parameter id {pid}")


@dataclass(frozen=True, slots=True)
class TableInfo:
    id: int
    name: str
    fields: tuple[FieldInfo, ...]
    action_ids: tuple[int, ...]
    implementation_id: int  # action profile / selector, 0 if none
    direct_counter_id: int
    direct_meter_id: int
    size: int

    @property
    def needs_priority(self) -> bool:
        return any(f.match_kind in PRIORITY_KINDS for f in self.fields)

    def field(self, name: str) -> FieldInfo:
        for f in self.fields:
            if f.name == name:
                return f
        raise P4InfoError(
            f"table {self.name} has no match field {name!r} "
            f"(fields: {', '.join(f.name for f in self.fields) or 'none'})"
        )

    def field_by_id(self, fid: int) -> FieldInfo:
        for f in self.fields:
            if f.id == fid:
                return f
        raise P4InfoError(f"table {self.name} has no match field id {fid}")


@dataclass(frozen=True, slots=True)
class EntityInfo:
    """Any other named P4Info object (action profile, counter, meter, register, digest,
    controller packet metadata); `message` is its P4Info message for the details."""

    id: int
    name: str
    message: Any


T = TypeVar("T")


class _Names(Generic[T]):
    """Objects of one kind by full name, alias, unique suffix and id."""

    def __init__(self, kind: str, items: Iterable[tuple[int, str, str, T]]) -> None:
        self.kind = kind
        self.by_id: dict[int, T] = {}
        self.by_name: dict[str, T] = {}
        self._suffix: dict[str, list[str]] = {}
        for oid, name, alias, obj in items:
            self.by_id[oid] = obj
            self.by_name[name] = obj
            parts = name.split(".")
            keys = {".".join(parts[i:]) for i in range(len(parts))}
            if alias:
                keys.add(alias)
            for k in keys:
                self._suffix.setdefault(k, []).append(name)

    def __getitem__(self, name: str) -> T:
        got = self.by_name.get(name)
        if got is not None:
            return got
        hits = sorted(set(self._suffix.get(name, ())))
        if len(hits) == 1:
            return self.by_name[hits[0]]
        if hits:
            raise P4InfoError(f"{self.kind} {name!r} is ambiguous: {', '.join(hits)}")
        known = ", ".join(sorted(self.by_name)) or "none"
        raise P4InfoError(f"no {self.kind} {name!r} in the P4Info ({self.kind}s: {known})")

    def id(self, oid: int) -> T:
        try:
            return self.by_id[oid]
        except KeyError:
            raise P4InfoError(f"no {self.kind} with id {oid} in the P4Info") from None

    def __iter__(self) -> Iterator[T]:
        return iter(self.by_name.values())


def _pre(msg: Any) -> tuple[int, str, str]:
    return msg.preamble.id, msg.preamble.name, msg.preamble.alias


def _entities(kind: str, msgs: Iterable[Any]) -> _Names[EntityInfo]:
    return _Names(kind, ((*_pre(m), EntityInfo(m.preamble.id, m.preamble.name, m)) for m in msgs))


class P4Schema:
    """The P4Info of one pipeline, indexed for name lookups."""

    def __init__(self, p4info: p4info_pb2.P4Info) -> None:
        self.p4info = p4info
        self.actions = _Names(
            "action",
            (
                (
                    *_pre(a),
                    ActionInfo(
                        a.preamble.id,
                        a.preamble.name,
                        tuple(ParamInfo(p.id, p.name, p.bitwidth) for p in a.params),
                    ),
                )
                for a in p4info.actions
            ),
        )
        counters = {c.preamble.id for c in p4info.direct_counters}
        meters = {m.preamble.id for m in p4info.direct_meters}
        self.tables = _Names(
            "table", ((*_pre(t), _table(t, counters, meters)) for t in p4info.tables)
        )
        self.action_profiles = _entities("action profile", p4info.action_profiles)
        self.counters = _entities("counter", p4info.counters)
        self.direct_counters = _entities("direct counter", p4info.direct_counters)
        self.meters = _entities("meter", p4info.meters)
        self.direct_meters = _entities("direct meter", p4info.direct_meters)
        self.registers = _entities("register", p4info.registers)
        self.digests = _entities("digest", p4info.digests)
        self.packet_metadata = _entities(
            "controller packet metadata", p4info.controller_packet_metadata
        )

    @classmethod
    def load(cls, path: str | Path) -> P4Schema:
        return cls(load_p4info(path))

    def table(self, name: str) -> TableInfo:
        return self.tables[name]

    def action(self, name: str) -> ActionInfo:
        return self.actions[name]

    def table_action(self, table: TableInfo, name: str) -> ActionInfo:
        """Action `name` as an action of `table` (an error if the table cannot run it)."""
        action = self.actions[name]
        if action.id not in table.action_ids:
            allowed = ", ".join(self.actions.id(i).name for i in table.action_ids)
            raise P4InfoError(f"table {table.name} has no action {name!r} (actions: {allowed})")
        return action

    def register_bitwidth(self, name: str) -> int:
        """Width of a register's cells (bit<W> registers only)."""
        reg = self.registers[name].message
        spec = reg.type_spec
        if spec.WhichOneof("type_spec") != "bitstring":
            raise P4InfoError(f"register {reg.preamble.name} does not hold a bitstring")
        bs = spec.bitstring
        kind = bs.WhichOneof("type_spec")
        return int(getattr(bs, kind).bitwidth if kind != "varbit" else bs.varbit.max_bitwidth)

    def metadata_fields(self, header: str) -> dict[str, tuple[int, int]]:
        """{name: (id, bitwidth)} of a controller header ("packet_in" / "packet_out")."""
        cpm = self.packet_metadata[header].message
        return {m.name: (m.id, m.bitwidth) for m in cpm.metadata}


def _table(t: Any, direct_counters: set[int], direct_meters: set[int]) -> TableInfo:
    direct = list(t.direct_resource_ids)
    return TableInfo(
        id=t.preamble.id,
        name=t.preamble.name,
        fields=tuple(
            FieldInfo(f.id, f.name, f.bitwidth, _MATCH_KINDS.get(f.match_type, "other"))
            for f in t.match_fields
        ),
        action_ids=tuple(r.id for r in t.action_refs),
        implementation_id=t.implementation_id,
        direct_counter_id=next((i for i in direct if i in direct_counters), 0),
        direct_meter_id=next((i for i in direct if i in direct_meters), 0),
        size=t.size,
    )
