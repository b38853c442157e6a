"""One P4Runtime client session with one switch.

    with P4RuntimeSession("127.0.0.1:9559", device_id=0, election_id=1) as sw:
        sw.set_pipeline(p4info, device_config)              # VERIFY_AND_COMMIT
        sw.insert(sw.table_entry("routing_v4", match={"ipv4_dst": "10.0.2.0/24"},
                                 action="set_next_hop_group", params={"group_id": 1}))
        sw.write([Update.modify(...), Update.delete(...)])  # one batch, CONTINUE_ON_ERROR
        for e in sw.read_table("routing_v4"): ...
        sw.packet_out(frame, egress_port=3)
        pkt = sw.packet_in(timeout=1.0)                     # PacketIn(payload, metadata)

`connect()` opens the channel and the StreamChannel, sends a MasterArbitrationUpdate and
(by default) waits until this session is the primary controller. A reader thread
(`stream.py`) takes everything the switch sends on the stream: arbitration updates,
packet-ins, digest lists and stream errors, each to its own queue.

Names are P4Info names (full, alias or unique suffix; see `p4info.P4Schema`), values ints,
bytes, MAC or IP strings (`values.py`). Batch failures raise `P4RuntimeWriteError` with one
line per failed update ("update 3: NOT_FOUND: ... [INSERT table_entry]").
"""

from __future__ import annotations

import hashlib
import logging
import queue
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from p4rt_proto import p4info_pb2, p4runtime_pb2_grpc
from p4rt_proto import p4runtime_pb2 as p4r

from . import codec
from .entities import (
    ActionProfileGroup,
    ActionProfileMember,
    CloneSession,
    CounterData,
    CounterEntry,
    DigestEntry,
    DigestList,
    DirectCounterEntry,
    DirectMeterEntry,
    Entity,
    GroupMember,
    MeterConfig,
    MeterEntry,
    MulticastGroup,
    PacketIn,
    RegisterEntry,
    Replica,
    TableEntry,
    Update,
)
from .errors import (
    P4RuntimeError,
    P4RuntimeReadError,
    P4RuntimeWriteError,
    StreamError,
    describe,
    element_errors,
)
from .p4info import P4Schema
from .stream import StreamChannel
from .values import Value, decode, encode

__all__ = ["P4RuntimeSession", "PipelineConfig"]

log = logging.getLogger("controller.p4rt")

_MAX_MESSAGE = 256 * 1024 * 1024
_DUPLICATE_ID_GRACE_S = 2.0  # see connect()
_ATOMICITY = {
    "CONTINUE_ON_ERROR": p4r.WriteRequest.CONTINUE_ON_ERROR,
    "ROLLBACK_ON_ERROR": p4r.WriteRequest.ROLLBACK_ON_ERROR,
    "DATAPLANE_ATOMIC": p4r.WriteRequest.DATAPLANE_ATOMIC,
}


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    """What GetForwardingPipelineConfig returned (fields not asked for are None/empty)."""

    p4info: p4info_pb2.P4Info | None
    device_config: bytes
    cookie: int | None


def config_cookie(p4info: p4info_pb2.P4Info, device_config: bytes) -> int:
    """A 64-bit fingerprint of a pipeline, used as its ForwardingPipelineConfig cookie."""
    h = hashlib.sha256(p4info.SerializeToString(deterministic=True) + device_config)
    return int.from_bytes(h.digest()[:8], "big")


