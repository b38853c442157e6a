"""P4Runtime server: client arbitration on the StreamChannel ("Client Arbitration and
Controller Replication")."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2

from p4rt_proto import p4runtime_pb2
from softswitch.p4runtime.arbitration import Arbiter

from ._server_support import (
    DEVICE_ID,
    Program,
    StreamClient,
    table_update,
    write_request,
)

Code = grpc.StatusCode
OK, ALREADY_EXISTS, NOT_FOUND = code_pb2.OK, code_pb2.ALREADY_EXISTS, code_pb2.NOT_FOUND


def join(streams: Any, eid: int | None) -> StreamClient:
    c = streams()
    c.arbitrate(eid)
    return c


def write(stub: Any, program: Program, eid: int | None, dst: int) -> Code | None:
    try:
        stub.Write(write_request(eid=eid, updates=[table_update(program, dst)]))
    except grpc.RpcError as e:
        return e.code()
    return None


def test_first_client_is_primary(streams: Any) -> None:
    a = join(streams, 10)
    assert a.arbitration() == (OK, 10)


def test_backup_is_told_the_primary_election_id(streams: Any) -> None:
    a = join(streams, 10)
    assert a.arbitration() == (OK, 10)
    b = join(streams, 5)
    assert b.arbitration() == (ALREADY_EXISTS, 10)
    a.expect_nothing("arbitration")  # the primary did not change


def test_backup_write_is_permission_denied(
    stub: Any, committed: Program, streams: Any, primary: StreamClient
) -> None:
    b = join(streams, 0)
    assert b.arbitration() == (ALREADY_EXISTS, 1)
    assert write(stub, committed, 0, 1) == Code.PERMISSION_DENIED
    assert write(stub, committed, 1, 1) is None


def test_a_higher_election_id_takes_over_and_everyone_is_told(
    stub: Any, committed: Program, streams: Any, primary: StreamClient
) -> None:
    b = join(streams, 7)
    assert b.arbitration() == (OK, 7)
    assert primary.arbitration() == (ALREADY_EXISTS, 7)
    assert write(stub, committed, 1, 1) == Code.PERMISSION_DENIED
    assert write(stub, committed, 7, 1) is None


def test_stream_loss_of_the_primary_promotes_the_next_highest(
    stub: Any, committed: Program, streams: Any, primary: StreamClient
) -> None:
    b = join(streams, 20)
    assert b.arbitration() == (OK, 20)
    c = join(streams, 15)
    assert primary.arbitration() == (ALREADY_EXISTS, 20)
    assert c.arbitration() == (ALREADY_EXISTS, 20)
    b.cancel()  # the primary's controller dies
    assert c.arbitration() == (OK, 15)
    assert primary.arbitration() == (ALREADY_EXISTS, 15)
    assert write(stub, committed, 20, 1) == Code.PERMISSION_DENIED
    assert write(stub, committed, 15, 1) is None


@pytest.mark.parametrize("policy", ["spec"])
def test_stream_loss_of_the_primary_leaves_no_primary_by_the_spec(
    stub: Any, committed: Program, streams: Any, primary: StreamClient
) -> None:
    b = join(streams, 20)
    assert b.arbitration() == (OK, 20)
    c = join(streams, 15)
    assert c.arbitration() == (ALREADY_EXISTS, 20)
    b.cancel()
    assert c.arbitration() == (NOT_FOUND, 20)
    assert primary.arbitration()[0] == ALREADY_EXISTS  # (the notice of b's arrival)
    assert primary.arbitration() == (NOT_FOUND, 20)
    assert write(stub, committed, 15, 1) == Code.PERMISSION_DENIED
    c.arbitrate(19)  # still below the highest ever seen
    assert c.arbitration() == (NOT_FOUND, 20)
    c.arbitrate(21)
    assert c.arbitration() == (OK, 21)
    assert primary.arbitration() == (ALREADY_EXISTS, 21)
    assert write(stub, committed, 21, 1) is None


def test_a_primary_that_downgrades_itself_hands_over(streams: Any) -> None:
    a = join(streams, 10)
    assert a.arbitration() == (OK, 10)
    b = join(streams, 8)
    assert b.arbitration() == (ALREADY_EXISTS, 10)
    a.arbitrate(3)
    assert b.arbitration() == (OK, 8)
    assert a.arbitration() == (ALREADY_EXISTS, 8)


def test_a_primary_that_rearbitrates_is_confirmed_to_everyone(streams: Any) -> None:
    a = join(streams, 10)
    assert a.arbitration() == (OK, 10)
    b = join(streams, 8)
    assert b.arbitration() == (ALREADY_EXISTS, 10)
    a.arbitrate(10)
    assert b.arbitration() == (ALREADY_EXISTS, 10)
    assert a.arbitration() == (OK, 10)


def test_backup_leaving_changes_nothing(streams: Any, primary: StreamClient) -> None:
    b = join(streams, 0)
    assert b.arbitration() == (ALREADY_EXISTS, 1)
    b.close()
    assert b.ended() is None  # half-closing ends the stream with OK
    primary.expect_nothing("arbitration")


def test_an_unset_election_id_never_becomes_primary(streams: Any) -> None:
    a = join(streams, None)
    assert a.arbitration() == (NOT_FOUND, None)
    b = join(streams, 0)
    assert b.arbitration() == (OK, 0)
    assert a.arbitration() == (ALREADY_EXISTS, 0)


def test_a_used_election_id_ends_the_stream_with_invalid_argument(
    streams: Any, primary: StreamClient
) -> None:
    b = join(streams, 1)
    assert b.ended() == Code.INVALID_ARGUMENT
    c = join(streams, 2)
    assert c.arbitration() == (OK, 2)
    c.arbitrate(1)  # an update may not take another live controller's id either
    assert c.ended() == Code.INVALID_ARGUMENT


def test_a_wrong_device_id_is_not_found(streams: Any) -> None:
    c = streams()
    c.arbitrate(1, device_id=DEVICE_ID + 1)
    assert c.ended() == Code.NOT_FOUND


def test_changing_the_device_id_is_failed_precondition(primary: StreamClient) -> None:
    primary.arbitrate(1, device_id=DEVICE_ID + 1)
    assert primary.ended() == Code.FAILED_PRECONDITION


def test_a_named_role_is_unimplemented(streams: Any) -> None:
    c = streams()
    c.arbitrate(1, role=p4runtime_pb2.Role(name="acl"))
    assert c.ended() == Code.UNIMPLEMENTED


def test_changing_the_role_is_failed_precondition(primary: StreamClient) -> None:
    primary.arbitrate(1, role=p4runtime_pb2.Role(name="acl"))
    assert primary.ended() == Code.FAILED_PRECONDITION


def test_a_role_config_is_invalid_argument(streams: Any) -> None:
    role = p4runtime_pb2.Role()
    role.config.Pack(any_pb2.Any())
    c = streams()
    c.arbitrate(1, role=role)
    assert c.ended() == Code.INVALID_ARGUMENT


def test_the_default_role_given_explicitly_is_fine(streams: Any) -> None:
    c = streams()
    c.arbitrate(4, role=p4runtime_pb2.Role())
    assert c.arbitration() == (OK, 4)


def test_too_many_controllers_is_resource_exhausted(server: Any, streams: Any) -> None:
    server.arbiter.max_clients = 2
    a = join(streams, 1)
    assert a.arbitration() == (OK, 1)
    b = join(streams, 2)
    assert b.arbitration() == (OK, 2)
    c = join(streams, 3)
    assert c.ended() == Code.RESOURCE_EXHAUSTED
    assert a.arbitration() == (ALREADY_EXISTS, 2)


def test_large_election_ids_use_both_halves(streams: Any) -> None:
    big = (5 << 64) | 7
    a = join(streams, big)
    assert a.arbitration() == (OK, big)
    b = join(streams, big - 1)
    assert b.arbitration() == (ALREADY_EXISTS, big)


def test_writes_without_streams_bmv2_accepts_spec_refuses() -> None:
    bmv2, spec = Arbiter(1, "bmv2"), Arbiter(1, "spec")
    assert bmv2.may_write(None) and not bmv2.may_write(3)
    assert not spec.may_write(None)
    with pytest.raises(ValueError):
        Arbiter(1, "other")  # type: ignore[arg-type]


def test_messages_before_arbitration_get_a_stream_error(streams: Any, committed: Program) -> None:
    c = streams()
    c.packet_out(b"x")
    err = c.recv("error").error
    assert err.canonical_code == Code.PERMISSION_DENIED.value[0]
    assert err.HasField("packet_out")
