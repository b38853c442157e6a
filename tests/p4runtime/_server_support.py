"""Shared pieces of the P4Runtime server tests: a P4 program with packet I/O and a digest,
a fake SwitchRuntime and EntityStore, a StreamChannel client and fixtures.

The fakes follow the interfaces the server codes against (`softswitch.runtime.SwitchRuntime`
and `softswitch.p4runtime.entities.EntityStore`), so these tests do not depend on them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from p4rt_proto import p4runtime_pb2
from softswitch.device_config import load_device_config, make_device_config
from softswitch.p4info import p4info_for
from softswitch.p4runtime.errors import P4RuntimeError
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.p4runtime.status import error_details
from softswitch.v1model.switch import Switch

DEVICE_ID = 1
CPU_PORT = 64

PROGRAM = """\
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 64;

@controller_header("packet_out")
header packet_out_t {
    bit<9>  egress_port;
    @hidden bit<7> _pad;
    bit<16> tag;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9>  ingress_port;
    bit<16> tag;
    bit<7>  _pad;
}

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    eth_t        eth;
}

struct learn_t {
    bit<48> src;
    bit<9>  port;
    int<8>  delta;
    bool    flag;
}

struct meta_t {
    bit<8> unused;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_eth;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_eth;
    }
    state parse_eth {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action to_port(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table TABLE_NAME {
        key = { hdr.eth.dst: exact @name("dst"); }
        actions = { to_port; drop; }
        default_action = drop();
        size = 64;
        support_timeout = true;
    }
    EXTRA_DECL
    apply {
        if (hdr.packet_out.isValid()) {
            if (hdr.packet_out.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = sm.ingress_port;
                hdr.packet_in.tag = hdr.packet_out.tag;
            }
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            digest<learn_t>(1, {hdr.eth.src, sm.ingress_port, -3, true});
            TABLE_NAME.apply();
            EXTRA_APPLY
        }
    }
}

control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.eth);
    }
}

V1Switch(P(), VC(), Ing(), Egr(), CC(), D()) main;
"""

EXTRA_TABLE = """
    table acl {
        key = { hdr.eth.type: exact @name("type"); }
        actions = { drop; NoAction; }
        default_action = NoAction();
    }
