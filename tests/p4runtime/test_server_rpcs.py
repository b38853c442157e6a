"""P4Runtime server: Capabilities, Write, Read and the server's life cycle, over real gRPC."""

from __future__ import annotations

import importlib.metadata
import logging
from typing import Any

import grpc
import pytest

from p4rt_proto import p4runtime_pb2
from softswitch.p4runtime.server import P4RuntimeServer, api_version
from softswitch.p4runtime.status import SPACE

from ._server_support import (
    DEVICE_ID,
    FakeRuntime,
    FakeStore,
    Program,
    Programs,
    SnapshotStore,
    StreamClient,
    details,
    digest_update,
    rpc_error,
    table_update,
    write_request,
)

Code = grpc.StatusCode
_W = p4runtime_pb2.WriteRequest
_U = p4runtime_pb2.Update


def read_all(stub: Any, *entities: Any, device_id: int = DEVICE_ID) -> list[Any]:
    req = p4runtime_pb2.ReadRequest(device_id=device_id, entities=list(entities))
    return [e for r in stub.Read(req) for e in r.entities]


def all_tables() -> Any:
    return p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry())


# ---------------------------------------------------------------- Capabilities
def test_capabilities_reports_the_protobufs_version(stub: Any) -> None:
    got = stub.Capabilities(p4runtime_pb2.CapabilitiesRequest())
    assert got.p4runtime_api_version == importlib.metadata.version("p4runtime") == "1.6.0"
    assert api_version() == "1.6.0"
    got = stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(device_id=DEVICE_ID))
    assert got.p4runtime_api_version == "1.6.0"


def test_capabilities_of_an_unknown_device_is_not_found(stub: Any) -> None:
    err = rpc_error(stub.Capabilities, p4runtime_pb2.CapabilitiesRequest(device_id=99))
    assert err.code() == Code.NOT_FOUND


# ---------------------------------------------------------------- Write
def test_write_then_read(stub: Any, committed: Program) -> None:
    stub.Write(write_request(updates=[table_update(committed, 5), table_update(committed, 6)]))
    got = read_all(stub, all_tables())
    assert sorted(e.table_entry.match[0].exact.value[-1] for e in got) == [5, 6]
    stub.Write(write_request(updates=[table_update(committed, 5, _U.DELETE)]))
    assert len(read_all(stub, all_tables())) == 1


def test_write_to_an_unknown_device_is_not_found(stub: Any, committed: Program) -> None:
    err = rpc_error(stub.Write, write_request(device_id=7, updates=[table_update(committed, 1)]))
    assert err.code() == Code.NOT_FOUND
    assert "device" in err.details()


def test_write_with_a_role_is_not_found(stub: Any, committed: Program) -> None:
    err = rpc_error(stub.Write, write_request(role="acl", updates=[table_update(committed, 1)]))
    assert err.code() == Code.NOT_FOUND
    assert "role" in err.details()


def test_write_before_a_pipeline_is_failed_precondition(stub: Any, primary: StreamClient) -> None:
    err = rpc_error(stub.Write, write_request(updates=[]))
    assert err.code() == Code.FAILED_PRECONDITION
    assert err.trailing_metadata() is None or not any(
        k == "grpc-status-details-bin" for k, _ in err.trailing_metadata()
    )


def test_write_with_another_election_id_is_permission_denied(stub: Any, committed: Program) -> None:
    for eid in (2, 0, None):
        err = rpc_error(stub.Write, write_request(eid=eid, updates=[table_update(committed, 1)]))
        assert err.code() == Code.PERMISSION_DENIED, eid
    assert read_all(stub, all_tables()) == []


@pytest.mark.parametrize("policy", ["spec"])
def test_write_without_any_stream_is_permission_denied_by_the_spec(stub: Any) -> None:
    # (BMv2 accepts it: see test_serves_the_program_the_switch_already_runs)
    err = rpc_error(stub.Write, write_request(eid=None, updates=[]))
    assert err.code() == Code.PERMISSION_DENIED


