"""Counters, meters, registers, the packet replication engine, value sets and digests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p4rt_proto import p4info_pb2, p4runtime_pb2

from ._entities_util import (
    DELETE,
    INSERT,
    MODIFY,
    Code,
    World,
    compiled,
    make_world,
    packet,
    raises,
)

P = p4runtime_pb2


@pytest.fixture
def w() -> World:
    return make_world()


# ---------------------------------------------------------------- counters


def counter(w: World, index: int | None = None, **data: int) -> P.CounterEntry:
    c = P.CounterEntry(counter_id=w.id("counters", "cnt"))
    if index is not None:
        c.index.index = index
    if data:
        c.data.CopyFrom(P.CounterData(**data))
    return c


def test_counter_read_write(w: World) -> None:
    w.send(packet(0, d=3))
    w.send(packet(0, d=3))
    [c3] = w.read(counter(w, 3))
    assert (c3.data.packet_count, c3.data.byte_count) == (2, 18)
    assert len(w.read(counter(w))) == 8
    assert len(w.read(P.CounterEntry())) == 8
    w.write(MODIFY, counter(w, 3, packet_count=100, byte_count=1000))
    w.send(packet(0, d=3))
    [c3] = w.read(counter(w, 3))
    assert (c3.data.packet_count, c3.data.byte_count) == (101, 1009)
    w.write(MODIFY, counter(w, packet_count=5))  # no index: every cell
    assert {c.data.packet_count for c in w.read(counter(w))} == {5}
    assert {c.data.byte_count for c in w.read(counter(w))} == {0}


def test_counter_errors(w: World) -> None:
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, counter(w, 1, packet_count=1))
    raises(Code.INVALID_ARGUMENT, w.write, DELETE, counter(w, 1))
    raises(Code.OUT_OF_RANGE, w.write, MODIFY, counter(w, 8, packet_count=1))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, counter(w, -1, packet_count=1))
    raises(Code.OUT_OF_RANGE, w.read, counter(w, 8))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, P.CounterEntry(counter_id=5))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, counter(w, 1, packet_count=-1))


def test_direct_counter_entry(w: World) -> None:
    e = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("fwd", port=2), priority=1)
    w.write(INSERT, e)
    w.send(packet(3, d=1))
    key = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, priority=1)
    [got] = w.read(P.DirectCounterEntry(table_entry=key))
    assert got.table_entry == key
    assert (got.data.packet_count, got.data.byte_count) == (1, 9)
    w.write(MODIFY, P.DirectCounterEntry(table_entry=key, data=P.CounterData(packet_count=7)))
    [got] = w.read(P.DirectCounterEntry(table_entry=P.TableEntry(table_id=e.table_id)))
    assert got.data.packet_count == 7
    assert len(w.read(P.DirectCounterEntry())) == 1
    other = w.entry("t_tern", {"hdr.h.d": ("o", 2)}, priority=1)
    raises(Code.NOT_FOUND, w.read, P.DirectCounterEntry(table_entry=other))
    raises(Code.NOT_FOUND, w.write, MODIFY, P.DirectCounterEntry(table_entry=other))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, P.DirectCounterEntry(table_entry=key))
    lpm = P.DirectCounterEntry(table_entry=P.TableEntry(table_id=w.id("tables", "t_lpm")))
    raises(Code.INVALID_ARGUMENT, w.read, lpm)


# ---------------------------------------------------------------- meters


def test_meter_entry_configures_and_reads_back(w: World) -> None:
    m = P.MeterEntry(meter_id=w.id("meters", "mtr"))
    m.index.index = 2
    m.config.CopyFrom(P.MeterConfig(cir=1, cburst=1, pir=1, pburst=2))
    w.write(MODIFY, m)
    colours = [w.port_of(packet(9, a=2)) for _ in range(4)]
    assert colours == [0, 1, 2, 2]
    assert w.port_of(packet(9, a=1)) == 0  # unconfigured: GREEN
    assert w.read(P.MeterEntry(meter_id=m.meter_id, index=m.index)) == [m]
    configured = [x for x in w.read(P.MeterEntry()) if x.HasField("config")]
    assert configured == [m]
    reset = P.MeterEntry(meter_id=m.meter_id, index=m.index)
    w.write(MODIFY, reset)
    assert w.read(reset) == [reset]


@settings(max_examples=30, deadline=None)
@given(
    cir=st.integers(0, 10**12),
    extra=st.integers(0, 10**12),
    cburst=st.integers(0, 10**9),
    pburst=st.integers(0, 10**9),
)
def test_meter_config_exact_round_trip(cir: int, extra: int, cburst: int, pburst: int) -> None:
    w = make_world()
    m = P.MeterEntry(meter_id=w.id("meters", "mtr"))
    m.index.index = 0
    m.config.CopyFrom(P.MeterConfig(cir=cir, cburst=cburst, pir=cir + extra, pburst=pburst))
    w.write(MODIFY, m)
    assert w.read(P.MeterEntry(meter_id=m.meter_id, index=m.index)) == [m]


def test_meter_errors(w: World) -> None:
    m = P.MeterEntry(meter_id=w.id("meters", "mtr"))
    m.index.index = 4
    raises(Code.OUT_OF_RANGE, w.write, MODIFY, m)
    m.index.index = 0
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, m)
    m.config.CopyFrom(P.MeterConfig(cir=2, cburst=1, pir=1, pburst=1))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, m)
    m.config.CopyFrom(P.MeterConfig(cir=1, cburst=1, pir=1, pburst=1, eburst=3))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, m)
    m.config.CopyFrom(P.MeterConfig(cir=-1, cburst=1, pir=1, pburst=1))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, m)
    m.ClearField("config")
    m.counter_data.green.packet_count = 0
    raises(Code.UNIMPLEMENTED, w.write, MODIFY, m)


def test_direct_meter_entry(w: World) -> None:
    e = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("metered", port=2), priority=1)
    w.write(INSERT, e)
    key = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, priority=1)
    cfg = P.MeterConfig(cir=1, cburst=1, pir=1, pburst=1)
    w.write(MODIFY, P.DirectMeterEntry(table_entry=key, config=cfg))
    assert [w.send(packet(3, d=1))[0][1][-1] for _ in range(2)] == [0, 2]
    [got] = w.read(P.DirectMeterEntry(table_entry=key))
    assert got.config == cfg and got.table_entry == key
    w.write(MODIFY, P.DirectMeterEntry(table_entry=key))  # unset: reset
    [got] = w.read(P.DirectMeterEntry(table_entry=key))
    assert not got.HasField("config")
    raises(Code.INVALID_ARGUMENT, w.write, DELETE, P.DirectMeterEntry(table_entry=key))


# ---------------------------------------------------------------- registers


def register(w: World, name: str, index: int | None, value: bytes | None = None) -> P.RegisterEntry:
    r = P.RegisterEntry(register_id=w.id("registers", name))
    if index is not None:
        r.index.index = index
    if value is not None:
        r.data.bitstring = value
    return r


def test_register_write_is_seen_by_the_data_plane(w: World) -> None:
    w.write(MODIFY, register(w, "reg", 5, b"\x00\x12\x34"))
    out = w.send(packet(12, a=5))
    assert out[0][1][2:4] == b"\x12\x34"
    assert w.read(register(w, "reg", 5)) == [register(w, "reg", 5, b"\x12\x34")]
    w.send(packet(13, a=0, b=0x0007))  # sel 13: reg[a] = b
    everything = w.read(register(w, "reg", None))
    assert len(everything) == 16
    assert everything[0].data.bitstring == b"\x07"
    assert everything[1].data.bitstring == b"\x00"
    w.write(MODIFY, register(w, "reg", None, b"\x01"))
    assert {r.data.bitstring for r in w.read(register(w, "reg", None))} == {b"\x01"}


def test_signed_register(w: World) -> None:
    w.write(MODIFY, register(w, "sreg", 1, b"\xff\x9d"))  # -99, sign-extended
    assert w.switch.externs["I.sreg"].values[1] == -99
    assert w.read(register(w, "sreg", 1))[0].data.bitstring == b"\x9d"
    w.write(MODIFY, register(w, "sreg", 2, b"\x63"))
    assert w.read(register(w, "sreg", 2))[0].data.bitstring == b"\x63"
    raises(Code.OUT_OF_RANGE, w.write, MODIFY, register(w, "sreg", 1, b"\x00\x9d"))


def test_register_errors(w: World) -> None:
    raises(Code.OUT_OF_RANGE, w.write, MODIFY, register(w, "reg", 16, b"\x01"))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, register(w, "reg", -1, b"\x01"))
    raises(Code.OUT_OF_RANGE, w.write, MODIFY, register(w, "reg", 1, b"\x01\x00\x00"))
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, register(w, "reg", 1))  # no data
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, register(w, "reg", 1, b"\x01"))
    wrong = register(w, "reg", 1)
    wrong.data.bool = True
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, wrong)
    raises(Code.OUT_OF_RANGE, w.read, register(w, "reg", 16))


# ---------------------------------------------------------------- PRE


def mc_group(
    gid: int, replicas: list[tuple[int, int]], use_bytes: bool = False
) -> P.PacketReplicationEngineEntry:
    e = P.PacketReplicationEngineEntry()
    m = e.multicast_group_entry
    m.multicast_group_id = gid
    for port, rid in replicas:
        r = m.replicas.add(instance=rid)
        if use_bytes:
            r.port = bytes([port])
        else:
            r.egress_port = port
    return e


def test_multicast_group(w: World) -> None:
    g = mc_group(7, [(1, 0), (2, 5)])
    g.multicast_group_entry.metadata = b"meta"
    w.write(INSERT, g)
    out = w.send(packet(10, b=7))
    assert sorted(p for p, _ in out) == [1, 2]
    assert w.read(P.PacketReplicationEngineEntry(multicast_group_entry={})) == [g]
    g2 = mc_group(7, [(3, 1)], use_bytes=True)
    w.write(MODIFY, g2)
    assert [p for p, _ in w.send(packet(10, b=7))] == [3]
    assert w.read(mc_group(7, [])) == [g2]
    w.write(DELETE, mc_group(7, []))
    assert w.send(packet(10, b=7)) == []


def test_multicast_errors(w: World) -> None:
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, mc_group(0, [(1, 0)]))
    raises(Code.NOT_FOUND, w.write, MODIFY, mc_group(1, [(1, 0)]))
    raises(Code.NOT_FOUND, w.write, DELETE, mc_group(1, []))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, mc_group(1, [(1, 0), (1, 0)]))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, mc_group(1, [(600, 0)]))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, mc_group(1, [(1, 1 << 16)]))
    backup = mc_group(1, [(1, 0)])
    backup.multicast_group_entry.replicas[0].backup_replicas.add(port=b"\x02")
    raises(Code.UNIMPLEMENTED, w.write, INSERT, backup)
    w.write(INSERT, mc_group(1, [(1, 0)]))
    raises(Code.ALREADY_EXISTS, w.write, INSERT, mc_group(1, [(2, 0)]))


def test_clone_session(w: World) -> None:
    s = P.PacketReplicationEngineEntry()
    c = s.clone_session_entry
    c.session_id = 5
    c.replicas.add(egress_port=4, instance=1)
    c.class_of_service = 2
    c.packet_length_bytes = 4
    w.write(INSERT, s)
    out = w.send(packet(11, b=5))
    assert (4, packet(11, b=5)[:4]) in out
    assert w.read(P.PacketReplicationEngineEntry(clone_session_entry={})) == [s]
    bad = P.PacketReplicationEngineEntry()
    bad.clone_session_entry.CopyFrom(c)
    bad.clone_session_entry.class_of_service = 8
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, bad)
    bad.clone_session_entry.session_id = 0
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, bad)
    w.write(DELETE, s)
    assert w.send(packet(11, b=5)) == [(0, packet(11, b=5))]


# ---------------------------------------------------------------- value sets


def test_value_set(w: World) -> None:
    vs = P.ValueSetEntry(value_set_id=w.id("value_sets", "vs_a"))
    for v in (3, 9):
        vs.members.add().match.add(field_id=1).exact.value = bytes([v])
    w.write(MODIFY, vs)
    assert [w.port_of(packet(8, a=a)) for a in (3, 4, 9)] == [1, 0, 1]
    assert w.read(P.ValueSetEntry(value_set_id=vs.value_set_id)) == [vs]
    w.write(MODIFY, P.ValueSetEntry(value_set_id=vs.value_set_id))  # empty it
    assert w.port_of(packet(8, a=3)) == 0


def test_two_field_value_set(w: World) -> None:
    vs = P.ValueSetEntry(value_set_id=w.id("value_sets", "vs_ab"))
    m = vs.members.add()
    m.match.add(field_id=1).exact.value = b"\x01"
    m.match.add(field_id=2).exact.value = b"\x00\x02"
    w.write(MODIFY, vs)
    assert w.port_of(packet(8, a=1, b=2, d=0xAA)) == 1
    assert w.port_of(packet(8, a=1, b=3, d=0xAA)) == 0
    [got] = w.read(P.ValueSetEntry(value_set_id=vs.value_set_id))
    assert got.members[0].match[1].exact.value == b"\x02"


def test_value_set_errors(w: World) -> None:
    vid = w.id("value_sets", "vs_a")
    vs = P.ValueSetEntry(value_set_id=vid)
    for v in range(5):
        vs.members.add().match.add(field_id=1).exact.value = bytes([v])
    raises(Code.RESOURCE_EXHAUSTED, w.write, MODIFY, vs)
    dup = P.ValueSetEntry(value_set_id=vid)
    for _ in range(2):
        dup.members.add().match.add(field_id=1).exact.value = b"\x01"
    raises(Code.ALREADY_EXISTS, w.write, MODIFY, dup)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, P.ValueSetEntry(value_set_id=vid))
    missing = P.ValueSetEntry(value_set_id=vid)
    missing.members.add()
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, missing)  # exact field omitted


def test_ternary_value_set_field() -> None:
    """A value set whose P4Info field is ternary matches by value and mask."""
    p4info = p4info_pb2.P4Info()
    from softswitch.p4info import p4info_for

    p4info.CopyFrom(p4info_for(compiled()))
    vs_info = next(v for v in p4info.value_sets if v.preamble.name == "P.vs_ab")
    vs_info.match[0].match_type = p4info_pb2.MatchField.TERNARY
    w = make_world(p4info=p4info)
    vs = P.ValueSetEntry(value_set_id=vs_info.preamble.id)
    m = vs.members.add()
    fm = m.match.add(field_id=1)
    fm.ternary.value, fm.ternary.mask = b"\x10", b"\xf0"
    m.match.add(field_id=2).exact.value = b"\x02"
    w.write(MODIFY, vs)
    assert w.port_of(packet(8, a=0x1F, b=2, d=0xAA)) == 1
    assert w.port_of(packet(8, a=0x2F, b=2, d=0xAA)) == 0
    assert w.read(P.ValueSetEntry(value_set_id=vs.value_set_id)) == [vs]


# ---------------------------------------------------------------- digests


def test_digest_config(w: World) -> None:
    did = w.id("digests", "learn_t")
    d = P.DigestEntry(digest_id=did)
    d.config.max_timeout_ns = 1000
    d.config.max_list_size = 10
    d.config.ack_timeout_ns = 5000
    assert w.store.digest_config(did) is None
    raises(Code.NOT_FOUND, w.write, MODIFY, d)
    w.write(INSERT, d)
    assert w.store.digest_config(did) == d.config
    raises(Code.ALREADY_EXISTS, w.write, INSERT, d)
    assert w.read(P.DigestEntry()) == [d]
    d.config.max_list_size = 1
    w.write(MODIFY, d)
    assert w.store.digest_config(did).max_list_size == 1
    w.write(DELETE, P.DigestEntry(digest_id=did))
    assert w.store.digest_config(did) is None
    raises(Code.NOT_FOUND, w.write, DELETE, P.DigestEntry(digest_id=did))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, P.DigestEntry(digest_id=did))  # no config
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, P.DigestEntry(digest_id=12))


def test_unsupported_entities(w: World) -> None:
    ent = P.Entity()
    ent.extern_entry.extern_type_id = 1
    raises(Code.UNIMPLEMENTED, w.store.write, P.Update(type=INSERT, entity=ent))
    raises(Code.UNIMPLEMENTED, w.store.read, ent)
    raises(Code.INVALID_ARGUMENT, w.store.read, P.Entity())


def test_wildcard_array_reads_skip_arrays_too_small_for_the_index(w: World) -> None:
    by_index = P.CounterEntry()
    by_index.index.index = 6
    assert [c.counter_id for c in w.read(by_index)] == [w.id("counters", "cnt")]
    meters = P.MeterEntry()
    meters.index.index = 5
    assert w.read(meters) == []  # mtr has 4 cells
    regs = P.RegisterEntry()
    regs.index.index = 3
    assert {r.register_id for r in w.read(regs)} == {
        w.id("registers", "reg"),
        w.id("registers", "sreg"),
    }