"""


def program_text(table: str = "fwd", extra: bool = False) -> str:
    return (
        PROGRAM.replace("TABLE_NAME", table)
        .replace("EXTRA_DECL", EXTRA_TABLE if extra else "")
        .replace("EXTRA_APPLY", "acl.apply();" if extra else "")
    )


@dataclass(frozen=True)
class Program:
    device_config: bytes
    p4info: Any

    def config(self, cookie: int | None = None) -> Any:
        c = p4runtime_pb2.ForwardingPipelineConfig(p4_device_config=self.device_config)
        c.p4info.CopyFrom(self.p4info)
        if cookie is not None:
            c.cookie.cookie = cookie
        return c

    def table_id(self, name: str) -> int:
        return next(t.preamble.id for t in self.p4info.tables if t.preamble.alias == name)

    def action_id(self, name: str) -> int:
        return next(a.preamble.id for a in self.p4info.actions if a.preamble.alias == name)

    @property
    def digest_id(self) -> int:
        return self.p4info.digests[0].preamble.id

    def metadata_id(self, header: str, name: str) -> int:
        cpm = next(c for c in self.p4info.controller_packet_metadata if c.preamble.name == header)
        return next(m.id for m in cpm.metadata if m.name == name)


@dataclass(frozen=True)
class Programs:
    main: Program  # table "fwd"
    renamed: Program  # the table is called "route": entries of "fwd" cannot be kept
    extended: Program  # "fwd" and a second table "acl"
    bad_path: Path  # a program with a syntax error


def _build(path: Path, text: str) -> Program:
    path.write_text(text)
    data = make_device_config(path)
    return Program(data, p4info_for(load_device_config(data)))


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    d = tmp_path_factory.mktemp("p4rt_programs")
    bad = d / "broken.p4"
    bad.write_text(program_text().replace("action drop() {", "action drop() { oops"))
    return Programs(
        _build(d / "pio.p4", program_text()),
        _build(d / "pio_renamed.p4", program_text(table="route")),
        _build(d / "pio_extended.p4", program_text(extra=True)),
        bad,
    )


# ---------------------------------------------------------------- fakes
class FakeRuntime:
    """SwitchRuntime's interface over a Switch, synchronous: `inject` runs the packet and
    calls the listeners (under the lock, the harder case for deadlocks)."""

    def __init__(self, cpu_port: int | None = CPU_PORT) -> None:
        self.lock = threading.RLock()
        self.switch: Switch | None = None
        self.cpu_port = cpu_port
        self.cpu_listeners: list[Any] = []
        self.digest_listeners: list[Any] = []
        self.sent: list[tuple[int, bytes]] = []
        self.injected: list[tuple[int, bytes]] = []
        self.loads = 0

    def load(self, compiled: Any) -> Switch:
        with self.lock:
            self.switch = Switch(compiled, cpu_port=self.cpu_port)
            self.loads += 1
            return self.switch

    def inject(self, port: int, data: bytes) -> None:
        with self.lock:
            self.injected.append((port, data))
            sw = self.switch
            if sw is None:
                return
            out = sw.process(port, data)
            digests, sw.digests = sw.digests, []
            for p, d in out:
                if p == self.cpu_port:
                    for cb in self.cpu_listeners:
                        cb(d)
                else:
                    self.sent.append((p, d))
            for dg in digests:
                for cb in self.digest_listeners:
                    cb(dg)

    def add_cpu_listener(self, cb: Any) -> None:
        self.cpu_listeners.append(cb)

    def add_digest_listener(self, cb: Any) -> None:
        self.digest_listeners.append(cb)


_U = p4runtime_pb2.Update


class FakeStore:
    """EntityStore's interface for table entries and DigestEntry configs (others are
    UNIMPLEMENTED); the switch's tables are not touched."""

    def __init__(self, switch: Switch, p4info: Any) -> None:
        self.switch = switch
        self.tables = {t.preamble.id for t in p4info.tables}
        self.digest_ids = {d.preamble.id for d in p4info.digests}
        self.entries: dict[tuple[Any, ...], Any] = {}
        self.digests: dict[int, Any] = {}

    def write(self, update: Any) -> None:
        e = update.entity
        kind = e.WhichOneof("entity")
        if kind == "table_entry":
            te = e.table_entry
            if te.table_id not in self.tables:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown table {te.table_id}")
            key = (te.table_id, tuple(m.SerializeToString() for m in te.match), te.priority)
            self._apply(self.entries, key, update.type, te, "table entry")
        elif kind == "digest_entry":
            de = e.digest_entry
            if de.digest_id not in self.digest_ids:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown digest {de.digest_id}")
            self._apply(self.digests, de.digest_id, update.type, de.config, "digest entry")
        else:
            raise P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, f"{kind} writes")

    @staticmethod
    def _apply(where: dict[Any, Any], key: Any, kind: int, value: Any, what: str) -> None:
        if kind == _U.INSERT:
            if key in where:
                raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"{what} exists")
            where[key] = _copy(value)
        elif kind == _U.MODIFY:
            if key not in where:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"no such {what}")
            where[key] = _copy(value)
        elif kind == _U.DELETE:
            if key not in where:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"no such {what}")
            del where[key]

    def read(self, entity: Any) -> Iterator[Any]:
        kind = entity.WhichOneof("entity")
        if kind == "table_entry":
            tid = entity.table_entry.table_id
            if tid and tid not in self.tables:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown table {tid}")
            for key, te in list(self.entries.items()):
                if not tid or key[0] == tid:
                    out = p4runtime_pb2.Entity()
                    out.table_entry.CopyFrom(te)
                    yield out
        elif kind == "digest_entry":
            for did, config in list(self.digests.items()):
                out = p4runtime_pb2.Entity()
                out.digest_entry.digest_id = did
                out.digest_entry.config.CopyFrom(config)
                yield out
        else:
            raise P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, f"{kind} reads")

    def reconcile_into(self, new_store: FakeStore) -> None:
        for key in self.entries:
            if key[0] not in new_store.tables:
                raise P4RuntimeError(
                    grpc.StatusCode.INVALID_ARGUMENT, f"table {key[0]} is not in the new program"
                )
        new_store.entries = {k: _copy(v) for k, v in self.entries.items()}
        new_store.digests = {
            k: _copy(v) for k, v in self.digests.items() if k in new_store.digest_ids
        }

    def digest_config(self, digest_id: int) -> Any:
        return self.digests.get(digest_id)