def test_write_errors_one_p4_error_per_update_in_order(stub: Any, committed: Program) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    updates = [
        table_update(committed, 2),  # ok
        table_update(committed, 1),  # ALREADY_EXISTS
        table_update(committed, 3, table="12345"),  # NOT_FOUND (no such table)
        p4runtime_pb2.Update(type=_U.INSERT),  # INVALID_ARGUMENT (no entity)
        table_update(committed, 9, kind=_U.UNSPECIFIED),  # INVALID_ARGUMENT (no type)
        table_update(committed, 4),  # ok
    ]
    err = rpc_error(stub.Write, write_request(updates=updates))
    assert err.code() == Code.UNKNOWN
    assert "4 of 6 updates failed" in err.details()
    errors = details(err)
    assert [e.canonical_code for e in errors] == [0, 6, 5, 3, 3, 0]
    for e in errors:
        if e.canonical_code == 0:
            assert e == p4runtime_pb2.Error(), "an OK element sets nothing but the code"
        else:
            assert e.message and e.space == SPACE and e.code == 0
    # CONTINUE_ON_ERROR: the good updates were applied
    assert len(read_all(stub, all_tables())) == 3


def test_write_of_nothing_is_ok(stub: Any, committed: Program) -> None:
    stub.Write(write_request(updates=[]))


@pytest.mark.parametrize("atomicity", [_W.ROLLBACK_ON_ERROR, _W.DATAPLANE_ATOMIC])
def test_atomic_writes_are_unimplemented_without_snapshots(
    stub: Any, committed: Program, atomicity: int
) -> None:
    req = write_request(updates=[table_update(committed, 1)], atomicity=atomicity)
    err = rpc_error(stub.Write, req)
    assert err.code() == Code.UNIMPLEMENTED
    assert read_all(stub, all_tables()) == []


def test_unknown_atomicity_is_invalid_argument(stub: Any, committed: Program) -> None:
    err = rpc_error(stub.Write, write_request(updates=[], atomicity=7))
    assert err.code() == Code.INVALID_ARGUMENT


@pytest.mark.parametrize("store_factory", [SnapshotStore])
@pytest.mark.parametrize("atomicity", [_W.ROLLBACK_ON_ERROR, _W.DATAPLANE_ATOMIC])
def test_atomic_writes_roll_back_with_a_snapshotting_store(
    stub: Any, committed: Program, atomicity: int
) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    updates = [table_update(committed, 2), table_update(committed, 1), table_update(committed, 3)]
    err = rpc_error(stub.Write, write_request(updates=updates, atomicity=atomicity))
    assert err.code() == Code.UNKNOWN
    assert [e.canonical_code for e in details(err)] == [10, 6, 10]  # ABORTED, error, ABORTED
    assert len(read_all(stub, all_tables())) == 1  # the batch left nothing behind
    stub.Write(write_request(updates=updates[:1] + updates[2:], atomicity=atomicity))
    assert len(read_all(stub, all_tables())) == 3


class _BuggyStore(FakeStore):
    def write(self, update: Any) -> None:
        raise ZeroDivisionError("bug")

    def read(self, entity: Any) -> Any:
        raise KeyError("bug")


@pytest.mark.parametrize("store_factory", [_BuggyStore])
def test_a_store_bug_is_internal_per_update(stub: Any, committed: Program) -> None:
    err = rpc_error(stub.Write, write_request(updates=[table_update(committed, 1)]))
    assert err.code() == Code.UNKNOWN
    assert [e.canonical_code for e in details(err)] == [13]  # INTERNAL
    err = rpc_error(read_all, stub, all_tables())
    assert err.code() == Code.UNKNOWN
    assert [e.canonical_code for e in details(err)] == [13]
    assert stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version


# ---------------------------------------------------------------- Read
def test_read_needs_no_stream(stub: Any, committed: Program, primary: StreamClient) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    primary.cancel()
    assert len(read_all(stub, all_tables())) == 1


