"""P4Runtime server robustness: random and malformed requests never crash it, and every
answer carries a status code the specification uses (with one p4.v1.Error per update when
the status is UNKNOWN)."""

from __future__ import annotations

from typing import Any

import grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p4rt_proto import p4runtime_pb2

from ._server_support import (
    DEVICE_ID,
    Program,
    StreamClient,
)

Code = grpc.StatusCode
SPEC_CODES = {
    Code.UNKNOWN,
    Code.INVALID_ARGUMENT,
    Code.NOT_FOUND,
    Code.ALREADY_EXISTS,
    Code.PERMISSION_DENIED,
    Code.FAILED_PRECONDITION,
    Code.RESOURCE_EXHAUSTED,
    Code.OUT_OF_RANGE,
    Code.UNIMPLEMENTED,
}
CANONICAL = {c.value[0] for c in Code}
FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ENTITY_KINDS = [f.name for f in p4runtime_pb2.Entity.DESCRIPTOR.fields] + [None]
small_ints = st.one_of(st.integers(0, 8), st.integers(0, 2**32 - 1))
blobs = st.binary(max_size=12)


@st.composite
def updates(draw: Any, table_ids: list[int]) -> Any:
    u = p4runtime_pb2.Update(type=draw(st.integers(0, 5)))
    kind = draw(st.sampled_from(ENTITY_KINDS))
    if kind is None:
        return u
    ent = getattr(u.entity, kind)
    ent.SetInParent()
    if kind == "table_entry":
        ent.table_id = draw(st.sampled_from(table_ids) | small_ints)
        for _ in range(draw(st.integers(0, 2))):
            m = ent.match.add(field_id=draw(small_ints))
            which = draw(st.sampled_from(["exact", "lpm", "ternary", "range", "optional", None]))
            if which == "exact":
                m.exact.value = draw(blobs)
            elif which == "lpm":
                m.lpm.value, m.lpm.prefix_len = draw(blobs), draw(st.integers(-5, 70))
            elif which == "ternary":
                m.ternary.value, m.ternary.mask = draw(blobs), draw(blobs)
            elif which == "range":
                m.range.low, m.range.high = draw(blobs), draw(blobs)
            elif which == "optional":
                m.optional.value = draw(blobs)
        if draw(st.booleans()):
            a = ent.action.action
            a.action_id = draw(small_ints)
            for _ in range(draw(st.integers(0, 2))):
                a.params.add(param_id=draw(small_ints), value=draw(blobs))
        ent.priority = draw(st.integers(-3, 3))
        ent.is_default_action = draw(st.booleans())
    elif kind == "digest_entry":
        ent.digest_id = draw(small_ints)
        if draw(st.booleans()):
            ent.config.max_list_size = draw(st.integers(-3, 5))
            ent.config.max_timeout_ns = draw(st.integers(-(2**40), 2**40))
            ent.config.ack_timeout_ns = draw(st.integers(-(2**40), 2**40))
    else:  # any other entity: random bytes that happen to parse
        raw = draw(st.binary(max_size=24))
        try:
            ent.MergeFromString(raw)
        except Exception:  # noqa: BLE001 - not a valid encoding: leave it empty
            pass
    return u


@st.composite
def write_requests(draw: Any, table_ids: list[int]) -> Any:
    req = p4runtime_pb2.WriteRequest(
        device_id=draw(st.sampled_from([DEVICE_ID] * 14 + [0, 2])),
        atomicity=draw(st.sampled_from([0] * 6 + [1, 2, 3])),
    )
    if draw(st.integers(0, 9)):
        req.election_id.low = draw(st.sampled_from([1] * 8 + [0, 2]))
    if not draw(st.integers(0, 39)):
        req.role = "r"
    req.updates.extend(draw(st.lists(updates(table_ids), max_size=6)))
    return req


def check_write(stub: Any, req: Any) -> None:
    try:
        stub.Write(req, timeout=30)
    except grpc.RpcError as e:
        assert e.code() in SPEC_CODES, (e.code(), e.details())
        md = dict(e.trailing_metadata() or ())
        if e.code() == Code.UNKNOWN:
            from softswitch.p4runtime.status import error_details

            got = error_details(e)
            assert got is not None
            status, errors = got
            assert status.code == 2 and len(errors) == len(req.updates)
            for err in errors:
                assert err.canonical_code in CANONICAL
                assert (err.canonical_code == 0) == (err.message == "")
            assert any(err.canonical_code for err in errors)
        else:
            assert "grpc-status-details-bin" not in md


def test_random_write_requests(stub: Any, committed: Program) -> None:
    table_ids = [t.preamble.id for t in committed.p4info.tables]

    @FUZZ
    @given(req=write_requests(table_ids))
    def run(req: Any) -> None:
        check_write(stub, req)

    run()
    assert stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version


def test_undecodable_requests(channel: grpc.Channel, stub: Any, committed: Program) -> None:
    raw_write = channel.unary_unary("/p4.v1.P4Runtime/Write")
    raw_read = channel.unary_stream("/p4.v1.P4Runtime/Read")

    @FUZZ
    @given(data=st.binary(max_size=64))
    def run(data: bytes) -> None:
        for call in (raw_write, raw_read):
            try:
                result = call(data, timeout=30)
                if not isinstance(result, bytes):
                    list(result)
            except grpc.RpcError as e:
                assert e.code() in SPEC_CODES, (e.code(), e.details())

    run()
    assert stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version


@st.composite
def packet_outs(draw: Any) -> Any:
    msg = p4runtime_pb2.StreamMessageRequest()
    p = msg.packet
    p.payload = draw(st.binary(max_size=40))
    for _ in range(draw(st.integers(0, 4))):
        p.metadata.add(
            metadata_id=draw(st.sampled_from([1, 2, 3, 3, 1]) | small_ints),
            value=draw(st.binary(max_size=5)),
        )
    return msg


def test_random_packet_outs(committed: Program, primary: StreamClient, runtime: Any) -> None:
    @FUZZ
    @given(msgs=st.lists(packet_outs(), min_size=1, max_size=4))
    def run(msgs: list[Any]) -> None:
        for m in msgs:
            primary.send(m)
        primary.arbitrate(1)  # a round trip: everything before it was handled
        while True:
            r = primary.recv(timeout=30)
            kind = r.WhichOneof("update")
            if kind == "arbitration":
                assert r.arbitration.status.code == 0
                break
            if kind == "error":
                # unknown or repeated ids: INVALID_ARGUMENT; values too wide: OUT_OF_RANGE
                assert r.error.canonical_code in (
                    Code.INVALID_ARGUMENT.value[0],
                    Code.OUT_OF_RANGE.value[0],
                ), r.error
            else:
                assert kind == "packet"  # sent back to the CPU port by the program

    run()
    assert not primary.done.is_set()
    assert runtime.injected  # some were well-formed


def test_garbage_on_the_stream(channel: grpc.Channel, stub: Any, committed: Program) -> None:
    raw = channel.stream_stream("/p4.v1.P4Runtime/StreamChannel")

    @FUZZ
    @given(frames=st.lists(st.binary(max_size=32), min_size=1, max_size=3))
    def run(frames: list[bytes]) -> None:
        call = raw(iter(frames), timeout=30)
        try:
            for _ in call:
                pass
        except grpc.RpcError as e:
            assert e.code() in SPEC_CODES, (e.code(), e.details())

    run()
    c = StreamClient(stub)
    try:
        c.arbitrate(2)  # (the primary of `committed` has election id 1)
        assert c.arbitration() == (0, 2)
    finally:
        c.cancel()
