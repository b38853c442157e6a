"""Runs of plain table entry writes (entities/fast_tables.py `write_run`) inside one
WriteRequest: an update that fails, wherever it sits in the batch (first, last, on either
side of the server's lock chunks), fails alone with the code the specification gives it,
and under CONTINUE_ON_ERROR every other update of the batch is applied and reads back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2

from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc
from softswitch.compiler import compile_text
from softswitch.engine.tables import Table
from softswitch.p4runtime import device as device_mod
from softswitch.p4runtime.status import RpcAbort, error_details

from .test_fast_writes import DELETE, INSERT, SOURCE, World

CHUNK = device_mod._LOCK_CHUNK  # updates per hold of the runtime lock


@pytest.fixture(scope="module")
def compiled() -> Any:
    return compile_text(SOURCE, "write_runs.p4")


class Routes:
    """Updates of SOURCE's one-field lpm table `t_route` (bit<32>, size 64)."""

    def __init__(self, world: World) -> None:
        info = world.p4info
        self.table = next(t for t in info.tables if t.preamble.name.endswith("t_route"))
        self.fwd = next(a for a in info.actions if a.preamble.name.endswith(".fwd"))

    def update(self, n: int, kind: int = INSERT, plen: int = 24, value: bytes | None = None) -> Any:
        u = p4runtime_pb2.Update(type=kind)
        te = u.entity.table_entry
        te.table_id = self.table.preamble.id
        lpm = te.match.add(field_id=self.table.match_fields[0].id).lpm
        lpm.value = value if value is not None else (0x0A000000 + (n << 8)).to_bytes(4, "big")
        lpm.prefix_len = plen
        if kind == INSERT:
            te.action.action.action_id = self.fwd.preamble.id
            te.action.action.params.add(param_id=1, value=(n % 500 + 1).to_bytes(2, "big"))
        return u

    def prefixes(self, world: World) -> list[bytes]:
        q = p4runtime_pb2.Entity()
        q.table_entry.table_id = self.table.preamble.id
        return sorted(e.table_entry.match[0].lpm.value for e in world.store.read(q))


def codes(got: list[tuple[int, str]]) -> dict[int, int]:
    """{update index: canonical code} of the updates that failed."""
    return {i: code for i, (code, _) in enumerate(got) if code}


@pytest.mark.parametrize("bad", [0, CHUNK - 1, CHUNK, 2 * CHUNK - 1])
def test_one_bad_update_fails_alone_wherever_it_is(compiled: Any, bad: int) -> None:
    """A value wider than the field (declined by the fast path, OUT_OF_RANGE from the
    general one) at a lock-chunk boundary: only that update fails."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    n = 2 * CHUNK
    batch = [routes.update(i) for i in range(n)]
    batch[bad] = routes.update(bad, value=b"\x01" + bytes(4))  # 33 bits for a bit<32>
    got = world.write(batch)
    assert codes(got) == {bad: code_pb2.OUT_OF_RANGE}
    assert "does not fit in 32 bits" in got[bad][1]
    good = [i for i in range(n) if i != bad]
    want = sorted((0x0A000000 + (i << 8)).to_bytes(4, "big") for i in good)
    assert routes.prefixes(world) == want
    assert world.fast_hits == len(good)


def test_engine_errors_inside_a_run_fail_alone(compiled: Any) -> None:
    """ALREADY_EXISTS (the same entry twice in one batch), NOT_FOUND (a delete of an
    absent entry) and RESOURCE_EXHAUSTED (a full table) are reported for those updates
    only; the run goes on after each of them."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    size = routes.table.size
    batch = [routes.update(i) for i in range(10)]
    batch.insert(4, routes.update(2))  # a duplicate of update 2
    batch.insert(7, routes.update(999, kind=DELETE))  # never inserted
    batch += [routes.update(i) for i in range(10, size + 3)]  # 3 more than fit
    got = world.write(batch)
    full = {i: code_pb2.RESOURCE_EXHAUSTED for i in range(len(batch) - 3, len(batch))}
    assert codes(got) == {4: code_pb2.ALREADY_EXISTS, 7: code_pb2.NOT_FOUND, **full}
    assert "already exists" in got[4][1] and "full" in got[-1][1]
    assert len(routes.prefixes(world)) == size
    assert world.fast_hits == len(batch)  # the engine errors were the fast path's


