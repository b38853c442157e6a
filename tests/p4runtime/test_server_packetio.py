"""P4Runtime server: PacketOut / PacketIn through a P4 program with controller headers,
and digests ("Packet I/O", "DigestEntry")."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest

from p4rt_proto import p4data_pb2, p4runtime_pb2
from softswitch.p4runtime.bytestrings import decode_uint, encode_int, encode_uint
from softswitch.p4runtime.errors import P4RuntimeError
from softswitch.p4runtime.pipeline import ControllerHeader, HeaderField
from softswitch.p4runtime.stream import DigestEngine

from ._server_support import (
    CPU_PORT,
    FakeRuntime,
    Program,
    StreamClient,
    digest_update,
    write_request,
)

Code = grpc.StatusCode
ETH = bytes.fromhex("0000000000aa0000000000bb0800") + b"payload"


def md(program: Program, header: str, **values: bytes) -> dict[str, tuple[int, bytes]]:
    return {k: (program.metadata_id(header, k), v) for k, v in values.items()}


def eth_from(src: int) -> bytes:
    return bytes(6) + src.to_bytes(6, "big") + b"\x08\x00" + b"data"


# ---------------------------------------------------------------- packet-out / packet-in
def test_packet_out_goes_out_of_the_port_in_its_metadata(
    committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x03", tag=b"\x12\x34"))
    primary.expect_nothing("error")
    # the header went in front of the payload, on the CPU port: 9 + 7 (hidden) + 16 bits
    assert runtime.injected == [(CPU_PORT, ((3 << 23) | 0x1234).to_bytes(4, "big") + ETH)]
    assert runtime.sent == [(3, ETH)]  # the program removed the packet_out header


def test_packet_out_to_the_cpu_port_comes_back_as_packet_in(
    committed: Program, primary: StreamClient
) -> None:
    port = CPU_PORT.to_bytes(2, "big")
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=port, tag=b"\xbe\xef"))
    pkt = primary.recv("packet").packet
    assert pkt.payload == ETH
    got = {m.metadata_id: m.value for m in pkt.metadata}
    assert got == {
        committed.metadata_id("packet_in", "ingress_port"): b"\x40",  # canonical: 64
        committed.metadata_id("packet_in", "tag"): b"\xbe\xef",
        committed.metadata_id("packet_in", "_pad"): b"\x00",
    }
    assert [m.metadata_id for m in pkt.metadata] == [1, 2, 3]  # declaration order


def test_packet_in_goes_to_the_primary_only(
    committed: Program, primary: StreamClient, streams: Any
) -> None:
    backup = streams()
    backup.arbitrate(0)
    assert backup.arbitration()[0] == 6
    port = CPU_PORT.to_bytes(2, "big")
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=port, tag=b"\x01"))
    assert primary.recv("packet").packet.payload == ETH
    backup.expect_nothing("packet")


def test_packet_out_from_a_backup_is_dropped_with_a_stream_error(
    committed: Program, primary: StreamClient, streams: Any, runtime: FakeRuntime
) -> None:
    backup = streams()
    backup.arbitrate(0)
    sent = backup.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x03", tag=b"\x01"))
    err = backup.recv("error").error
    assert err.canonical_code == Code.PERMISSION_DENIED.value[0]
    assert err.packet_out.packet_out == sent
    assert runtime.injected == []


@pytest.mark.parametrize(
    ("metadata", "why", "code"),
    [
        ({"x": (9, b"\x01")}, "unknown", Code.INVALID_ARGUMENT),
        # the specification's "Bytestrings": a value wider than the field is OUT_OF_RANGE
        ({"a": (1, b"\x02\x00"), "tag": (3, b"\x01")}, "does not fit", Code.OUT_OF_RANGE),
        ({"a": (1, b"\x01"), "b": (1, b"\x02")}, "more than once", Code.INVALID_ARGUMENT),
        ({"tag": (3, b"\x00\x01\x00\x00")}, "does not fit", Code.OUT_OF_RANGE),
    ],
)
def test_bad_packet_out_metadata_is_refused(
    committed: Program,
    primary: StreamClient,
    runtime: FakeRuntime,
    metadata: Any,
    why: str,
    code: grpc.StatusCode,
) -> None:
    sent = primary.packet_out(ETH, **metadata)
    err = primary.recv("error").error
    assert err.canonical_code == code.value[0]
    assert why in err.message
    assert err.packet_out.packet_out == sent
    assert runtime.injected == []


def test_missing_packet_out_metadata_is_zero_as_bmv2(
    committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x05"))
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x06", tag=b""))
    primary.arbitrate(1)  # a round trip: the packet-outs were handled before this
    primary.arbitration()
    assert [p for p, _ in runtime.sent] == [5, 6]


@pytest.mark.parametrize("policy", ["spec"])
def test_missing_or_empty_packet_out_metadata_is_invalid_by_the_spec(
    committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x05"))
    assert "missing" in primary.recv("error").error.message
    primary.packet_out(ETH, **md(committed, "packet_out", egress_port=b"\x05", tag=b""))
    assert "empty" in primary.recv("error").error.message
    assert runtime.injected == []


def test_packet_out_before_a_pipeline_is_failed_precondition(primary: StreamClient) -> None:
    primary.packet_out(ETH)
    err = primary.recv("error").error
    assert err.canonical_code == Code.FAILED_PRECONDITION.value[0]


@pytest.mark.parametrize("runtime", [FakeRuntime(cpu_port=None)])
def test_packet_out_without_a_cpu_port_is_failed_precondition(
    committed: Program, primary: StreamClient
) -> None:
    primary.packet_out(ETH)
    err = primary.recv("error").error
    assert err.canonical_code == Code.FAILED_PRECONDITION.value[0]
    assert "CPU port" in err.message


def test_other_stream_messages_are_unimplemented(primary: StreamClient) -> None:
    msg = p4runtime_pb2.StreamMessageRequest()
    msg.other.type_url = "type.googleapis.com/x.Y"
    primary.send(msg)
    err = primary.recv("error").error
    assert err.canonical_code == Code.UNIMPLEMENTED.value[0]
    assert err.other.other.type_url == "type.googleapis.com/x.Y"


def test_a_cpu_packet_shorter_than_the_header_is_dropped(
    server: Any, committed: Program, primary: StreamClient
) -> None:
    server.streams.on_cpu_packet(b"\x01")
    primary.expect_nothing("packet")
    server.streams.on_cpu_packet(b"\x00\x80\x00\x01" + b"rest")
    pkt = primary.recv("packet").packet
    assert pkt.payload == b"rest"
    assert [m.value for m in pkt.metadata] == [b"\x01", b"\x00", b"\x01"]


# ---------------------------------------------------------------- the codec
def test_controller_header_packs_and_unpacks_msb_first() -> None:
    h = ControllerHeader(
        "packet_in", [HeaderField("a", 3, 1), HeaderField("p", 2, None), HeaderField("b", 12, 2)]
    )
    assert (h.nbytes, h.pad) == (3, 7)
    m = [
        p4runtime_pb2.PacketMetadata(metadata_id=1, value=b"\x05"),
        p4runtime_pb2.PacketMetadata(metadata_id=2, value=b"\x0a\xbc"),
    ]
    data = h.pack(m, strict=True)
    assert data == ((5 << 14 | 0xABC) << 7).to_bytes(3, "big")
    got, rest = h.unpack(data + b"xyz") or ([], b"")
    assert [(x.metadata_id, x.value) for x in got] == [(1, b"\x05"), (2, b"\x0a\xbc")]
    assert rest == b"xyz"
    assert h.unpack(b"\x00\x00") is None


def test_bytestrings() -> None:
    assert encode_uint(0) == b"\x00" and encode_uint(256) == b"\x01\x00"
    assert encode_int(-3, 8) == b"\xfd"
    assert encode_int(-128, 8) == b"\x80"
    assert encode_int(127, 8) == b"\x7f"
    assert encode_int(128, 16) == b"\x00\x80"
    assert encode_int(0xFF, 8) == b"\xff"  # the bits of -1
    assert decode_uint(b"\x00\x00\x01", 1, "x") == 1
    with pytest.raises(P4RuntimeError):
        decode_uint(b"\x02", 1, "x")
    with pytest.raises(P4RuntimeError):
        decode_uint(b"", 8, "x")
    assert decode_uint(b"", 8, "x", allow_empty=True) == 0


# ---------------------------------------------------------------- digests
def configure(stub: Any, program: Program, **config: int) -> None:
    stub.Write(write_request(updates=[digest_update(program, **config)]))


def learn(runtime: FakeRuntime, src: int, port: int = 1) -> None:
    runtime.inject(port, eth_from(src))


def test_digest_delivery_and_ack(
    stub: Any, committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    configure(stub, committed, max_list_size=1, ack_timeout_ns=10**10)
    learn(runtime, 0xAB, port=2)
    dl = primary.recv("digest").digest
    assert (dl.digest_id, dl.list_id) == (committed.digest_id, 1)
    assert abs(dl.timestamp - time.time_ns()) < 60 * 10**9
    want = p4data_pb2.P4Data()
    for b in (b"\xab", b"\x02", b"\xfd"):  # src, port, delta = -3
        want.struct.members.add().bitstring = b
    want.struct.members.add().bool = True
    assert list(dl.data) == [want]
    learn(runtime, 0xAB, port=2)  # a duplicate, not acknowledged yet: suppressed
    primary.expect_nothing("digest")
    ack = p4runtime_pb2.StreamMessageRequest()
    ack.digest_ack.digest_id = committed.digest_id
    ack.digest_ack.list_id = 1
    primary.send(ack)
    primary.arbitrate(1)  # a round trip: the ack was handled
    primary.arbitration()
    learn(runtime, 0xAB, port=2)
    assert primary.recv("digest").digest.list_id == 2


def test_no_digests_without_a_digest_entry(
    committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    learn(runtime, 1)
    primary.expect_nothing("digest")


def test_digest_lists_hold_max_list_size_distinct_messages(
    stub: Any, committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    configure(stub, committed, max_list_size=3, max_timeout_ns=60 * 10**9)
    for src in (1, 2, 2, 1, 3, 4):
        learn(runtime, src)
    dl = primary.recv("digest").digest
    assert [d.struct.members[0].bitstring for d in dl.data] == [b"\x01", b"\x02", b"\x03"]
    primary.expect_nothing("digest")


def test_digest_lists_go_out_after_max_timeout(
    stub: Any, committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    configure(stub, committed, max_list_size=100, max_timeout_ns=50_000_000)
    t0 = time.monotonic()
    learn(runtime, 1)
    learn(runtime, 2)
    dl = primary.recv("digest", timeout=5).digest
    assert len(dl.data) == 2
    assert time.monotonic() - t0 >= 0.04


def test_unacknowledged_digests_come_again_after_ack_timeout(
    stub: Any, committed: Program, primary: StreamClient, runtime: FakeRuntime
) -> None:
    configure(stub, committed, max_list_size=1, ack_timeout_ns=50_000_000)
    learn(runtime, 7)
    assert primary.recv("digest").digest.list_id == 1
    time.sleep(0.2)
    learn(runtime, 7)
    assert primary.recv("digest").digest.list_id == 2


def test_digest_ack_of_an_unknown_digest_is_invalid_argument(
    committed: Program, primary: StreamClient
) -> None:
    ack = p4runtime_pb2.StreamMessageRequest()
    ack.digest_ack.digest_id = 12345
    ack.digest_ack.list_id = 1
    primary.send(ack)
    err = primary.recv("error").error
    assert err.canonical_code == Code.INVALID_ARGUMENT.value[0]
    assert err.digest_list_ack.digest_list_ack.digest_id == 12345


def test_digests_go_to_the_primary_only(
    stub: Any, committed: Program, primary: StreamClient, streams: Any, runtime: FakeRuntime
) -> None:
    backup = streams()
    backup.arbitrate(0)
    configure(stub, committed, max_list_size=1)
    learn(runtime, 9)
    assert primary.recv("digest").digest.data
    backup.expect_nothing("digest")


def test_digest_engine_without_a_primary_forgets_the_list() -> None:
    sent: list[Any] = []
    engine = DigestEngine(lambda m: bool(sent.append(m)))  # delivery fails
    config = p4runtime_pb2.DigestEntry.Config(max_list_size=1, ack_timeout_ns=10**12)
    data = p4data_pb2.P4Data(bitstring=b"\x01")
    engine.add(5, data, config)
    engine.add(5, data, config)  # not cached: it was never delivered
    assert [m.digest.list_id for m in sent] == [1, 2]
    assert engine.tick() is None
