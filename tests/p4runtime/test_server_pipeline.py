"""P4Runtime server: SetForwardingPipelineConfig and GetForwardingPipelineConfig."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from p4rt_proto import p4runtime_pb2
from softswitch.device_config import make_device_config

from ._server_support import (
    DEVICE_ID,
    FakeRuntime,
    Program,
    Programs,
    StreamClient,
    rpc_error,
    set_request,
    table_update,
    write_request,
)

Code = grpc.StatusCode
_A = p4runtime_pb2.SetForwardingPipelineConfigRequest
_G = p4runtime_pb2.GetForwardingPipelineConfigRequest


def get(stub: Any, response_type: int = _G.ALL, device_id: int = DEVICE_ID) -> Any:
    req = _G(device_id=device_id, response_type=response_type)
    return stub.GetForwardingPipelineConfig(req)


def table_entries(stub: Any) -> list[Any]:
    req = p4runtime_pb2.ReadRequest(device_id=DEVICE_ID)
    req.entities.add().table_entry.SetInParent()
    return [e.table_entry for r in stub.Read(req) for e in r.entities]


# ---------------------------------------------------------------- actions
def test_verify_and_commit_loads_the_program(
    stub: Any, primary: StreamClient, programs: Programs, runtime: FakeRuntime
) -> None:
    stub.SetForwardingPipelineConfig(set_request(programs.main, cookie=7))
    assert runtime.switch is not None and runtime.loads == 1
    assert runtime.switch.program.name == "pio"
    assert get(stub).config == programs.main.config(cookie=7)  # read-write symmetry


def test_verify_keeps_nothing(
    stub: Any, primary: StreamClient, programs: Programs, runtime: FakeRuntime
) -> None:
    stub.SetForwardingPipelineConfig(set_request(programs.main, _A.VERIFY))
    assert runtime.switch is None
    assert rpc_error(get, stub).code() == Code.FAILED_PRECONDITION


def test_verify_refuses_a_bad_config(stub: Any, primary: StreamClient, programs: Programs) -> None:
    bad = Program(make_device_config(programs.bad_path), programs.main.p4info)
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(bad, _A.VERIFY))
    assert err.code() == Code.INVALID_ARGUMENT
    assert f"{programs.bad_path}:" in err.details()  # the compiler's positioned message
    assert ": error: " in err.details()


def test_verify_and_save_then_commit(
    stub: Any, committed: Program, programs: Programs, runtime: FakeRuntime
) -> None:
    live = runtime.switch
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    save = set_request(programs.extended, _A.VERIFY_AND_SAVE, cookie=9)
    stub.SetForwardingPipelineConfig(save)
    assert runtime.switch is live  # forwarding state untouched
    assert get(stub, _G.COOKIE_ONLY).config.cookie.cookie == 9
    # Read and Write now refer to the saved config, which starts empty
    assert table_entries(stub) == []
    acl = table_update(programs.extended, 2, table="acl")
    stub.Write(write_request(updates=[acl]))
    stub.SetForwardingPipelineConfig(set_request(None, _A.COMMIT))
    assert runtime.switch is not live and runtime.loads == 2
    assert [e.table_id for e in table_entries(stub)] == [programs.extended.table_id("acl")]
    assert get(stub).config == programs.extended.config(cookie=9)


def test_commit_without_a_saved_config_is_not_found(stub: Any, committed: Program) -> None:
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(None, _A.COMMIT))
    assert err.code() == Code.NOT_FOUND


def test_commit_with_a_config_is_invalid_argument(
    stub: Any, committed: Program, programs: Programs
) -> None:
    stub.SetForwardingPipelineConfig(set_request(programs.main, _A.VERIFY_AND_SAVE))
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(programs.main, _A.COMMIT))
    assert err.code() == Code.INVALID_ARGUMENT


def test_reconcile_and_commit_keeps_the_entries(
    stub: Any, committed: Program, programs: Programs, runtime: FakeRuntime
) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1), table_update(committed, 2)]))
    live = runtime.switch
    stub.SetForwardingPipelineConfig(set_request(programs.extended, _A.RECONCILE_AND_COMMIT))
    assert runtime.switch is not live
    assert len(table_entries(stub)) == 2


def test_reconcile_and_commit_refuses_state_it_cannot_keep(
    stub: Any, committed: Program, programs: Programs, runtime: FakeRuntime
) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    live = runtime.switch
    req = set_request(programs.renamed, _A.RECONCILE_AND_COMMIT)
    err = rpc_error(stub.SetForwardingPipelineConfig, req)
    assert err.code() == Code.INVALID_ARGUMENT
    assert runtime.switch is live and runtime.loads == 1  # the live pipeline is untouched
    assert len(table_entries(stub)) == 1
    assert get(stub).config == programs.main.config(cookie=42)


def test_verify_and_commit_clears_the_forwarding_state(
    stub: Any, committed: Program, programs: Programs
) -> None:
    stub.Write(write_request(updates=[table_update(committed, 1)]))
    stub.SetForwardingPipelineConfig(set_request(programs.main))
    assert table_entries(stub) == []


# ---------------------------------------------------------------- refusals
def test_set_from_a_backup_is_permission_denied(
    stub: Any, primary: StreamClient, streams: Any, programs: Programs
) -> None:
    backup = streams()
    backup.arbitrate(0)
    assert backup.arbitration() == (6, 1)  # ALREADY_EXISTS
    for eid in (0, None, 2):
        err = rpc_error(stub.SetForwardingPipelineConfig, set_request(programs.main, eid=eid))
        assert err.code() == Code.PERMISSION_DENIED


def test_set_for_an_unknown_device_is_not_found(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(programs.main, device_id=2))
    assert err.code() == Code.NOT_FOUND


@pytest.mark.parametrize("action", [_A.VERIFY, _A.VERIFY_AND_SAVE, _A.VERIFY_AND_COMMIT])
def test_set_without_a_config_is_invalid_argument(
    stub: Any, primary: StreamClient, action: int
) -> None:
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(None, action))
    assert err.code() == Code.INVALID_ARGUMENT


def test_set_without_an_action_is_invalid_argument(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    err = rpc_error(stub.SetForwardingPipelineConfig, set_request(programs.main, _A.UNSPECIFIED))
    assert err.code() == Code.INVALID_ARGUMENT


def test_set_with_an_empty_device_config_is_invalid_argument(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    req = set_request(Program(b"", programs.main.p4info))
    err = rpc_error(stub.SetForwardingPipelineConfig, req)
    assert err.code() == Code.INVALID_ARGUMENT
    assert "softswitch compile" in err.details()


def test_set_with_a_foreign_device_config_is_invalid_argument(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    req = set_request(Program(b'{"pipelines": []}', programs.main.p4info))
    err = rpc_error(stub.SetForwardingPipelineConfig, req)
    assert err.code() == Code.INVALID_ARGUMENT
    assert "device config" in err.details()


def test_set_with_the_p4info_of_another_program_is_invalid_argument(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    req = set_request(Program(programs.main.device_config, programs.renamed.p4info))
    err = rpc_error(stub.SetForwardingPipelineConfig, req)
    assert err.code() == Code.INVALID_ARGUMENT
    assert "P4Info does not match" in err.details()


def test_write_after_a_failed_set_still_needs_a_pipeline(
    stub: Any, primary: StreamClient, programs: Programs
) -> None:
    rpc_error(stub.SetForwardingPipelineConfig, set_request(None))
    err = rpc_error(stub.Write, write_request(updates=[table_update(programs.main, 1)]))
    assert err.code() == Code.FAILED_PRECONDITION


# ---------------------------------------------------------------- Get
def test_get_each_response_type(stub: Any, committed: Program) -> None:
    full = committed.config(cookie=42)
    assert get(stub, _G.ALL).config == full
    cookie = get(stub, _G.COOKIE_ONLY).config
    assert cookie == p4runtime_pb2.ForwardingPipelineConfig(cookie=full.cookie)
    p4info = get(stub, _G.P4INFO_AND_COOKIE).config
    assert p4info == p4runtime_pb2.ForwardingPipelineConfig(p4info=full.p4info, cookie=full.cookie)
    dev = get(stub, _G.DEVICE_CONFIG_AND_COOKIE).config
    assert dev == p4runtime_pb2.ForwardingPipelineConfig(
        p4_device_config=full.p4_device_config, cookie=full.cookie
    )


def test_get_without_a_cookie(stub: Any, primary: StreamClient, programs: Programs) -> None:
    stub.SetForwardingPipelineConfig(set_request(programs.main))
    got = get(stub, _G.COOKIE_ONLY)
    assert got.HasField("config") and not got.config.HasField("cookie")


def test_get_of_an_unknown_response_type_is_invalid_argument(stub: Any, committed: Program) -> None:
    assert rpc_error(get, stub, 9).code() == Code.INVALID_ARGUMENT


def test_get_of_an_unknown_device_is_not_found(stub: Any, committed: Program) -> None:
    assert rpc_error(get, stub, _G.ALL, 5).code() == Code.NOT_FOUND


def test_get_before_a_pipeline_is_failed_precondition_as_bmv2(stub: Any) -> None:
    err = rpc_error(get, stub)
    assert err.code() == Code.FAILED_PRECONDITION


@pytest.mark.parametrize("policy", ["spec"])
def test_get_before_a_pipeline_is_an_unset_config_by_the_spec(stub: Any) -> None:
    got = get(stub)
    assert not got.HasField("config")
