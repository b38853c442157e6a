"""A test world for the P4Runtime entity store: one program with every kind of entity,
and helpers that build P4Runtime messages by P4Info name (never by retyped id).

Packets are `sel a b(16) c(32) d`: `sel` picks what ingress does (see PROGRAM)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import grpc
import pytest

from p4rt_proto import p4info_pb2, p4runtime_pb2
from softswitch.compiler import compile_text
from softswitch.p4info import p4info_for
from softswitch.p4runtime.entities import EntityStore
from softswitch.p4runtime.errors import P4RuntimeError
from softswitch.v1model.switch import Switch
from tests.p4util import program

INSERT = p4runtime_pb2.Update.INSERT
MODIFY = p4runtime_pb2.Update.MODIFY
DELETE = p4runtime_pb2.Update.DELETE
Code = grpc.StatusCode

PROGRAM = program(
    decls="""
header h_t { bit<8> sel; bit<8> a; bit<16> b; bit<32> c; bit<8> d; }
struct learn_t { bit<8> a; bit<16> b; }
struct pair_t { bit<8> a; bit<16> b; }
""",
    meta="bit<8> vs_hit;",
    parser="""
    value_set<bit<8>>(4) vs_a;
    value_set<pair_t>(2) vs_ab;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.d) { 0xaa: check_pair; default: check_a; }
    }
    state check_a { transition select(hdr.h.a) { vs_a: mark; default: accept; } }
    state check_pair { transition select(hdr.h.a, hdr.h.b) { vs_ab: mark; default: accept; } }
    state mark { meta.vs_hit = 1; transition accept; }