class SnapshotStore(FakeStore):
    """A store that can snapshot and restore its state (ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC)."""

    def snapshot(self) -> Any:
        return (dict(self.entries), dict(self.digests))

    def restore(self, token: Any) -> None:
        self.entries, self.digests = dict(token[0]), dict(token[1])


def _copy(msg: Any) -> Any:
    out = type(msg)()
    out.CopyFrom(msg)
    return out


# ---------------------------------------------------------------- client side
class StreamClient:
    """A StreamChannel: `send` requests, `recv` responses (a thread pumps them)."""

    def __init__(self, stub: Any) -> None:
        self._requests: queue.Queue[Any] = queue.Queue()
        self.responses: queue.Queue[Any] = queue.Queue()
        self.error: grpc.RpcError | None = None
        self.done = threading.Event()
        self.call = stub.StreamChannel(self._iter())
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _iter(self) -> Iterator[Any]:
        while True:
            m = self._requests.get()
            if m is None:
                return
            yield m

    def _pump(self) -> None:
        try:
            for r in self.call:
                self.responses.put(r)
        except grpc.RpcError as e:
            self.error = e
        finally:
            self.done.set()

    def send(self, msg: Any) -> None:
        self._requests.put(msg)

    def arbitrate(self, eid: int | None, device_id: int = DEVICE_ID, role: Any = None) -> None:
        msg = p4runtime_pb2.StreamMessageRequest()
        arb = msg.arbitration
        arb.device_id = device_id
        if eid is not None:
            arb.election_id.high = eid >> 64
            arb.election_id.low = eid & 0xFFFFFFFFFFFFFFFF
        if role is not None:
            arb.role.CopyFrom(role)
        self.send(msg)

    def packet_out(self, payload: bytes, **metadata: tuple[int, bytes]) -> Any:
        msg = p4runtime_pb2.StreamMessageRequest()
        msg.packet.payload = payload
        for mid, value in metadata.values():
            msg.packet.metadata.add(metadata_id=mid, value=value)
        self.send(msg)
        return msg.packet

    def recv(self, kind: str | None = None, timeout: float = 5.0) -> Any:
        """The next response (of `kind`, skipping others); fails after `timeout`."""
        while True:
            try:
                r = self.responses.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {kind or 'response'} within {timeout}s") from None
            if kind is None or r.WhichOneof("update") == kind:
                return r

    def expect_nothing(self, kind: str | None = None, timeout: float = 0.3) -> None:
        try:
            r = self.recv(kind, timeout)
        except AssertionError:
            return
        raise AssertionError(f"unexpected response {r}")

    def arbitration(self, timeout: float = 5.0) -> tuple[int, int | None]:
        """(status code, election id) of the next arbitration notice."""
        arb = self.recv("arbitration", timeout).arbitration
        eid = None
        if arb.HasField("election_id"):
            eid = (arb.election_id.high << 64) | arb.election_id.low
        return arb.status.code, eid

    def ended(self, timeout: float = 5.0) -> grpc.StatusCode | None:
        """The status code the stream ended with (None: OK); fails if it did not end."""
        assert self.done.wait(timeout), "the stream did not end"
        return self.error.code() if self.error is not None else None

    def close(self) -> None:
        """Half-close the request side (the server then ends the stream)."""
        self._requests.put(None)

    def cancel(self) -> None:
        """Break the stream (as a controller that dies)."""
        self.call.cancel()
        self.done.wait(5)