def test_declined_updates_between_runs(compiled: Any) -> None:
    """Updates the fast path declines (a don't-care prefix length, a MODIFY, an update of
    another entity) take the general path in order, between runs of plain ones."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    modify = routes.update(1)
    modify.type = p4runtime_pb2.Update.MODIFY
    modify.entity.table_entry.action.action.params[0].value = b"\x07"
    register = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    register.entity.register_entry.register_id = 12345
    batch = [
        routes.update(0),
        routes.update(1),
        routes.update(5, plen=0),  # INVALID_ARGUMENT: a don't-care lpm must be omitted
        modify,  # general path: applied
        routes.update(2),
        register,  # NOT_FOUND (no such register)
        routes.update(0, kind=DELETE),
        routes.update(3),
    ]
    got = world.write(batch)
    assert codes(got) == {2: code_pb2.INVALID_ARGUMENT, 5: code_pb2.INVALID_ARGUMENT}
    assert "prefix length 0" in got[2][1] and "unknown register id" in got[5][1]
    assert world.fast_hits == 5
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = routes.table.preamble.id
    read = {
        e.table_entry.match[0].lpm.value: e.table_entry.action.action.params[0].value
        for e in world.store.read(q)
    }
    assert read == {
        bytes([10, 0, 1, 0]): b"\x07",  # modified by the general path after its insert
        bytes([10, 0, 2, 0]): b"\x03",
        bytes([10, 0, 3, 0]): b"\x04",
    }


def test_a_bug_inside_a_run_is_internal_for_that_update(
    compiled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    add = Table.add_plain

    def flaky(self: Table, matches: Any, *rest: Any) -> Any:
        if matches[0].value == 0x0A000300:
            raise RuntimeError("boom")
        return add(self, matches, *rest)

    monkeypatch.setattr(Table, "add_plain", flaky)  # before the plans bind it
    world = World(compiled, fast=True)
    routes = Routes(world)
    got = world.write([routes.update(i) for i in range(6)])
    assert codes(got) == {3: code_pb2.INTERNAL}
    assert "boom" in got[3][1]
    assert len(routes.prefixes(world)) == 5


@pytest.fixture
def served(compiled: Any) -> Iterator[tuple[World, Any]]:
    world = World(compiled, fast=True)
    world.server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{world.server.port}")
    try:
        yield world, p4runtime_pb2_grpc.P4RuntimeStub(channel)
    finally:
        channel.close()
        world.server.stop()


def test_over_grpc_the_status_details_name_the_failed_update(served: tuple[World, Any]) -> None:
    """Through a real gRPC client: status UNKNOWN, one p4.v1.Error per update, OK for all
    but the bad one; the other entries are installed and read back."""
    world, stub = served
    routes = Routes(world)
    batch = [routes.update(i) for i in range(40)]
    batch[17] = routes.update(17, plen=33)  # longer than the field: INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        stub.Write(p4runtime_pb2.WriteRequest(device_id=0, updates=batch))
    assert info.value.code() == grpc.StatusCode.UNKNOWN
    got = error_details(info.value)
    assert got is not None
    _status, errors = got
    assert [e.canonical_code for e in errors] == [
        code_pb2.INVALID_ARGUMENT if i == 17 else code_pb2.OK for i in range(40)
    ]
    assert "prefix length 33" in errors[17].message
    req = p4runtime_pb2.ReadRequest(device_id=0)
    req.entities.add().table_entry.table_id = routes.table.preamble.id
    read = [e.table_entry for r in stub.Read(req) for e in r.entities]
    assert len(read) == 39
    by_prefix = {te.match[0].lpm.value: te for te in read}
    assert 17 not in {int.from_bytes(p, "big") >> 8 & 0xFF for p in by_prefix}
    sent = batch[3].entity.table_entry  # read back as written (canonical bytestrings)
    back = by_prefix[sent.match[0].lpm.value]
    assert back.action.action.params[0].value == b"\x04"
    assert back.action.action.action_id == sent.action.action.action_id


def test_the_collector_is_paused_only_while_a_batch_is_written(
    compiled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cyclic garbage collector is off while updates are applied and on again after
    the batch, also after one that failed; an application that switched it off keeps it
    off."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    seen: list[bool] = []
    run = world.store.write_run

    def watching(*args: Any) -> int:
        seen.append(gc.isenabled())
        return run(*args)

    monkeypatch.setattr(world.store, "write_run", watching)
    assert gc.isenabled()
    assert world.write([routes.update(1), routes.update(1)])[1][0] == code_pb2.ALREADY_EXISTS
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        assert world.write([routes.update(2)]) == [(0, "")]
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("atomicity", ["ROLLBACK_ON_ERROR", "DATAPLANE_ATOMIC"])
def test_atomic_batches_of_plain_entries_roll_back(compiled: Any, atomicity: str) -> None:
    """An atomic batch takes the updates one at a time (the fast path still writes plain
    ones); a failure restores every table as it was: the failed update has its error, the
    others ABORTED."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    assert world.write([routes.update(0)]) == [(0, "")]
    batch = [routes.update(i) for i in (1, 2, 3, 0, 4)]  # update 3 exists already
    req = p4runtime_pb2.WriteRequest(device_id=0, updates=batch)
    req.atomicity = p4runtime_pb2.WriteRequest.Atomicity.Value(atomicity)
    with pytest.raises(RpcAbort) as info:
        world.server.write(req)
    assert info.value.details is not None
    got = []
    for d in info.value.details.details:
        err = p4runtime_pb2.Error()
        d.Unpack(err)
        got.append(err.canonical_code)
    aborted = code_pb2.ABORTED
    assert got == [aborted, aborted, aborted, code_pb2.ALREADY_EXISTS, aborted]
    assert routes.prefixes(world) == [bytes([10, 0, 0, 0])]
    assert world.write(batch[:3]) == [(0, "")] * 3  # the rolled-back entries can go in


def test_a_fast_delete_forgets_what_was_kept_beside_the_entry(compiled: Any) -> None:
    """Cookies (controller_metadata, metadata) kept beside entries go with their entries
    when a run deletes them, and only with them."""
    world = World(compiled, fast=True)
    routes = Routes(world)
    batch = [routes.update(i) for i in range(6)]
    for u in batch[:4]:
        u.entity.table_entry.controller_metadata = 77
        u.entity.table_entry.metadata = b"cookie"
    assert codes(world.write(batch)) == {}
    kept = world.store.tables.extra
    assert len(kept) == 4
    got = world.write([routes.update(i, kind=DELETE) for i in (0, 1, 4)])
    assert codes(got) == {}
    assert world.fast_hits == 9
    assert sorted(e.matches[0].value >> 8 & 0xFF for e in kept) == [2, 3]
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = routes.table.preamble.id
    back = {e.table_entry.match[0].lpm.value[2]: e.table_entry for e in world.store.read(q)}
    assert sorted(back) == [2, 3, 5]
    assert back[2].controller_metadata == 77 and back[2].metadata == b"cookie"
    assert back[5].controller_metadata == 0
