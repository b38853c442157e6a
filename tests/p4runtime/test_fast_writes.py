"""The fast path of table entry writes (entities/fast_tables.py) against the general path.

Two servers run the same program; one writes plain INSERTs and DELETEs through the fast
path, the other has it switched off. The same batches of updates — valid ones and every
kind of invalid one (unknown ids, values too wide or empty, don't-care matches that should
be omitted, missing, extra or repeated fields and parameters, wrong priorities, fields a
write may not set, duplicates, deletes of absent entries, a full table) — must give the
same per-update errors, the same entries read back and the same packets out."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p4rt_proto import p4info_pb2, p4runtime_pb2
from softswitch.compiler import compile_text
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.p4runtime.status import RpcAbort
from softswitch.runtime import SwitchRuntime
from tests.p4util import program

MF = p4info_pb2.MatchField
EXACT, LPM, TERNARY, RANGE, OPTIONAL = MF.EXACT, MF.LPM, MF.TERNARY, MF.RANGE, MF.OPTIONAL
INSERT, MODIFY, DELETE = (
    p4runtime_pb2.Update.INSERT,
    p4runtime_pb2.Update.MODIFY,
    p4runtime_pb2.Update.DELETE,
)

SOURCE = program(
    decls="header h_t { bit<8> a; bit<16> b; bit<32> c; bit<8> d; }",
    ingress="""
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action set_b(bit<16> b, bit<9> port, bit<8> d) {
        hdr.h.b = b; hdr.h.d = d; sm.egress_spec = port;
    }
    action drop() { mark_to_drop(sm); }
    table t_lpm {
        key = { hdr.h.a: exact; hdr.h.c: lpm; }
        actions = { fwd; set_b; @defaultonly drop; }
        default_action = drop();
        size = 64;
    }
    table t_tern {
        key = { hdr.h.a: ternary; hdr.h.b: range; hdr.h.d: optional; }
        actions = { fwd; set_b; @tableonly drop; }
        size = 64;
    }
    table t_route {
        key = { hdr.h.c: lpm; }
        actions = { fwd; set_b; drop; }
        size = 256;
    }
    table t_mac {
        key = { hdr.h.b: exact; }
        actions = { fwd; NoAction; }
        size = 16;
    }
    apply {
        sm.egress_spec = 0;
        if (!t_lpm.apply().hit) { t_tern.apply(); }
        if (hdr.h.a == 1) { t_route.apply(); }
        if (hdr.h.a == 2) { t_mac.apply(); }
    }
