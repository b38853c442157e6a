"""P4Runtime server over the real SwitchRuntime and EntityStore (skipped until they exist):
a table entry forwards a packet, packet-out / packet-in, a digest and idle-timeout
notifications go end to end (on a simulated clock)."""

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
    DEVICE_ID,
    Programs,
    StreamClient,
    digest_update,
    set_request,
    table_update,
    write_request,
)

runtime_mod = pytest.importorskip("softswitch.runtime")
pytest.importorskip("softswitch.p4runtime.entities")

ETH = bytes.fromhex("0000000000aa0000000000bb0800") + b"payload"


@pytest.fixture
def real() -> Iterator[tuple[Any, Any]]:
    rt = runtime_mod.SwitchRuntime(device_id=DEVICE_ID, cpu_port=CPU_PORT, clock=SimClock())
    srv = P4RuntimeServer(rt, device_id=DEVICE_ID, address="127.0.0.1:0", idle_scan_s=0.02)
    srv.start()
    ch = grpc.insecure_channel(f"127.0.0.1:{srv.port}")
    from p4.v1 import p4runtime_pb2_grpc

    stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
    c = StreamClient(stub)
    try:
        c.arbitrate(1)
        assert c.arbitration() == (0, 1)
        yield rt, stub, c
    finally:
        c.cancel()
        ch.close()
        srv.stop()


def test_table_entry_forwards_a_packet(real: Any, programs: Programs) -> None:
    rt, stub, _ = real
    stub.SetForwardingPipelineConfig(set_request(programs.main))
    stub.Write(write_request(updates=[table_update(programs.main, 0xAA, port=2)]))
    rt.inject(1, ETH)
    assert [(o.port, o.data) for o in rt.step(rt.clock.now_us())] == [(2, ETH)]
    req = p4runtime_pb2.ReadRequest(device_id=DEVICE_ID)
    req.entities.add().table_entry.table_id = programs.main.table_id("fwd")
    got = [e for r in stub.Read(req) for e in r.entities]
    assert len(got) == 1 and got[0].table_entry.match[0].exact.value == b"\xaa"


def test_packet_out_in_and_digest(real: Any, programs: Programs) -> None:
    rt, stub, c = real
    p = programs.main
    stub.SetForwardingPipelineConfig(set_request(p))
    port = CPU_PORT.to_bytes(2, "big")
    c.packet_out(
        ETH,
        a=(p.metadata_id("packet_out", "egress_port"), port),
        b=(p.metadata_id("packet_out", "tag"), b"\x07"),
    )
    pkt = c.recv("packet").packet
    assert pkt.payload == ETH
    assert [m.value for m in pkt.metadata] == [b"\x40", b"\x07", b"\x00"]
    stub.Write(write_request(updates=[digest_update(p, max_list_size=1)]))
    rt.inject(3, ETH)
    dl = c.recv("digest").digest
    assert dl.digest_id == p.digest_id
    assert dl.data[0].struct.members[1].bitstring == b"\x03"


def test_idle_timeout_notifications(real: Any, programs: Programs) -> None:
    rt, stub, c = real
    p = programs.main
    stub.SetForwardingPipelineConfig(set_request(p))
    idle = table_update(p, 0xAA, port=2)
    idle.entity.table_entry.idle_timeout_ns = 2_000_000  # 2 ms of switch time
    idle.entity.table_entry.controller_metadata = 77
    busy = table_update(p, 0xCC, port=2)
    busy.entity.table_entry.idle_timeout_ns = 2_000_000
    stub.Write(write_request(updates=[idle, busy, table_update(p, 0xDD)]))
    c.expect_nothing("idle_timeout_notification", timeout=0.2)  # no time has passed
    busy_frame = bytes.fromhex("0000000000cc") + ETH[6:]
    for step in range(1, 4):
        rt.step(rt.clock.now_us() + 1500)  # 1.5 ms: the idle entry times out every other step
        rt.inject(1, busy_frame)  # keeps the other entry alive
        rt.step(rt.clock.now_us())
        if step % 2 == 0:
            note = c.recv("idle_timeout_notification").idle_timeout_notification
            assert note.timestamp > 0
            assert [te.match[0].exact.value for te in note.table_entry] == [b"\xaa"]
            te = note.table_entry[0]
            assert (te.idle_timeout_ns, te.controller_metadata) == (2_000_000, 77)
            assert not te.HasField("time_since_last_hit")
        else:
            c.expect_nothing("idle_timeout_notification", timeout=0.2)
