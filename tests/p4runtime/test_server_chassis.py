"""One P4Runtime server serving several devices (a chassis): the request's device_id picks
the switch, each device has tables and a primary of its own, an unknown device_id is
NOT_FOUND in every RPC and in a stream's first arbitration update."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from p4rt_proto import p4runtime_pb2
from softswitch.clock import SimClock
from softswitch.p4runtime.server import P4RuntimeServer

from ._server_support import (
    CPU_PORT,
    Programs,
    StreamClient,
    rpc_error,
    set_request,
    table_update,
    write_request,
)

runtime_mod = pytest.importorskip("softswitch.runtime")
pytest.importorskip("softswitch.p4runtime.entities")

IDS = (7, 9)
UNKNOWN = 8
ETH = bytes.fromhex("0000000000aa0000000000bb0800") + b"payload"


@pytest.fixture
def chassis() -> Iterator[tuple[dict[int, Any], Any, P4RuntimeServer]]:
    rts = {
        d: runtime_mod.SwitchRuntime(device_id=d, cpu_port=CPU_PORT, clock=SimClock()) for d in IDS
    }
    srv = P4RuntimeServer(rts[IDS[0]], device_id=IDS[0], address="127.0.0.1:0")
    srv.add_device(rts[IDS[1]], IDS[1])
    srv.start()
    ch = grpc.insecure_channel(f"127.0.0.1:{srv.port}")
    from p4.v1 import p4runtime_pb2_grpc

    stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
    try:
        yield rts, stub, srv
    finally:
        ch.close()
        srv.stop()


def _read_fwd(stub: Any, programs: Programs, device_id: int) -> list[Any]:
    req = p4runtime_pb2.ReadRequest(device_id=device_id)
    req.entities.add().table_entry.table_id = programs.main.table_id("fwd")
    return [e.table_entry for r in stub.Read(req) for e in r.entities]


def test_two_devices_hold_independent_tables(chassis: Any, programs: Programs) -> None:
    rts, stub, _ = chassis
    for d in IDS:
        stub.SetForwardingPipelineConfig(set_request(programs.main, eid=None, device_id=d))
    a, b = IDS
    stub.Write(
        write_request(None, device_id=a, updates=[table_update(programs.main, 0xAA, port=2)])
    )
    stub.Write(
        write_request(None, device_id=b, updates=[table_update(programs.main, 0xAA, port=3)])
    )
    stub.Write(
        write_request(None, device_id=b, updates=[table_update(programs.main, 0xBB, port=4)])
    )
    assert len(_read_fwd(stub, programs, a)) == 1
    assert len(_read_fwd(stub, programs, b)) == 2
    # the same frame leaves each switch by the port its own entry names
    for d, port in ((a, 2), (b, 3)):
        rt = rts[d]
        rt.inject(1, ETH)
        assert [(o.port, o.data) for o in rt.step(rt.clock.now_us())] == [(port, ETH)]
    assert rts[a].switch is not rts[b].switch


def test_same_config_compiles_once(chassis: Any, programs: Programs) -> None:
    rts, stub, srv = chassis
    loads: list[bytes] = []
    memo: dict[bytes, Any] = {}
    from softswitch.device_config import load_device_config

    def load(data: bytes) -> Any:
        loads.append(data)
        return memo.setdefault(data, load_device_config(data))

    for dev in srv.devices.values():
        dev.pipelines.load_config = load
    for d in IDS:
        stub.SetForwardingPipelineConfig(set_request(programs.main, eid=None, device_id=d))
    assert len(loads) == 2 and len(memo) == 1
    a, b = (rts[d].switch for d in IDS)
    assert a.program is b.program and a.tables is not b.tables


def test_unknown_device_id_is_not_found(chassis: Any, programs: Programs) -> None:
    _, stub, _ = chassis
    calls = [
        (stub.SetForwardingPipelineConfig, set_request(programs.main, device_id=UNKNOWN)),
        (stub.Write, write_request(device_id=UNKNOWN, updates=[table_update(programs.main, 1)])),
        (stub.Read, p4runtime_pb2.ReadRequest(device_id=UNKNOWN)),
        (
            stub.GetForwardingPipelineConfig,
            p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=UNKNOWN),
        ),
    ]
    for call, req in calls:
        err = rpc_error(call, req)
        assert err.code() == grpc.StatusCode.NOT_FOUND, call
        assert f"unknown device id {UNKNOWN}" in (err.details() or "")


def test_stream_arbitration_picks_the_device(chassis: Any) -> None:
    _, stub, srv = chassis
    bad = StreamClient(stub)
    bad.arbitrate(1, device_id=UNKNOWN)
    assert bad.ended() == grpc.StatusCode.NOT_FOUND
    c = StreamClient(stub)
    try:
        c.arbitrate(1, device_id=IDS[1])
        assert c.arbitration() == (0, 1)
        assert srv.devices[IDS[1]].arbiter.primary is not None
        assert srv.devices[IDS[0]].arbiter.primary is None
    finally:
        c.cancel()


def test_packet_before_arbitration_is_refused(chassis: Any) -> None:
    _, stub, _ = chassis
    c = StreamClient(stub)
    try:
        msg = p4runtime_pb2.StreamMessageRequest()
        msg.packet.payload = b"x"
        c.send(msg)
        err = c.recv("error").error
        assert err.canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert err.packet_out.packet_out.payload == b"x"
    finally:
        c.cancel()


def test_a_device_added_twice_is_refused(chassis: Any) -> None:
    rts, _, srv = chassis
    with pytest.raises(ValueError, match="already served"):
        srv.add_device(rts[IDS[0]], IDS[0])
