"""INSERTs read from their encoding (entities/fast_wire.py): plain entries of one-field
tables take that path; every other shape — including unknown fields at any level, which
the encoding keeps — is left to the protobuf paths, and the outcome (errors, entries
read back) is the one the general path gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from p4rt_proto import p4runtime_pb2
from softswitch.compiler import compile_text

from .test_fast_writes import DELETE, INSERT, SOURCE, World


@pytest.fixture(scope="module")
def compiled() -> Any:
    return compile_text(SOURCE, "fast_wire.p4")


class Counted:
    """A fast World whose wire INSERTs count the updates they accepted."""

    def __init__(self, compiled: Any) -> None:
        self.world = World(compiled, fast=True)
        self.accepted = 0
        wire = self.world.store.tables.fast.wire
        for key, insert in list(wire.items()):
            wire[key] = self._counting(insert)

    def _counting(self, insert: Callable[[bytes, int], bool]) -> Callable[[bytes, int], bool]:
        def counted(b: bytes, now_us: int) -> bool:
            done = insert(b, now_us)
            self.accepted += done
            return done

        return counted


def _ids(world: World, table: str, action: str) -> tuple[Any, Any]:
    t = next(t for t in world.p4info.tables if t.preamble.name.endswith(table))
    a = next(a for a in world.p4info.actions if a.preamble.name.endswith(action))
    return t, a


def route(world: World, value: bytes, plen: int, params: list[tuple[int, bytes]]) -> Any:
    """An INSERT into t_route (bit<32> lpm) of set_b (b: 16 bits, port: 9, d: 8)."""
    t, a = _ids(world, "t_route", ".set_b")
    u = p4runtime_pb2.Update(type=INSERT)
    te = u.entity.table_entry
    te.table_id = t.preamble.id
    lpm = te.match.add(field_id=t.match_fields[0].id).lpm
    lpm.value, lpm.prefix_len = value, plen
    te.action.action.action_id = a.preamble.id
    for pid, v in params:
        te.action.action.params.add(param_id=pid, value=v)
    return u


def mac(world: World, value: bytes, port: bytes | None) -> Any:
    """An INSERT into t_mac (bit<16> exact) of fwd(port), or of NoAction (port None)."""
    t, fwd = _ids(world, "t_mac", ".fwd")
    _t, noaction = _ids(world, "t_mac", "NoAction")
    u = p4runtime_pb2.Update(type=INSERT)
    te = u.entity.table_entry
    te.table_id = t.preamble.id
    te.match.add(field_id=t.match_fields[0].id).exact.value = value
    act = te.action.action
    if port is None:
        act.action_id = noaction.preamble.id
    else:
        act.action_id = fwd.preamble.id
        act.params.add(param_id=1, value=port)
    return u


def _with_unknown(msg: Any, field: int) -> None:
    """Add an unknown length-delimited field `field` (two bytes of content) to `msg`."""
    msg.MergeFromString(bytes([field << 3 | 2, 2, 0x08, 0x01]))


PLAIN = [
    lambda w: route(w, b"\x0a\x01\x02\x00", 24, [(1, b"\x12\x34"), (2, b"\x01\xff"), (3, b"\x07")]),
    lambda w: route(w, b"\x0b", 32, [(1, b"\x01"), (2, b"\x05"), (3, b"\x00")]),
    lambda w: route(w, b"\x0c\x00\x00\x01", 32, [(1, b"\x00\x01"), (2, b"\x00\x05"), (3, b"\x01")]),
    lambda w: mac(w, b"\x00\x07", b"\x01\x00"),
    lambda w: mac(w, b"\x08", None),
]


def _bad(u: Any, how: str) -> Any:
    te = u.entity.table_entry
    if how == "unknown in Update":
        _with_unknown(u, 3)
    elif how == "the action outside the entry":
        # an entry without action, then an unknown field 3 of the Update holding one: its
        # tag is TableAction's, so only the lengths tell it from an entry with an action
        action = te.action.SerializeToString()
        te.ClearField("action")
        u.MergeFromString(b"\x1a" + bytes([len(action)]) + action)
    elif how == "unknown in Entity":
        _with_unknown(u.entity, 15)
    elif how == "unknown in TableEntry":
        _with_unknown(te, 14)
    elif how == "unknown in FieldMatch":
        _with_unknown(te.match[0], 9)
    elif how == "unknown in TableAction":
        _with_unknown(te.action, 5)
    elif how == "unknown in Action":
        _with_unknown(te.action.action, 2)
    elif how == "unknown in Param":
        _with_unknown(te.action.action.params[0], 4)
    elif how == "priority":
        te.priority = 3
    elif how == "cookie":
        te.controller_metadata = 5
    elif how == "metadata":
        te.metadata = b"m"
    elif how == "idle timeout":
        te.idle_timeout_ns = 10
    elif how == "default entry":
        te.is_default_action = True
    elif how == "modify":
        u.type = p4runtime_pb2.Update.MODIFY
    elif how == "params reversed":
        ps = list(te.action.action.params)
        del te.action.action.params[:]
        te.action.action.params.extend(reversed(ps))
    elif how == "a parameter missing":
        del te.action.action.params[-1]
    elif how == "a parameter too wide":
        te.action.action.params[0].value = b"\x01\x00\x00"
    elif how == "a parameter empty":
        te.action.action.params[0].value = b""
    elif how == "key too wide":
        te.match[0].lpm.value = b"\x01" + bytes(4)
    elif how == "bits past the prefix":
        te.match[0].lpm.value = b"\x0a\x00\x00\x01"
    elif how == "prefix longer than the field":
        te.match[0].lpm.prefix_len = 33
    elif how == "zero prefix":
        te.match[0].lpm.prefix_len = 0
    elif how == "another field id":
        te.match[0].field_id = 2
    elif how == "another table":
        te.table_id += 1
    elif how == "another action":
        te.action.action.action_id += 1
    return u


BAD = [
    "unknown in Update",
    "the action outside the entry",
    "unknown in Entity",
    "unknown in TableEntry",
    "unknown in FieldMatch",
    "unknown in TableAction",
    "unknown in Action",
    "unknown in Param",
    "priority",
    "cookie",
    "metadata",
    "idle timeout",
    "default entry",
    "modify",
    "params reversed",
    "a parameter missing",
    "a parameter too wide",
    "a parameter empty",
    "key too wide",
    "bits past the prefix",
    "prefix longer than the field",
    "zero prefix",
    "another field id",
    "another table",
    "another action",
]


def test_plain_inserts_take_the_wire_path(compiled: Any) -> None:
    counted = Counted(compiled)
    general = World(compiled, fast=False)
    batch = [make(counted.world) for make in PLAIN]
    assert counted.world.write(batch) == general.write(batch) == [(0, "")] * len(batch)
    assert counted.accepted == len(PLAIN)
    assert counted.world.entries() == general.entries()
    # the engine's errors, for the update alone: the same entry again
    again = [make(counted.world) for make in PLAIN[:2]]
    got = counted.world.write(again)
    assert [code for code, _ in got] == [6, 6]  # ALREADY_EXISTS
    assert got == general.write(again)
    assert counted.accepted == len(PLAIN)


@pytest.mark.parametrize("how", BAD)
def test_other_shapes_are_left_to_the_protobuf_paths(compiled: Any, how: str) -> None:
    """Nothing but a plain INSERT is read from its encoding; the protobuf paths give the
    general path's outcome (applied, or the specification's error)."""
    counted = Counted(compiled)
    general = World(compiled, fast=False)
    wire_ok = PLAIN[1](counted.world)
    batch = [_bad(PLAIN[0](counted.world), how), wire_ok, _bad(PLAIN[3](counted.world), how)]
    # the same update, parsed from its encoding: unknown fields as a server receives them
    batch = [p4runtime_pb2.Update.FromString(u.SerializeToString()) for u in batch]
    got = counted.world.write(batch)
    assert got == general.write(batch)
    # the plain update between them only (reversing fwd's one parameter changes nothing)
    assert counted.accepted == (2 if how == "params reversed" else 1)
    assert counted.world.entries() == general.entries()
    delete = [p4runtime_pb2.Update.FromString(u.SerializeToString()) for u in batch]
    for u in delete:
        u.type = DELETE
    assert counted.world.write(delete) == general.write(delete)
    assert counted.world.entries() == general.entries()


def two_field(world: World, a: bytes, c: bytes | None, plen: int, reverse: bool = False) -> Any:
    """An INSERT into t_lpm (a: bit<8> exact, c: bit<32> lpm) of fwd(port); `c` None
    omits the lpm field (a don't-care), `reverse` sends the fields in the other order."""
    t, fwd = _ids(world, "t_lpm", ".fwd")
    u = p4runtime_pb2.Update(type=INSERT)
    te = u.entity.table_entry
    te.table_id = t.preamble.id
    fields = []
    exact = p4runtime_pb2.FieldMatch(field_id=t.match_fields[0].id)
    exact.exact.value = a
    fields.append(exact)
    if c is not None:
        lpm = p4runtime_pb2.FieldMatch(field_id=t.match_fields[1].id)
        lpm.lpm.value, lpm.lpm.prefix_len = c, plen
        fields.append(lpm)
    te.match.extend(reversed(fields) if reverse else fields)
    te.action.action.action_id = fwd.preamble.id
    te.action.action.params.add(param_id=1, value=b"\x03")
    return u


def test_a_key_of_several_fields(compiled: Any) -> None:
    """Exact fields and one lpm field, in key order, take the wire path; in another
    order, or with the lpm field omitted, the protobuf paths, with the same outcome."""
    counted = Counted(compiled)
    general = World(compiled, fast=False)
    batch = [
        two_field(counted.world, b"\x01", b"\x0a\x00\x00\x00", 8),
        two_field(counted.world, b"\x02", b"\x0a\x00\x01\x00", 24),
        two_field(counted.world, b"\x03", b"\x0a\x00\x00\x00", 8, reverse=True),
        two_field(counted.world, b"\x04", None, 0),
        two_field(counted.world, b"\x05", b"\x0a\x00\x01\x01", 24),  # bits past the prefix
        two_field(counted.world, b"\x01\x00", b"\x0a\x00\x00\x00", 8),  # a too wide
        two_field(counted.world, b"\x01", b"\x0a\x00\x00\x00", 8),  # again: ALREADY_EXISTS
    ]
    got = counted.world.write(batch)
    assert got == general.write(batch)
    assert [code for code, _ in got] == [0, 0, 0, 0, 3, 11, 6]
    assert counted.accepted == 2
    assert counted.world.entries() == general.entries()
    frames = [bytes([a, 0, 0, 0x0A, 0, b, 7, 0]) for a in range(1, 6) for b in (0, 1)]
    assert counted.world.packets(frames) == general.packets(frames)
