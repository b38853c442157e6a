"""TableEntry writes and reads through the entity store: forwarding, read-write symmetry,
the spec's error codes, default entries, const tables, direct resources, wildcards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p4rt_proto import p4runtime_pb2

from ._entities_util import DELETE, INSERT, MODIFY, Code, World, make_world, packet, raises


@pytest.fixture
def w() -> World:
    return make_world()


def read_entries(w: World, table: str | None = None, **fields: object) -> list:
    tid = w.id("tables", table) if table else 0
    return w.read(p4runtime_pb2.TableEntry(table_id=tid, **fields))


# ---------------------------------------------------------------- forwarding + symmetry


def test_lpm_entry_forwards_and_reads_back_canonical(w: World) -> None:
    e = w.entry("t_lpm", {"hdr.h.c": (0x0A000000, 8)}, w.action("fwd", port=3))
    w.write(INSERT, e)
    assert w.port_of(packet(1, c=0x0A010203)) == 3
    assert w.port_of(packet(1, c=0x0B010203)) == 0  # miss: NoAction, port 0
    [got] = read_entries(w, "t_lpm")
    assert got == e
    assert got.match[0].lpm.value == b"\x0a\x00\x00\x00"


def test_padded_bytestrings_accepted_and_read_back_canonical(w: World) -> None:
    e = w.entry("t_exact", {"hdr.h.a": b"\x00\x00\x07", "hdr.h.b": b"\x00\x00\x01"})
    e.action.action.CopyFrom(w.action("fwd", port=b"\x00\x05"))
    w.write(INSERT, e)
    assert w.port_of(packet(2, a=7, b=1)) == 5
    [got] = read_entries(w, "t_exact")
    assert [m.exact.value for m in got.match] == [b"\x07", b"\x01"]
    assert got.action.action.params[0].value == b"\x05"


def test_longest_prefix_wins(w: World) -> None:
    w.write(INSERT, w.entry("t_lpm", {"hdr.h.c": (0x0A000000, 8)}, w.action("fwd", port=1)))
    w.write(INSERT, w.entry("t_lpm", {"hdr.h.c": (0x0A010000, 16)}, w.action("fwd", port=2)))
    assert w.port_of(packet(1, c=0x0A010203)) == 2
    assert w.port_of(packet(1, c=0x0A020203)) == 1


def test_ternary_priorities_larger_wins(w: World) -> None:
    lo = w.entry("t_tern", {"hdr.h.a": ("t", 0x10, 0xF0)}, w.action("fwd", port=1), priority=10)
    hi = w.entry("t_tern", {"hdr.h.a": ("t", 0x12, 0xFF)}, w.action("fwd", port=2), priority=20)
    w.write(INSERT, lo)
    w.write(INSERT, hi)
    assert w.port_of(packet(3, a=0x12)) == 2
    assert w.port_of(packet(3, a=0x13)) == 1
    assert {x.priority for x in read_entries(w, "t_tern")} == {10, 20}


def test_range_and_optional_match(w: World) -> None:
    e = w.entry(
        "t_tern",
        {"hdr.h.b": ("r", 100, 200), "hdr.h.d": ("o", 9)},
        w.action("fwd", port=4),
        priority=1,
    )
    w.write(INSERT, e)
    assert w.port_of(packet(3, b=150, d=9)) == 4
    assert w.port_of(packet(3, b=250, d=9)) == 0
    assert w.port_of(packet(3, b=150, d=8)) == 0
    assert read_entries(w, "t_tern") == [e]


def test_modify_and_delete(w: World) -> None:
    e = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 2}, w.action("fwd", port=3))
    w.write(INSERT, e)
    e.action.action.CopyFrom(w.action("fwd", port=6))
    w.write(MODIFY, e)
    assert w.port_of(packet(2, a=1, b=2)) == 6
    w.write(DELETE, w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 2}))
    assert w.port_of(packet(2, a=1, b=2)) is None  # default drop()
    assert read_entries(w, "t_exact") == []


def test_delete_ignores_non_key_fields(w: World) -> None:
    w.write(INSERT, w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 2}, w.action("fwd", port=3)))
    junk = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 2}, idle_timeout_ns=-5, is_const=True)
    junk.action.action.action_id = 12345
    w.write(DELETE, junk)
    assert read_entries(w, "t_exact") == []


def test_metadata_and_idle_timeout_read_back(w: World) -> None:
    e = w.entry(
        "t_exact",
        {"hdr.h.a": 1, "hdr.h.b": 2},
        w.action("fwd", port=3),
        controller_metadata=77,
        metadata=b"cookie",
        idle_timeout_ns=5_000_000_000,
    )
    w.write(INSERT, e)
    assert read_entries(w, "t_exact") == [e]
    req = p4runtime_pb2.TableEntry(table_id=e.table_id)
    req.time_since_last_hit.SetInParent()
    w.switch.clock.advance(1500)
    [got] = w.read(req)
    assert got.time_since_last_hit.elapsed_ns == 1_500_000


@settings(max_examples=40, deadline=None)
@given(
    a=st.integers(0, 255),
    b=st.integers(0, 0xFFFF),
    port=st.integers(0, 511),
    pad=st.integers(0, 3),
)
def test_exact_round_trip_any_padding(a: int, b: int, port: int, pad: int) -> None:
    w = make_world()
    e = w.entry("t_exact", {"hdr.h.a": a, "hdr.h.b": b}, w.action("fwd", port=port))
    padded = p4runtime_pb2.TableEntry()
    padded.CopyFrom(e)
    for m in padded.match:
        m.exact.value = b"\x00" * pad + m.exact.value
    padded.action.action.params[0].value = b"\x00" * pad + e.action.action.params[0].value
    w.write(INSERT, padded)
    assert read_entries(w, "t_exact") == [e]
    assert w.port_of(packet(2, a=a, b=b)) == (port if port != 511 else None)


@settings(max_examples=40, deadline=None)
@given(value=st.integers(0, 0xFFFFFFFF), plen=st.integers(1, 32))
def test_lpm_round_trip(value: int, plen: int) -> None:
    w = make_world()
    masked = value & (((1 << plen) - 1) << (32 - plen))
    e = w.entry("t_lpm", {"hdr.h.c": (masked, plen)}, w.action("fwd", port=9))
    w.write(INSERT, e)
    assert read_entries(w, "t_lpm") == [e]
    assert w.port_of(packet(1, c=value)) == 9


# ---------------------------------------------------------------- errors


def test_bytestring_errors(w: World) -> None:
    too_wide = w.entry("t_exact", {"hdr.h.a": 0x100, "hdr.h.b": 1}, w.action("fwd", port=1))
    raises(Code.OUT_OF_RANGE, w.write, INSERT, too_wide)
    empty = w.entry("t_exact", {"hdr.h.a": b"", "hdr.h.b": 1}, w.action("fwd", port=1))
    raises(Code.OUT_OF_RANGE, w.write, INSERT, empty)
    wide_param = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, w.action("fwd", port=512))
    raises(Code.OUT_OF_RANGE, w.write, INSERT, wide_param)


def test_match_format_errors(w: World) -> None:
    fwd = w.action("fwd", port=1)
    cases = [
        w.entry("t_exact", {"hdr.h.a": 1}, fwd),  # exact field missing
        w.entry("t_lpm", {"hdr.h.c": (0x0A000001, 8)}, fwd),  # bits beyond the prefix
        w.entry("t_lpm", {"hdr.h.c": (0, 0)}, fwd),  # don't care must be omitted
        w.entry("t_lpm", {"hdr.h.c": (0x0A000000, 33)}, fwd),  # prefix too long
        w.entry("t_tern", {"hdr.h.a": ("t", 0, 0)}, fwd, priority=1),  # mask 0
        w.entry("t_tern", {"hdr.h.a": ("t", 0x11, 0xF0)}, fwd, priority=1),  # bits outside mask
        w.entry("t_tern", {"hdr.h.b": ("r", 9, 3)}, fwd, priority=1),  # low > high
        w.entry("t_tern", {"hdr.h.b": ("r", 0, 0xFFFF)}, fwd, priority=1),  # full range
    ]
    for e in cases:
        raises(Code.INVALID_ARGUMENT, w.write, INSERT, e)
    unknown = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, fwd)
    unknown.match.add(field_id=99).exact.value = b"\x01"
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, unknown)
    twice = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, fwd)
    twice.match.append(twice.match[0])
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, twice)
    kind = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, fwd)
    kind.match[0].ClearField("exact")
    kind.match[0].lpm.value = b"\x01"
    kind.match[0].lpm.prefix_len = 8
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, kind)
    assert w.switch.tables["I.t_exact"].entries == {}


def test_priority_rules(w: World) -> None:
    fwd = w.action("fwd", port=1)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_tern", {"hdr.h.d": ("o", 1)}, fwd))
    raises(
        Code.INVALID_ARGUMENT,
        w.write,
        INSERT,
        w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, fwd, priority=3),
    )
    raises(
        Code.INVALID_ARGUMENT,
        w.write,
        INSERT,
        w.entry("t_tern", {"hdr.h.d": ("o", 1)}, fwd, priority=-1),
    )


def test_action_errors(w: World) -> None:
    key = {"hdr.h.a": 1, "hdr.h.b": 1}
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_exact", key))  # no action
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_exact", key, w.action("fwd")))
    raises(
        Code.INVALID_ARGUMENT,
        w.write,
        INSERT,
        w.entry("t_exact", key, w.action("set_b", b=1, port=1)),
    )  # not an action of the table
    extra = w.action("fwd", port=1)
    extra.params.add(param_id=7, value=b"\x01")
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_exact", key, extra))
    dup = w.action("fwd", port=1)
    dup.params.append(dup.params[0])
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_exact", key, dup))
    bad_id = p4runtime_pb2.Action(action_id=42)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, w.entry("t_exact", key, bad_id))
    # scope: @defaultonly in an entry, @tableonly as default
    raises(Code.PERMISSION_DENIED, w.write, INSERT, w.entry("t_exact", key, w.action("drop")))
    default = w.entry("t_keyless", action=w.action("drop"), is_default_action=True)
    raises(Code.PERMISSION_DENIED, w.write, MODIFY, default)
    # a member id for a direct table
    member = w.entry("t_exact", key)
    member.action.action_profile_member_id = 1
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, member)


def test_existence_errors(w: World) -> None:
    e = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, w.action("fwd", port=1))
    raises(Code.NOT_FOUND, w.write, MODIFY, e)
    raises(Code.NOT_FOUND, w.write, DELETE, e)
    w.write(INSERT, e)
    raises(Code.ALREADY_EXISTS, w.write, INSERT, e)


def test_table_full(w: World) -> None:
    for i in range(4):
        w.write(INSERT, w.entry("t_lpm", {"hdr.h.c": (i << 24, 8)}, w.action("fwd", port=1)))
    e = w.entry("t_lpm", {"hdr.h.c": (9 << 24, 8)}, w.action("fwd", port=1))
    raises(Code.RESOURCE_EXHAUSTED, w.write, INSERT, e)


def test_unknown_table_and_misc_errors(w: World) -> None:
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, p4runtime_pb2.TableEntry(table_id=0))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, p4runtime_pb2.TableEntry(table_id=123))
    key = {"hdr.h.a": 1, "hdr.h.b": 1}
    const = w.entry("t_exact", key, w.action("fwd", port=1), is_const=True)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, const)
    hit = w.entry("t_exact", key, w.action("fwd", port=1))
    hit.time_since_last_hit.elapsed_ns = 1
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, hit)
    no_timeout = w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}, w.action("fwd", port=1))
    no_timeout.idle_timeout_ns = 10
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, no_timeout)
    keyless = w.entry("t_keyless", action=w.action("fwd", port=1))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, keyless)
    colours = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("fwd", port=1), priority=1)
    colours.meter_counter_data.green.packet_count = 0
    raises(Code.UNIMPLEMENTED, w.write, INSERT, colours)
    upd = p4runtime_pb2.Update(type=p4runtime_pb2.Update.UNSPECIFIED)
    upd.entity.table_entry.CopyFrom(keyless)
    raises(Code.INVALID_ARGUMENT, w.store.write, upd)
    raises(Code.INVALID_ARGUMENT, w.store.write, p4runtime_pb2.Update(type=INSERT))


# ---------------------------------------------------------------- default entries


def test_default_entry_modify_reset_and_read(w: World) -> None:
    tid = w.id("tables", "t_lpm")
    d = p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True, metadata=b"m")
    d.action.action.CopyFrom(w.action("fwd", port=8))
    w.write(MODIFY, d)
    assert w.port_of(packet(1, c=5)) == 8
    [got] = w.read(p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True))
    assert got == d
    w.write(MODIFY, p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True))
    assert w.port_of(packet(1, c=5)) == 0
    [got] = w.read(p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True))
    assert got.action.action.action_id == w.id("actions", "NoAction")
    assert got.metadata == b""


def test_default_entry_errors(w: World) -> None:
    tid = w.id("tables", "t_lpm")
    d = p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True)
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, d)
    raises(Code.INVALID_ARGUMENT, w.write, DELETE, d)
    with_prio = p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True, priority=2)
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, with_prio)
    with_match = w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}, is_default_action=True)
    raises(Code.INVALID_ARGUMENT, w.write, MODIFY, with_match)
    const = w.entry("t_const", action=w.action("fwd", port=1), is_default_action=True)
    raises(Code.PERMISSION_DENIED, w.write, MODIFY, const)
    indirect = w.entry("t_prof", is_default_action=True)
    indirect.action.action_profile_member_id = 1
    raises(Code.PERMISSION_DENIED, w.write, MODIFY, indirect)


# ---------------------------------------------------------------- const tables


def test_const_table(w: World) -> None:
    entries = read_entries(w, "t_const")
    assert [(e.match[0].exact.value, e.is_const) for e in entries] == [
        (b"\x01", True),
        (b"\x02", True),
    ]
    assert entries[0].action.action == w.action("fwd", port=1)
    raises(
        Code.PERMISSION_DENIED,
        w.write,
        INSERT,
        w.entry("t_const", {"hdr.h.a": 3}, w.action("fwd", port=1)),
    )
    raises(Code.PERMISSION_DENIED, w.write, DELETE, w.entry("t_const", {"hdr.h.a": 1}))
    raises(
        Code.PERMISSION_DENIED,
        w.write,
        MODIFY,
        w.entry("t_const", {"hdr.h.a": 1}, w.action("fwd", port=3)),
    )
    w.write(MODIFY, w.entry("t_const", {"hdr.h.a": 1}))  # direct resources only: allowed
    assert w.port_of(packet(4, a=1)) == 1


# ---------------------------------------------------------------- direct resources


def test_direct_counter_in_entry(w: World) -> None:
    e = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("fwd", port=2), priority=1)
    e.counter_data.packet_count = 10
    e.counter_data.byte_count = 100
    w.write(INSERT, e)
    w.send(packet(3, d=1))
    req = p4runtime_pb2.TableEntry(table_id=e.table_id)
    req.counter_data.SetInParent()
    [got] = w.read(req)
    assert (got.counter_data.packet_count, got.counter_data.byte_count) == (11, 109)
    [plain] = w.read(p4runtime_pb2.TableEntry(table_id=e.table_id))
    assert not plain.HasField("counter_data")
    mod = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, priority=1)
    w.write(MODIFY, mod)  # counter_data unset: unchanged
    [got] = w.read(req)
    assert got.counter_data.packet_count == 11
    no_counter = w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}, w.action("fwd", port=1))
    no_counter.counter_data.packet_count = 1
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, no_counter)


def test_direct_meter_in_entry(w: World) -> None:
    e = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("metered", port=2), priority=1)
    e.meter_config.CopyFrom(p4runtime_pb2.MeterConfig(cir=1, cburst=1, pir=1, pburst=2))
    w.write(INSERT, e)
    colours = [w.send(packet(3, d=1))[0][1][-1] for _ in range(4)]
    assert colours == [0, 1, 2, 2]  # GREEN, then YELLOW (peak bucket), then RED
    req = p4runtime_pb2.TableEntry(table_id=e.table_id)
    req.meter_config.SetInParent()
    [got] = w.read(req)
    assert got.meter_config == e.meter_config
    w.write(MODIFY, w.entry("t_tern", {"hdr.h.d": ("o", 1)}, priority=1))  # unset: reset
    [got] = w.read(req)
    assert not got.HasField("meter_config")
    assert w.send(packet(3, d=1))[0][1][-1] == 0
    bad = w.entry("t_tern", {"hdr.h.d": ("o", 2)}, w.action("metered", port=2), priority=1)
    bad.meter_config.CopyFrom(p4runtime_pb2.MeterConfig(cir=5, cburst=1, pir=1, pburst=1))
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, bad)
    no_meter = w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}, w.action("fwd", port=1))
    no_meter.meter_config.cir = 1
    raises(Code.INVALID_ARGUMENT, w.write, INSERT, no_meter)


# ---------------------------------------------------------------- wildcard reads


def test_wildcard_reads(w: World) -> None:
    a = w.entry("t_exact", {"hdr.h.a": 1, "hdr.h.b": 1}, w.action("fwd", port=1), metadata=b"x")
    b = w.entry("t_exact", {"hdr.h.a": 2, "hdr.h.b": 1}, w.action("fwd", port=2))
    c = w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}, w.action("drop"))
    t1 = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("fwd", port=1), priority=5)
    t2 = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("fwd", port=1), priority=6)
    for e in (a, b, c, t1, t2):
        w.write(INSERT, e)
    everything = read_entries(w)
    assert len(everything) == 5 + 2  # + the two const entries
    assert read_entries(w, "t_exact") == [a, b]
    assert w.read(w.entry("t_exact", {"hdr.h.a": 2, "hdr.h.b": 1})) == [b]
    assert w.read(w.entry("t_exact", {"hdr.h.a": 3, "hdr.h.b": 1})) == []
    assert read_entries(w, "t_exact", metadata=b"x") == [a]
    fwd_only = p4runtime_pb2.TableEntry(table_id=c.table_id)
    fwd_only.action.action.action_id = w.id("actions", "fwd")
    assert w.read(fwd_only) == []
    assert read_entries(w, "t_tern", priority=6) == [t2]
    assert w.read(w.entry("t_tern", {"hdr.h.d": ("o", 1)})) == [t1, t2]  # priority wildcard
    defaults = w.read(p4runtime_pb2.TableEntry(is_default_action=True))
    assert len(defaults) == len(w.p4info.tables)
    bad = p4runtime_pb2.TableEntry()
    bad.match.add(field_id=1).exact.value = b"\x01"
    raises(Code.INVALID_ARGUMENT, w.read, bad)