""",
    ingress="""
    direct_counter(CounterType.packets_and_bytes) dc;
    direct_meter<bit<2>>(MeterType.packets) dm;
    counter(8, CounterType.packets_and_bytes) cnt;
    meter(4, MeterType.packets) mtr;
    register<bit<16>>(16) reg;
    register<int<8>>(4) sreg;
    @max_group_size(4) action_selector(HashAlgorithm.crc16, 64, 16) sel;
    action_profile(4) prof;
    bit<2> color;
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action set_b(bit<16> b, bit<9> port) { hdr.h.b = b; sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    action metered(bit<9> port) { dm.read(color); sm.egress_spec = port; hdr.h.d = (bit<8>)color; }
    table t_lpm { key = { hdr.h.c: lpm; } actions = { fwd; drop; NoAction; } size = 4; }
    table t_exact {
        key = { hdr.h.a: exact; hdr.h.b: exact; }
        actions = { fwd; @defaultonly drop; }
        default_action = drop();
        support_timeout = true;
    }
    table t_tern {
        key = { hdr.h.a: ternary; hdr.h.b: range; hdr.h.d: optional; }
        actions = { fwd; metered; }
        counters = dc;
        meters = dm;
    }
    table t_const {
        key = { hdr.h.a: exact; }
        actions = { fwd; drop; }
        const default_action = drop();
        const entries = { 1 : fwd(1); 2 : fwd(2); }
    }
    table t_sel {
        key = { hdr.h.a: exact; hdr.h.c: selector; }
        actions = { set_b; fwd; }
        implementation = sel;
    }
    table t_prof { key = { hdr.h.a: exact; } actions = { fwd; } implementation = prof; }
    table t_keyless { actions = { fwd; @tableonly drop; } }
    apply {
        if (hdr.h.sel == 1) { t_lpm.apply(); }
        else if (hdr.h.sel == 2) { t_exact.apply(); }
        else if (hdr.h.sel == 3) { t_tern.apply(); }
        else if (hdr.h.sel == 4) { t_const.apply(); }
        else if (hdr.h.sel == 5) { t_sel.apply(); }
        else if (hdr.h.sel == 6) { t_prof.apply(); }
        else if (hdr.h.sel == 7) { t_keyless.apply(); }
        else if (hdr.h.sel == 8) { sm.egress_spec = (bit<9>)meta.vs_hit; }
        else if (hdr.h.sel == 9) {
            mtr.execute_meter((bit<32>)hdr.h.a, color);
            sm.egress_spec = (bit<9>)color;
        }
        else if (hdr.h.sel == 10) { sm.mcast_grp = hdr.h.b; }
        else if (hdr.h.sel == 11) { clone(CloneType.I2E, (bit<32>)hdr.h.b); }
        cnt.count((bit<32>)hdr.h.d);
        bit<16> r;
        reg.read(r, (bit<32>)hdr.h.a);
        if (hdr.h.sel == 12) { hdr.h.b = r; }
        if (hdr.h.sel == 13) { reg.write((bit<32>)hdr.h.a, hdr.h.b); }
        digest<learn_t>(1, {hdr.h.a, hdr.h.b});
    }
""",
)


@cache
def compiled(source: str = PROGRAM) -> Any:
    """Compile once per source (the compiled program is immutable)."""
    return compile_text(source, "entities.p4")


def packet(sel: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> bytes:
    return bytes([sel, a]) + b.to_bytes(2, "big") + c.to_bytes(4, "big") + bytes([d])


@dataclass
class World:
    """A switch, its P4Info and an entity store; `ids` looks P4Info ids up by name."""

    switch: Switch
    p4info: Any
    store: EntityStore

    # ------------------------------------------------------------ ids by name
    def _find(self, kind: str, name: str) -> Any:
        for x in getattr(self.p4info, kind):
            if x.preamble.name == name or x.preamble.alias == name:
                return x
        raise KeyError(f"{kind} {name}")

    def id(self, kind: str, name: str) -> int:
        return self._find(kind, name).preamble.id

    def table(self, name: str) -> Any:
        return self._find("tables", name)

    def field_id(self, table: str, field: str) -> int:
        return next(f.id for f in self.table(table).match_fields if f.name == field)

    # ------------------------------------------------------------ messages
    def action(self, name: str, **params: int | bytes) -> p4runtime_pb2.Action:
        a = self._find("actions", name)
        out = p4runtime_pb2.Action(action_id=a.preamble.id)
        for p in a.params:
            if p.name in params:
                v = params[p.name]
                out.params.add(param_id=p.id, value=v if isinstance(v, bytes) else _b(v))
        return out

    def entry(
        self,
        table: str,
        match: dict[str, Any] | None = None,
        action: p4runtime_pb2.Action | None = None,
        priority: int = 0,
        **fields: Any,
    ) -> p4runtime_pb2.TableEntry:
        """`match` maps field names to: int (exact), (v, plen) for lpm, ("t", v, mask),
        ("r", lo, hi), ("o", v), or a ready FieldMatch."""
        t = self.table(table)
        te = p4runtime_pb2.TableEntry(table_id=t.preamble.id, priority=priority, **fields)
        kinds = {f.name: f for f in t.match_fields}
        for name, spec in (match or {}).items():
            f = kinds[name]
            if isinstance(spec, p4runtime_pb2.FieldMatch):
                te.match.append(spec)
                continue
            fm = te.match.add(field_id=f.id)
            mt = f.match_type
            if mt == p4info_pb2.MatchField.EXACT:
                fm.exact.value = spec if isinstance(spec, bytes) else _b(spec)
            elif mt == p4info_pb2.MatchField.LPM:
                fm.lpm.value = _b(spec[0]) if isinstance(spec[0], int) else spec[0]
                fm.lpm.prefix_len = spec[1]
            elif mt == p4info_pb2.MatchField.TERNARY:
                fm.ternary.value, fm.ternary.mask = _b(spec[1]), _b(spec[2])
            elif mt == p4info_pb2.MatchField.RANGE:
                fm.range.low, fm.range.high = _b(spec[1]), _b(spec[2])
            elif mt == p4info_pb2.MatchField.OPTIONAL:
                fm.optional.value = _b(spec[1])
        if action is not None:
            te.action.action.CopyFrom(action)
        return te

    # ------------------------------------------------------------ store operations
    def write(self, utype: int, msg: Any) -> None:
        self.store.write(update(utype, msg))

    def read(self, msg: Any) -> list[Any]:
        return [getattr(e, e.WhichOneof("entity")) for e in self.store.read(entity(msg))]

    def send(self, data: bytes, port: int = 0) -> list[tuple[int, bytes]]:
        return self.switch.process(port, data)

    def port_of(self, data: bytes) -> int | None:
        out = self.send(data)
        return out[0][0] if out else None


def _b(v: int) -> bytes:
    """Canonical bytestring of an unsigned value."""
    return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")


_ENTITY_FIELDS = {
    p4runtime_pb2.TableEntry: "table_entry",
    p4runtime_pb2.ActionProfileMember: "action_profile_member",
    p4runtime_pb2.ActionProfileGroup: "action_profile_group",
    p4runtime_pb2.CounterEntry: "counter_entry",
    p4runtime_pb2.DirectCounterEntry: "direct_counter_entry",
    p4runtime_pb2.MeterEntry: "meter_entry",
    p4runtime_pb2.DirectMeterEntry: "direct_meter_entry",
    p4runtime_pb2.PacketReplicationEngineEntry: "packet_replication_engine_entry",
    p4runtime_pb2.ValueSetEntry: "value_set_entry",
    p4runtime_pb2.RegisterEntry: "register_entry",
    p4runtime_pb2.DigestEntry: "digest_entry",
}


def entity(msg: Any) -> p4runtime_pb2.Entity:
    out = p4runtime_pb2.Entity()
    getattr(out, _ENTITY_FIELDS[type(msg)]).CopyFrom(msg)
    return out


def update(utype: int, msg: Any) -> p4runtime_pb2.Update:
    return p4runtime_pb2.Update(type=utype, entity=entity(msg))


def make_world(source: str = PROGRAM, p4info: Any = None, **switch_kw: Any) -> World:
    c = compiled(source)
    sw = Switch(c, **switch_kw)
    info = p4info if p4info is not None else p4info_for(c)
    return World(sw, info, EntityStore(sw, info))


def raises(code: grpc.StatusCode, fn: Callable[..., Any], *args: Any) -> P4RuntimeError:
    """Call `fn(*args)` (consuming it if it is a generator) and expect `code`."""
    with pytest.raises(P4RuntimeError) as e:
        result = fn(*args)
        if hasattr(result, "__next__"):
            list(result)
    assert e.value.code == code, str(e.value)
    return e.value