def test_read_reports_each_failed_request_after_the_good_ones(
    stub: Any, committed: Program
) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1), table_update(committed, 2)]))
    bad_table = p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=777))
    unsupported = p4runtime_pb2.Entity(counter_entry=p4runtime_pb2.CounterEntry())
    req = p4runtime_pb2.ReadRequest(
        device_id=DEVICE_ID,
        entities=[all_tables(), p4runtime_pb2.Entity(), bad_table, unsupported, all_tables()],
    )
    got: list[Any] = []
    with pytest.raises(grpc.RpcError) as info:
        for r in stub.Read(req):
            got.extend(r.entities)
    err = info.value
    assert err.code() == Code.UNKNOWN
    assert [e.canonical_code for e in details(err)] == [0, 3, 5, 12, 0]
    assert len(got) == 4  # the entities of requests 0 and 4


def test_read_before_a_pipeline_is_failed_precondition(stub: Any) -> None:
    err = rpc_error(read_all, stub, all_tables())
    assert err.code() == Code.FAILED_PRECONDITION


def test_read_of_an_unknown_device_is_not_found(stub: Any, committed: Program) -> None:
    err = rpc_error(lambda: read_all(stub, all_tables(), device_id=3))
    assert err.code() == Code.NOT_FOUND


def test_read_of_nothing_gives_one_empty_response(stub: Any, committed: Program) -> None:
    responses = list(stub.Read(p4runtime_pb2.ReadRequest(device_id=DEVICE_ID)))
    assert len(responses) == 1 and not responses[0].entities


def test_read_of_digest_entries(stub: Any, committed: Program) -> None:
    stub.Write(write_request(updates=[digest_update(committed, max_list_size=4)]))
    got = read_all(stub, p4runtime_pb2.Entity(digest_entry=p4runtime_pb2.DigestEntry()))
    assert [e.digest_entry.config.max_list_size for e in got] == [4]


# ---------------------------------------------------------------- life cycle
def test_start_logs_the_address_and_stop_is_idempotent(
    runtime: FakeRuntime, caplog: pytest.LogCaptureFixture
) -> None:
    srv = P4RuntimeServer(runtime, device_id=3, address="127.0.0.1:0", store_factory=FakeStore)
    with caplog.at_level(logging.INFO, logger="softswitch.p4runtime"):
        port = srv.start()
    try:
        assert port > 0 and srv.port == port
        assert f"127.0.0.1:{port}" in caplog.text
        with pytest.raises(RuntimeError):
            srv.start()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            from p4.v1 import p4runtime_pb2_grpc

            stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
            assert stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(device_id=3))
    finally:
        srv.stop()
    srv.stop()
    assert srv.wait(0.1) is False


def test_a_busy_port_is_an_os_error(server: P4RuntimeServer, runtime: FakeRuntime) -> None:
    other = P4RuntimeServer(runtime, address=f"127.0.0.1:{server.port}", store_factory=FakeStore)
    with pytest.raises(OSError):
        other.start()
    other.stop()


def test_context_manager_starts_and_stops(runtime: FakeRuntime) -> None:
    with P4RuntimeServer(runtime, address="127.0.0.1:0", store_factory=FakeStore) as srv:
        assert srv.port
    assert srv.wait(0) is False


def test_serves_the_program_the_switch_already_runs(programs: Programs) -> None:
    from softswitch.device_config import load_device_config

    rt = FakeRuntime()
    rt.load(load_device_config(programs.main.device_config))
    with (
        P4RuntimeServer(
            rt, device_id=DEVICE_ID, address="127.0.0.1:0", store_factory=FakeStore
        ) as srv,
        grpc.insecure_channel(f"127.0.0.1:{srv.port}") as ch,
    ):
        from p4.v1 import p4runtime_pb2_grpc

        stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=DEVICE_ID)
        got = stub.GetForwardingPipelineConfig(req).config
        assert got.p4info == programs.main.p4info
        assert not got.HasField("cookie") and not got.p4_device_config
        # no stream open: as BMv2, a write without election id is accepted
        stub.Write(write_request(eid=None, updates=[table_update(programs.main, 1)]))