""",
)


class World:
    """A switch with its P4Runtime server (not listening), fast path on or off."""

    def __init__(self, compiled: Any, fast: bool) -> None:
        self.runtime = SwitchRuntime()
        self.runtime.load(compiled)
        self.server = P4RuntimeServer(self.runtime, address="127.0.0.1:0")
        pipe = self.server.pipelines.adopt()
        assert pipe is not None
        self.store = pipe.store
        self.p4info = pipe.p4info
        self.fast_hits = 0
        inner = self.store.write_run
        if not fast:
            self.store.tables.fast.plans.clear()  # every update takes the general path
            self.store.tables.fast.wire.clear()

        def counting(updates: Any, start: int, stop: int, errors: list[Any]) -> int:
            end = inner(updates, start, stop, errors)
            self.fast_hits += end - start
            return end

        self.store.write_run = counting

    def write(self, updates: list[Any]) -> list[tuple[int, str]]:
        """(canonical code, message) per update; (0, "") for those that succeeded."""
        req = p4runtime_pb2.WriteRequest(device_id=0, updates=updates)
        try:
            self.server.write(req)
        except RpcAbort as e:
            assert e.details is not None, e.message
            out = []
            for d in e.details.details:
                err = p4runtime_pb2.Error()
                d.Unpack(err)
                out.append((err.canonical_code, err.message))
            return out
        return [(0, "")] * len(updates)

    def entries(self) -> list[bytes]:
        q = p4runtime_pb2.Entity()
        q.table_entry.SetInParent()
        got = [e.SerializeToString(deterministic=True) for e in self.store.read(q)]
        return sorted(got)

    def packets(self, frames: list[bytes]) -> list[list[tuple[int, bytes]]]:
        sw = self.runtime.switch
        assert sw is not None
        return [sw.process(1, f) for f in frames]


class Fuzz:
    """Random table entry updates for SOURCE's tables, valid and invalid."""

    def __init__(self, p4info: Any, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tables = {t.preamble.name.split(".")[-1]: t for t in p4info.tables}
        self.actions = {a.preamble.name.split(".")[-1]: a for a in p4info.actions}
        self.written: list[Any] = []  # entries inserted, for duplicates and deletes

    def value(self, width: int) -> bytes:
        r = self.rng.random()
        if r < 0.01:
            return b""  # empty: OUT_OF_RANGE
        if r < 0.03:
            return (1 << width).to_bytes((width + 8) // 8, "big")  # one bit too wide
        v = self.rng.getrandbits(width)
        n = (v.bit_length() + 7) // 8 or 1
        if self.rng.random() < 0.2:
            n += self.rng.randint(1, 2)  # leading zero bytes are allowed
        return v.to_bytes(n, "big")

    def match(self, te: Any, mf: Any) -> None:
        w = mf.bitwidth
        fm = te.match.add(field_id=mf.id)
        kind = mf.match_type
        if self.rng.random() < 0.02:  # the wrong kind
            kind = self.rng.choice([k for k in (EXACT, LPM, TERNARY, RANGE, OPTIONAL) if k != kind])
        if self.rng.random() < 0.01:
            fm.field_id = self.rng.choice((0, 99))  # unknown field
        if kind == EXACT:
            fm.exact.value = self.value(w)
        elif kind == LPM:
            plen = self.rng.choice((1, w // 2, w)) if self.rng.random() < 0.95 else 0
            if self.rng.random() < 0.02:
                plen = w + 1
            v = self.rng.getrandbits(w)
            if self.rng.random() < 0.95 and 0 < plen <= w:
                v &= ((1 << w) - 1) ^ ((1 << (w - plen)) - 1)  # no bits beyond the prefix
            fm.lpm.value = v.to_bytes((w + 7) // 8, "big")
            fm.lpm.prefix_len = plen
        elif kind == TERNARY:
            mask = self.rng.choice(((1 << w) - 1, self.rng.getrandbits(w) | 1))
            if self.rng.random() < 0.04:
                mask = 0  # a don't-care must be omitted
            v = self.rng.getrandbits(w)
            if self.rng.random() < 0.95:
                v &= mask
            fm.ternary.value = v.to_bytes((w + 7) // 8, "big")
            fm.ternary.mask = mask.to_bytes((w + 7) // 8, "big")
        elif kind == RANGE:
            lo, hi = sorted(self.rng.getrandbits(w) for _ in range(2))
            if self.rng.random() < 0.05:
                lo, hi = 0, (1 << w) - 1  # a don't-care range
            if self.rng.random() < 0.05:
                lo, hi = hi + 1, hi  # low above high
            fm.range.low = lo.to_bytes((w + 8) // 8, "big")
            fm.range.high = hi.to_bytes((w + 8) // 8, "big")
        else:
            fm.optional.value = self.value(w)

    def action(self, ta: Any, table: Any) -> None:
        refs = [r.id for r in table.action_refs]
        by_id = {a.preamble.id: a for a in self.actions.values()}
        aid = self.rng.choice(refs)
        if self.rng.random() < 0.02:
            aid = self.rng.choice((0, 12345))
        act = ta.action
        act.action_id = aid
        params = list(by_id[aid].params) if aid in by_id else []
        if self.rng.random() < 0.2:
            self.rng.shuffle(params)  # any order is allowed
        for p in params:
            if self.rng.random() < 0.02:
                continue  # missing
            act.params.add(param_id=p.id, value=self.value(p.bitwidth))
            if self.rng.random() < 0.01:
                act.params.add(param_id=p.id, value=b"\x01")  # twice
        if self.rng.random() < 0.02:
            act.params.add(param_id=77, value=b"\x01")  # unknown
        if len(act.params) > 1 and self.rng.random() < 0.03:
            act.params[1].param_id = act.params[0].param_id  # one twice, another missing

    def update(self) -> Any:
        rng = self.rng
        if self.written and rng.random() < 0.3:  # again: a duplicate INSERT, or a DELETE
            u = p4runtime_pb2.Update()
            u.CopyFrom(rng.choice(self.written))
            u.type = rng.choice((INSERT, DELETE, DELETE, MODIFY))
            return u
        table = self.tables[rng.choice(sorted(self.tables))]
        u = p4runtime_pb2.Update(type=rng.choice((INSERT, INSERT, INSERT, DELETE, MODIFY)))
        te = u.entity.table_entry
        te.table_id = table.preamble.id if rng.random() > 0.02 else 4242
        fields = list(table.match_fields)
        if rng.random() < 0.15:
            rng.shuffle(fields)  # any order is allowed
        for mf in fields:
            exact = mf.match_type == EXACT
            if exact and rng.random() < 0.03:
                continue  # a missing exact field
            if not exact and rng.random() < 0.3:
                continue  # a wildcard
            self.match(te, mf)
        if rng.random() < 0.02 and len(te.match):
            te.match.add().CopyFrom(te.match[0])  # a field twice
        ternary = any(mf.match_type in (TERNARY, RANGE, OPTIONAL) for mf in fields)
        r = rng.random()
        te.priority = (rng.randint(1, 20) if ternary else 0) if r < 0.96 else rng.choice((-1, 0, 5))
        if rng.random() < 0.97:
            self.action(te.action, table)
        if rng.random() < 0.01:
            te.is_default_action = True
        oddity = rng.random()
        if oddity < 0.01:
            te.is_const = True
        elif oddity < 0.02:
            te.idle_timeout_ns = 1000
        elif oddity < 0.03:
            te.counter_data.packet_count = 1
        elif oddity < 0.04:
            te.time_since_last_hit.elapsed_ns = 1
        elif oddity < 0.05:
            te.meter_config.cir = 1
        elif oddity < 0.1:
            te.controller_metadata = rng.randint(1, 9)
            te.metadata = b"cookie"
        if u.type == INSERT:
            self.written.append(u)
        return u


@pytest.mark.parametrize("seed", range(4))
def test_fast_and_general_paths_agree(seed: int) -> None:
    compiled = compile_text(SOURCE, "fast_writes.p4")
    fast, general = World(compiled, fast=True), World(compiled, fast=False)
    fuzz = Fuzz(fast.p4info, seed)
    failures = 0
    for _ in range(30):
        batch = [fuzz.update() for _ in range(fuzz.rng.randint(1, 40))]
        got = fast.write(batch)
        assert got == general.write(batch)
        failures += sum(code != 0 for code, _ in got)
        assert fast.entries() == general.entries()
    rng = random.Random(seed)
    frames = [  # field a picks the tables: 1 t_route, 2 t_mac, else t_lpm/t_tern only
        bytes([rng.choice((1, 2, rng.getrandbits(8)))])
        + bytes(rng.getrandbits(8) for _ in range(7))
        + bytes(4)
        for _ in range(300)
    ]
    assert fast.packets(frames) == general.packets(frames)
    assert general.fast_hits == 0
    assert fast.fast_hits > 100  # the fast path carried most valid updates
    assert failures > 100  # and the fuzz exercised the errors
    assert len(fast.entries()) > 5


def _lpm_update(world: World, kind: int, plen: int) -> Any:
    """t_lpm: a = 7, c in 10.0.0.0/plen -> fwd(plen)."""
    table = next(t for t in world.p4info.tables if t.preamble.name.endswith("t_lpm"))
    fwd = next(a for a in world.p4info.actions if a.preamble.name.endswith(".fwd"))
    u = p4runtime_pb2.Update(type=kind)
    te = u.entity.table_entry
    te.table_id = table.preamble.id
    te.match.add(field_id=table.match_fields[0].id).exact.value = b"\x07"
    lpm = te.match.add(field_id=table.match_fields[1].id).lpm
    lpm.value, lpm.prefix_len = bytes([0x0A, 0, 0, 0]), plen
    te.action.action.action_id = fwd.preamble.id
    te.action.action.params.add(param_id=1, value=bytes([plen]))
    return u


def test_fast_writes_reach_packets_at_once() -> None:
    """A batch written through the fast path is visible to the next packet (the lookups
    the batch changed are brought up to date before the lock is released)."""
    world = World(compile_text(SOURCE, "fast_writes.p4"), fast=True)
    frame = bytes([7, 0, 0, 0x0A, 0x01, 0x02, 0x03, 0]) + bytes(4)
    assert world.packets([frame]) == [[]]  # the default action drops it

    def update(kind: int, plen: int) -> Any:
        return _lpm_update(world, kind, plen)

    assert world.write([update(INSERT, 8)]) == [(0, "")]
    assert world.packets([frame]) == [[(8, frame)]]
    assert world.write([update(INSERT, 16), update(DELETE, 8)]) == [(0, ""), (0, "")]
    assert world.packets([frame]) == [[]]  # 10.0/16 does not cover 10.1.2.3
    assert world.write([update(DELETE, 16)]) == [(0, "")]
    assert world.fast_hits == 4


def test_switches_of_one_program_keep_their_own_fast_writes() -> None:
    """Switches of the same program (a simulated fabric) share the compiled code of their
    fast-path functions, never the tables those functions write into."""
    compiled = compile_text(SOURCE, "fast_writes.p4")
    one, two = World(compiled, fast=True), World(compiled, fast=True)
    frame = bytes([7, 0, 0, 0x0A, 0x01, 0x02, 0x03, 0]) + bytes(4)
    assert one.write([_lpm_update(one, INSERT, 8)]) == [(0, "")]
    assert two.write([_lpm_update(two, INSERT, 12)]) == [(0, "")]
    assert one.packets([frame]) == [[(8, frame)]]
    assert two.packets([frame]) == [[(12, frame)]]
    assert two.write([_lpm_update(two, DELETE, 8)])[0][0] == 5  # NOT_FOUND: one's entry
    assert one.write([_lpm_update(one, DELETE, 8)]) == [(0, "")]
    assert one.packets([frame]) == [[]]
    assert two.packets([frame]) == [[(12, frame)]]
    assert (one.fast_hits, two.fast_hits) == (2, 2)  # the refused DELETE too


COUNTED = program(
    decls="header h_t { bit<8> a; bit<16> b; bit<32> c; bit<8> d; }",
    ingress="""
    direct_counter(CounterType.packets_and_bytes) c_one;
    direct_counter(CounterType.packets_and_bytes) c_two;
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t_one {
        key = { hdr.h.b: exact; }
        actions = { fwd; NoAction; }
        counters = c_one;
        size = 32;
    }
    table t_two {
        key = { hdr.h.a: exact; hdr.h.d: exact; }
        actions = { fwd; NoAction; }
        counters = c_two;
        size = 32;
    }
    apply { sm.egress_spec = 0; t_one.apply(); t_two.apply(); }
""",
)


@pytest.mark.parametrize("seed", range(2))
def test_tables_with_direct_counters_take_the_fast_path(seed: int) -> None:
    """Entries of tables with a direct counter: without counter_data the fast path writes
    them (counting from zero), with it the general path; hits count the same and read back
    the same on both."""
    compiled = compile_text(COUNTED, "fast_counted.p4")
    fast, general = World(compiled, fast=True), World(compiled, fast=False)
    rng = random.Random(seed)
    tables = {t.preamble.name: t for t in fast.p4info.tables}
    fwd = next(a for a in fast.p4info.actions if a.preamble.name.endswith(".fwd"))

    def update(kind: int) -> Any:
        t = tables[rng.choice(sorted(tables))]
        u = p4runtime_pb2.Update(type=kind)
        te = u.entity.table_entry
        te.table_id = t.preamble.id
        for mf in t.match_fields:
            te.match.add(field_id=mf.id).exact.value = bytes([rng.randrange(1, 6)])
        te.action.action.action_id = fwd.preamble.id
        te.action.action.params.add(param_id=1, value=bytes([rng.randrange(1, 9)]))
        if kind == INSERT and rng.random() < 0.3:
            te.counter_data.packet_count = rng.randrange(100)
            te.counter_data.byte_count = rng.randrange(1000)
        return u

    for _ in range(8):
        batch = [update(rng.choice((INSERT, INSERT, DELETE))) for _ in range(20)]
        assert fast.write(batch) == general.write(batch)
    frames = [
        bytes([rng.randrange(1, 6), 0, rng.randrange(1, 6)])
        + bytes(4)
        + bytes([rng.randrange(1, 6)])
        for _ in range(200)
    ]
    assert fast.packets(frames) == general.packets(frames)

    q = p4runtime_pb2.Entity()  # every entry, with its counter data
    q.table_entry.counter_data.SetInParent()

    def counted(world: World) -> list[bytes]:
        return sorted(e.SerializeToString(deterministic=True) for e in world.store.read(q))

    ours = counted(fast)
    assert ours == counted(general)
    assert len(ours) > 5
    assert sum(e.table_entry.counter_data.packet_count for e in fast.store.read(q)) > 50
    assert fast.fast_hits > 20
    assert general.fast_hits == 0