class P4RuntimeSession:
    """A client session: channel, stream, arbitration, and the RPCs as typed methods."""

    def __init__(
        self,
        address: str,
        device_id: int = 0,
        election_id: int = 1,
        *,
        p4info: p4info_pb2.P4Info | None = None,
        rpc_timeout: float = 30.0,
    ) -> None:
        self.address = address
        self.device_id = device_id
        self.election_id = election_id
        self.rpc_timeout = rpc_timeout
        self._schema = P4Schema(p4info) if p4info is not None else None
        self._channel: grpc.Channel | None = None
        self._stub: Any = None
        self._stream: StreamChannel | None = None

    # ------------------------------------------------------------ connection
    def connect(self, timeout: float = 10.0, wait_primary: bool = True) -> P4RuntimeSession:
        """Open the channel (waiting up to `timeout` s for the server), start the stream and
        arbitrate; with `wait_primary`, raise P4RuntimeError unless this session is primary."""
        if self._channel is not None:
            return self
        channel = grpc.insecure_channel(
            self.address,
            options=[
                ("grpc.max_send_message_length", _MAX_MESSAGE),
                ("grpc.max_receive_message_length", _MAX_MESSAGE),
            ],
        )
        try:
            grpc.channel_ready_future(channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            channel.close()
            raise P4RuntimeError(
                grpc.StatusCode.UNAVAILABLE, f"no P4Runtime server at {self.address}", "connect"
            ) from None
        self._channel = channel
        self._stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        # A session that ended a moment ago may still hold this election id on the switch
        # (it drops a cancelled stream asynchronously): a refusal as a duplicate
        # (INVALID_ARGUMENT) is retried for a short while before it counts.
        retry_until = time.monotonic() + min(timeout, _DUPLICATE_ID_GRACE_S)
        while True:
            self._stream = StreamChannel(self.address, self._decode_packet_in, self._decode_digest)
            self._stream.open(self._stub)
            self._stream.arbitrate(self.device_id, self.election_id)
            if not wait_primary or self._stream.wait_primary(timeout):
                break
            status = self._stream.status
            if (
                status is None
                or status.code != grpc.StatusCode.INVALID_ARGUMENT
                or time.monotonic() >= retry_until
            ):
                break
            self._stream.close()
            time.sleep(0.05)
        if wait_primary and not self._stream.is_primary:
            status = self._stream.status
            self.close()
            why = str(status) if status else "another controller has a higher election id"
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED, f"not primary: {why}", "arbitration"
            )
        return self

    def wait_primary(self, timeout: float = 10.0) -> bool:
        """Wait for the switch's answer to the arbitration; True if this session is primary."""
        return self.stream.wait_primary(timeout)

    @property
    def is_primary(self) -> bool:
        return self._stream is not None and self._stream.is_primary

    @property
    def stream_open(self) -> bool:
        """True while connected and the stream has not ended (a switch that went away ends
        it; so does `close()`)."""
        return self._stream is not None and self._channel is not None and not self._stream.ended

    @property
    def stream(self) -> StreamChannel:
        if self._stream is None:
            raise RuntimeError("not connected: call connect() first")
        return self._stream

    def close(self) -> None:
        """End the stream and close the channel (idempotent)."""
        if self._channel is None:
            return
        if self._stream is not None:
            self._stream.close()
        self._channel.close()
        self._channel = None
        self._stub = None

    def __enter__(self) -> P4RuntimeSession:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ pipeline
    @property
    def schema(self) -> P4Schema:
        if self._schema is None:
            raise RuntimeError("no P4Info: call set_pipeline(), use_p4info() or fetch_p4info()")
        return self._schema

    def use_p4info(self, p4info: p4info_pb2.P4Info) -> None:
        """Name entities with `p4info` (the pipeline the switch runs)."""
        self._schema = P4Schema(p4info)

    def set_pipeline(
        self,
        p4info: p4info_pb2.P4Info,
        device_config: bytes,
        *,
        cookie: int | None = None,
        action: str = "VERIFY_AND_COMMIT",
        timeout: float = 300.0,
    ) -> None:
        """SetForwardingPipelineConfig; the cookie defaults to a hash of the pipeline."""
        req = p4r.SetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            action=p4r.SetForwardingPipelineConfigRequest.Action.Value(action),
        )
        self._set_election_id(req.election_id)
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = device_config
        req.config.cookie.cookie = (
            cookie if cookie is not None else config_cookie(p4info, device_config)
        )
        self._call("SetForwardingPipelineConfig", req, timeout)
        self._schema = P4Schema(p4info)

    def get_pipeline(self, response_type: str = "ALL") -> PipelineConfig:
        """GetForwardingPipelineConfig (ALL, COOKIE_ONLY, P4INFO_AND_COOKIE, ...)."""
        req = p4r.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4r.GetForwardingPipelineConfigRequest.ResponseType.Value(response_type),
        )
        resp = self._call("GetForwardingPipelineConfig", req)
        c = resp.config
        return PipelineConfig(
            c.p4info if c.HasField("p4info") else None,
            c.p4_device_config,
            c.cookie.cookie if c.HasField("cookie") else None,
        )

    def ensure_pipeline(
        self, p4info: p4info_pb2.P4Info, device_config: bytes, *, cookie: int | None = None
    ) -> bool:
        """Push the pipeline unless the switch already runs it (same cookie); True if it
        was pushed. Entities written earlier survive when it was not. `cookie`: the
        pipeline's `config_cookie`, when the caller has it (a controller that checks many
        switches hashes its pipeline once)."""
        want = cookie if cookie is not None else config_cookie(p4info, device_config)
        try:
            have = self.get_pipeline("COOKIE_ONLY").cookie
        except P4RuntimeError:
            have = None
        if have == want:
            if self._schema is None or self._schema.p4info is not p4info:
                self._schema = P4Schema(p4info)
            return False
        self.set_pipeline(p4info, device_config, cookie=want)
        return True

    def fetch_p4info(self) -> P4Schema:
        """Adopt the P4Info of the pipeline the switch runs."""
        got = self.get_pipeline("P4INFO_AND_COOKIE").p4info
        if got is None:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "no pipeline set", "Get")
        self._schema = P4Schema(got)
        return self._schema

    # ------------------------------------------------------------ builders
    def table_entry(
        self,
        table: str,
        match: Mapping[str, codec.MatchInput] | None = None,
        action: str | None = None,
        params: Mapping[str, Value] | None = None,
        priority: int = 0,
        **kw: Any,
    ) -> TableEntry:
        """See `codec.table_entry` (and its module docstring for match forms)."""
        return codec.table_entry(self.schema, table, match, action, params, priority, **kw)

    def default_entry(
        self, table: str, action: str | None = None, params: Mapping[str, Value] | None = None
    ) -> TableEntry:
        """The table's default entry (MODIFY it; without an action: the initial default)."""
        return codec.table_entry(self.schema, table, None, action, params, is_default=True)

    def member(
        self, profile: str, member_id: int, action: str, params: Mapping[str, Value]
    ) -> ActionProfileMember:
        return codec.action_profile_member(self.schema, profile, member_id, action, params)

    def group(
        self,
        profile: str,
        group_id: int,
        members: Iterable[int | tuple[int, int] | GroupMember],
        max_size: int = 0,
    ) -> ActionProfileGroup:
        """An action selector group; members as ids or (id, weight)."""
        return codec.action_profile_group(self.schema, profile, group_id, members, max_size)

    @staticmethod
    def multicast_group(
        group_id: int, ports: Iterable[int | tuple[int, int] | Replica]
    ) -> MulticastGroup:
        return MulticastGroup(group_id, codec.replicas(ports))

    @staticmethod
    def clone_session(
        session_id: int,
        ports: Iterable[int | tuple[int, int] | Replica],
        class_of_service: int = 0,
        packet_length_bytes: int = 0,
    ) -> CloneSession:
        return CloneSession(
            session_id, codec.replicas(ports), class_of_service, packet_length_bytes
        )

    @staticmethod
    def direct_counter(entry: TableEntry, data: CounterData | None = None) -> DirectCounterEntry:
        """The direct counter of `entry` (MODIFY with `data` to set it)."""
        return DirectCounterEntry(entry, data)

    @staticmethod
    def direct_meter(entry: TableEntry, config: MeterConfig | None) -> DirectMeterEntry:
        """The direct meter of `entry` (MODIFY; config None: every packet GREEN)."""
        return DirectMeterEntry(entry, config)

    def counter(self, name: str, index: int | None = None) -> CounterEntry:
        return CounterEntry(self.schema.counters[name].name, index)

    def meter(self, name: str, index: int | None, config: MeterConfig | None) -> MeterEntry:
        return MeterEntry(self.schema.meters[name].name, index, config)

    def register(
        self, name: str, index: int | None = None, value: int | None = None
    ) -> RegisterEntry:
        return RegisterEntry(self.schema.registers[name].name, index, value)

    def digest(
        self,
        name: str,
        max_timeout_ns: int = 0,
        max_list_size: int = 1,
        ack_timeout_ns: int = 1_000_000_000,
    ) -> DigestEntry:
        return DigestEntry(
            self.schema.digests[name].name, max_timeout_ns, max_list_size, ack_timeout_ns
        )

    # ------------------------------------------------------------ Write
    def write(self, updates: Iterable[Update], atomicity: str = "CONTINUE_ON_ERROR") -> None:
        """One Write RPC with all `updates`; raises P4RuntimeWriteError naming each failed
        update by its index in `updates`."""
        req = p4r.WriteRequest(device_id=self.device_id, atomicity=_ATOMICITY[atomicity])
        self._set_election_id(req.election_id)
        for u in updates:
            req.updates.add(type=u.type.value, entity=codec.encode_entity(self.schema, u.entity))
        if not req.updates:
            return
        try:
            self._stub_call("Write")(req, timeout=self.rpc_timeout)
        except grpc.RpcError as e:
            labels = [describe(u) for u in req.updates]
            errors = element_errors(e, labels)
            if errors is None:
                raise P4RuntimeError.of(e, "Write") from None
            raise P4RuntimeWriteError(e.code(), e.details() or "", errors) from None  # type: ignore[attr-defined]

    def insert(self, *entities: Entity) -> None:
        self.write([Update.insert(e) for e in entities])

    def modify(self, *entities: Entity) -> None:
        self.write([Update.modify(e) for e in entities])

    def delete(self, *entities: Entity) -> None:
        self.write([Update.delete(e) for e in entities])

    # ------------------------------------------------------------ Read
    def read(self, *entities: Entity) -> Iterator[Entity]:
        """Everything matching the (wildcard) `entities`, decoded."""
        for ent in self.read_messages(*entities):
            yield codec.decode_entity(self.schema, ent)

    def read_messages(self, *entities: Entity) -> Iterator[p4r.Entity]:
        """Everything matching the (wildcard) `entities`, as the switch sent it (`read`
        without the decoding: for a caller that compares encodings)."""
        req = p4r.ReadRequest(device_id=self.device_id)
        for e in entities:
            req.entities.append(codec.encode_entity(self.schema, e))
        try:
            for resp in self._stub_call("Read")(req, timeout=self.rpc_timeout):
                yield from resp.entities
        except grpc.RpcError as e:
            errors = element_errors(e)
            if errors is None:
                raise P4RuntimeError.of(e, "Read") from None
            raise P4RuntimeReadError(e.code(), e.details() or "", errors) from None  # type: ignore[attr-defined]

    def read_table(self, table: str) -> Iterator[TableEntry]:
        """Every entry of `table` (with direct counter data where the table has one)."""
        t = self.schema.table(table)
        counter = CounterData() if t.direct_counter_id else None
        for e in self.read(TableEntry(t.name, counter=counter)):
            assert isinstance(e, TableEntry)
            yield e

    def read_counter(self, name: str, index: int) -> CounterData:
        """One cell of an indexed counter."""
        for e in self.read(self.counter(name, index)):
            assert isinstance(e, CounterEntry) and e.data is not None
            return e.data
        raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"counter {name}[{index}]", "Read")

    def read_counters(self, name: str) -> dict[int, CounterData]:
        """Every cell of an indexed counter, by index."""
        out: dict[int, CounterData] = {}
        for e in self.read(self.counter(name)):
            assert isinstance(e, CounterEntry) and e.data is not None and e.index is not None
            out[e.index] = e.data
        return out

    def read_direct_counter(self, entry: TableEntry) -> CounterData:
        """The direct counter of one table entry."""
        for e in self.read(DirectCounterEntry(entry)):
            assert isinstance(e, DirectCounterEntry) and e.data is not None
            return e.data
        raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"direct counter of {entry}", "Read")

    def read_register(self, name: str, index: int) -> int:
        for e in self.read(self.register(name, index)):
            assert isinstance(e, RegisterEntry) and e.value is not None
            return e.value
        raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"register {name}[{index}]", "Read")

    def read_meter(self, name: str, index: int) -> MeterConfig | None:
        for e in self.read(self.meter(name, index, None)):
            assert isinstance(e, MeterEntry)
            return e.config
        raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"meter {name}[{index}]", "Read")

    def read_direct_meter(self, entry: TableEntry) -> MeterConfig | None:
        for e in self.read(DirectMeterEntry(entry)):
            assert isinstance(e, DirectMeterEntry)
            return e.config
        raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"direct meter of {entry}", "Read")

    # ------------------------------------------------------------ packet I/O
    def packet_out(self, payload: bytes, **metadata: Value) -> None:
        """Send `payload` to the switch's CPU port with the `packet_out` controller header
        fields named in `metadata` (fields not given are sent as 0)."""
        fields = self.schema.metadata_fields("packet_out")
        unknown = set(metadata) - set(fields)
        if unknown:
            raise ValueError(
                f"packet_out has no metadata {sorted(unknown)} (fields: {', '.join(fields)})"
            )
        msg = p4r.StreamMessageRequest()
        msg.packet.payload = bytes(payload)
        for name, (mid, width) in fields.items():
            value = encode(metadata.get(name, 0), width, f"packet_out.{name}")
            msg.packet.metadata.add(metadata_id=mid, value=value)
        self.stream.send(msg)

    def packet_in(self, timeout: float = 1.0) -> PacketIn | None:
        """The next packet-in (None if none comes within `timeout` s)."""
        try:
            return self.stream.packet_ins.get(timeout=timeout)
        except queue.Empty:
            return None

    def _decode_packet_in(self, packet: Any) -> PacketIn:
        names: dict[int, str] = {}
        if self._schema is not None:
            try:
                names = {
                    mid: n for n, (mid, _w) in self._schema.metadata_fields("packet_in").items()
                }
            except KeyError:
                names = {}
        meta = {
            names.get(m.metadata_id, str(m.metadata_id)): decode(m.value) for m in packet.metadata
        }
        return PacketIn(bytes(packet.payload), meta)

    # ------------------------------------------------------------ digests
    def digest_list(self, timeout: float = 1.0) -> DigestList | None:
        """The next DigestList (None if none comes within `timeout` s)."""
        try:
            return self.stream.digest_lists.get(timeout=timeout)
        except queue.Empty:
            return None

    def stream_error(self, timeout: float = 1.0) -> StreamError | None:
        """The next StreamError the switch reported (a refused packet-out or ack)."""
        try:
            return self.stream.errors.get(timeout=timeout)
        except queue.Empty:
            return None

    def ack(self, digest_list: DigestList) -> None:
        """Acknowledge a DigestList (its messages may be reported again afterwards)."""
        msg = p4r.StreamMessageRequest()
        msg.digest_ack.digest_id = digest_list.digest_id
        msg.digest_ack.list_id = digest_list.list_id
        self.stream.send(msg)

    def _decode_digest(self, dl: Any) -> DigestList:
        name = str(dl.digest_id)
        messages: tuple[Any, ...] = tuple(dl.data)
        if self._schema is not None:
            try:
                info = self._schema.digests.id(dl.digest_id)
                name = info.name
                spec = info.message.type_spec
                messages = tuple(codec.decode_p4data(self._schema, d, spec) for d in dl.data)
            except (KeyError, ValueError) as e:
                log.warning("digest %d: cannot decode: %s", dl.digest_id, e)
        return DigestList(name, dl.digest_id, dl.list_id, dl.timestamp, messages)

    # ------------------------------------------------------------ plumbing
    def _set_election_id(self, eid: Any) -> None:
        eid.high = self.election_id >> 64
        eid.low = self.election_id & ((1 << 64) - 1)

    def _stub_call(self, name: str) -> Any:
        if self._stub is None:
            raise RuntimeError("not connected: call connect() first")
        return getattr(self._stub, name)

    def _call(self, name: str, req: Any, timeout: float | None = None) -> Any:
        try:
            return self._stub_call(name)(req, timeout=timeout or self.rpc_timeout)
        except grpc.RpcError as e:
            raise P4RuntimeError.of(e, name) from None