def write_request(eid: int | None = 1, device_id: int = DEVICE_ID, **kw: Any) -> Any:
    req = p4runtime_pb2.WriteRequest(device_id=device_id, **kw)
    if eid is not None:
        req.election_id.high = eid >> 64
        req.election_id.low = eid & 0xFFFFFFFFFFFFFFFF
    return req


def table_update(
    program: Program, dst: int, kind: int = _U.INSERT, table: str = "fwd", port: int = 1
) -> Any:
    u = p4runtime_pb2.Update(type=kind)
    te = u.entity.table_entry
    te.table_id = program.table_id(table) if table in ("fwd", "route", "acl") else int(table)
    m = te.match.add(field_id=1)
    m.exact.value = dst.to_bytes(6, "big")
    te.action.action.action_id = program.action_id("to_port")
    te.action.action.params.add(param_id=1, value=port.to_bytes(2, "big"))
    return u


def digest_update(program: Program, kind: int = _U.INSERT, **config: int) -> Any:
    u = p4runtime_pb2.Update(type=kind)
    u.entity.digest_entry.digest_id = program.digest_id
    for k, v in config.items():
        setattr(u.entity.digest_entry.config, k, v)
    return u


def set_request(
    program: Program | None,
    action: int = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
    eid: int | None = 1,
    cookie: int | None = None,
    device_id: int = DEVICE_ID,
) -> Any:
    req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=device_id, action=action)
    if eid is not None:
        req.election_id.low = eid
    if program is not None:
        req.config.CopyFrom(program.config(cookie))
    return req


def rpc_error(call: Any, *args: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        result = call(*args)
        if hasattr(result, "__iter__") and not hasattr(result, "SerializeToString"):
            list(result)
    return info.value


def details(err: grpc.RpcError) -> list[Any]:
    got = error_details(err)
    assert got is not None, "no grpc-status-details-bin in the trailers"
    status, errors = got
    assert status.code == err.code().value[0]
    assert status.message == err.details()
    return errors


# ---------------------------------------------------------------- fixtures
@pytest.fixture
def runtime() -> FakeRuntime:
    return FakeRuntime()


@pytest.fixture
def store_factory() -> Any:
    return FakeStore


@pytest.fixture(params=["bmv2"])
def policy(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(runtime: FakeRuntime, store_factory: Any, policy: str) -> Iterator[P4RuntimeServer]:
    srv = P4RuntimeServer(
        runtime,
        device_id=DEVICE_ID,
        address="127.0.0.1:0",
        policy=policy,  # type: ignore[arg-type]
        store_factory=store_factory,
    )
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def channel(server: P4RuntimeServer) -> Iterator[grpc.Channel]:
    ch = grpc.insecure_channel(
        f"127.0.0.1:{server.port}", options=[("grpc.max_metadata_size", 16 << 20)]
    )
    try:
        yield ch
    finally:
        ch.close()


@pytest.fixture
def stub(channel: grpc.Channel) -> Any:
    from p4.v1 import p4runtime_pb2_grpc

    return p4runtime_pb2_grpc.P4RuntimeStub(channel)


@pytest.fixture
def streams(stub: Any) -> Iterator[Any]:
    """`streams()` opens a StreamClient; all are broken off at the end of the test."""
    opened: list[StreamClient] = []

    def make() -> StreamClient:
        c = StreamClient(stub)
        opened.append(c)
        return c

    try:
        yield make
    finally:
        for c in opened:
            c.cancel()


@pytest.fixture
def primary(streams: Any) -> StreamClient:
    """A stream arbitrated as primary with election id 1."""
    c = streams()
    c.arbitrate(1)
    assert c.arbitration() == (0, 1)
    return c


@pytest.fixture
def committed(stub: Any, primary: StreamClient, programs: Programs) -> Program:
    """The main program committed by the primary (election id 1)."""
    stub.SetForwardingPipelineConfig(set_request(programs.main, cookie=42))
    return programs.main
