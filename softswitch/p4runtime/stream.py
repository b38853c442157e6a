"""The StreamChannel: arbitration, packet I/O and digests (P4Runtime "P4Runtime Stream
Messages").

Each StreamChannel RPC gets an `Outbox`: any thread queues `StreamMessageResponse`s on it
(arbitration notices, packet-ins, digest lists, stream errors) and the RPC's handler thread
yields them; a reader thread handles what the client sends.

* `MasterArbitrationUpdate` -> `Arbiter` (`arbitration.py`); an invalid one terminates the
  stream with its status code.
* `PacketOut` (primary only) -> the `@controller_header("packet_out")` header built from the
  metadata (`pipeline.ControllerHeader`) in front of the payload, injected on the CPU port:
  the program's parser sees the header on the CPU port, as with BMv2. Refused packet-outs
  are dropped with a `StreamError` (PERMISSION_DENIED from a backup or before arbitration,
  FAILED_PRECONDITION without a pipeline or CPU port, INVALID_ARGUMENT for bad metadata).
* packets the switch sends to the CPU port -> `PacketIn` to the primary only, with the
  `@controller_header("packet_in")` header stripped and decoded into metadata.
* digests -> `DigestList`s to the primary (`DigestEngine`), as the `DigestEntry` config of
  the digest asks ("DigestEntry": buffering up to max_list_size distinct messages or
  max_timeout_ns, duplicates suppressed until acknowledged or ack_timeout_ns passed);
  `DigestListAck` from the primary clears the acknowledged list from the cache.
* idle timeouts -> `IdleTimeoutNotification`s to the primary (`IdleTimeouts`, "Table Idle
  Timeout Notification"): the tables whose P4Info says NOTIFY_CONTROL are scanned
  periodically through `EntityStore.read` (asking for `time_since_last_hit`); an entry
  with a non-zero `idle_timeout_ns` not hit for that long is reported (all of one table
  in one message) and its timer restarts, so it is reported again only after another
  `idle_timeout_ns` without a hit. Times are the switch's clock (simulated or wall).
* `other` stream messages are answered with a `StreamError` UNIMPLEMENTED.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from p4rt_proto import p4data_pb2, p4info_pb2, p4runtime_pb2

from ..engine.names import field_py
from .arbitration import Arbiter, Client
from .bytestrings import encode_int, encode_uint
from .errors import P4RuntimeError
from .pipeline import Pipelines, RuntimeLike
from .status import SPACE, RpcAbort, Undecodable, status_code

__all__ = ["DigestEngine", "IdleTimeouts", "Outbox", "StreamHandler", "encode_p4data"]

log = logging.getLogger("softswitch.p4runtime")

OUTBOX_LIMIT = 4096  # queued messages past which packet-ins, digests, stream errors drop
_CLOSE = object()


class Outbox:
    """The responses of one StreamChannel, queued by any thread, yielded by the handler."""

    def __init__(self, limit: int = OUTBOX_LIMIT) -> None:
        self._q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._limit = limit
        self._lock = threading.Lock()
        self.closed = False
        self.code: grpc.StatusCode | None = None
        self.message = ""
        self.dropped = 0

    def send(self, msg: Any, droppable: bool = False) -> bool:
        """Queue `msg`; a `droppable` one is dropped when the client lags (False)."""
        if self.closed:
            return False
        if droppable and self._q.qsize() >= self._limit:
            self.dropped += 1
            return False
        self._q.put(msg)
        return True

    def close(self, code: grpc.StatusCode | None = None, message: str = "") -> None:
        """End the stream (with an error status if `code` is given); idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self.code, self.message = code, message
        self._q.put(_CLOSE)

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._q.get()
            if item is _CLOSE:
                return
            yield item


@dataclass(eq=False)
class _Session:
    outbox: Outbox
    peer: str
    client: Client | None = None


# ---------------------------------------------------------------- digests
@dataclass(slots=True)
class _Buffer:
    config: Any
    items: list[Any] = field(default_factory=list)
    keys: set[bytes] = field(default_factory=set)
    first_ns: int = 0


@dataclass(slots=True)
class _SentList:
    keys: set[bytes]
    sent_ns: int
    ack_timeout_ns: int


class DigestEngine:
    """Buffers digest messages into `DigestList`s and keeps the cache of unacknowledged ones.

    `deliver(response)` sends a list to the primary (False if there is none: the list is
    then forgotten). A timer thread (`start`/`stop`) sends buffers whose max_timeout_ns
    passed and expires cache entries after ack_timeout_ns. Timeouts use the monotonic wall
    clock; `DigestList.timestamp` is nanoseconds since the Unix epoch."""

    def __init__(
        self, deliver: Callable[[Any], bool], clock_ns: Callable[[], int] = time.monotonic_ns
    ) -> None:
        self._deliver = deliver
        self._clock = clock_ns
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._buffers: dict[int, _Buffer] = {}
        self._sent: dict[tuple[int, int], _SentList] = {}
        self._cached: dict[int, dict[bytes, int]] = {}  # digest id -> message -> list id
        self._next_list: dict[int, int] = {}

    def add(self, digest_id: int, data: Any, config: Any) -> None:
        """One digest message (a P4Data) from the data plane, under `config`."""
        key = data.SerializeToString(deterministic=True)
        now = self._clock()
        with self._lock:
            if key in self._cached.get(digest_id, ()):
                return
            buf = self._buffers.get(digest_id)
            if buf is None:
                buf = self._buffers[digest_id] = _Buffer(config)
            buf.config = config
            if key in buf.keys:
                return
            if not buf.items:
                buf.first_ns = now
                self._wake.set()
            buf.items.append(data)
            buf.keys.add(key)
            size = config.max_list_size
            ready = config.max_timeout_ns <= 0 or (size > 0 and len(buf.items) >= size)
            out = [self._take(digest_id, buf, now)] if ready else []
        self._send(out)

    def ack(self, digest_id: int, list_id: int) -> None:
        with self._lock:
            self._forget(digest_id, list_id)

    def tick(self) -> int | None:
        """Send due buffers, expire the cache; the next deadline (monotonic ns) or None."""
        now = self._clock()
        out = []
        deadline: int | None = None
        with self._lock:
            for key, s in list(self._sent.items()):
                if now - s.sent_ns >= s.ack_timeout_ns:
                    self._forget(*key)
                else:
                    deadline = _earliest(deadline, s.sent_ns + s.ack_timeout_ns)
            for did, buf in self._buffers.items():
                if not buf.items:
                    continue
                due = buf.first_ns + max(0, buf.config.max_timeout_ns)
                if now >= due:
                    out.append(self._take(did, buf, now))
                else:
                    deadline = _earliest(deadline, due)
        self._send(out)
        return deadline

    def clear_cache(self) -> None:
        """Forget what was sent (the primary changed: the new one gets everything again)."""
        with self._lock:
            self._sent.clear()
            self._cached.clear()

    def reset(self) -> None:
        """Drop everything (a new pipeline)."""
        with self._lock:
            self._buffers.clear()
            self._sent.clear()
            self._cached.clear()
            self._next_list.clear()

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="p4rt-digests", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                deadline = self.tick()
            except Exception:  # noqa: BLE001 - keep the timer alive
                log.exception("P4Runtime: digest timer")
                deadline = None
            wait = 0.5 if deadline is None else max(0.0, (deadline - self._clock()) / 1e9)
            self._wake.wait(min(wait, 0.5))

    # ------------------------------------------------------------ internals (lock held)
    def _take(self, digest_id: int, buf: _Buffer, now: int) -> tuple[Any, int, int]:
        list_id = self._next_list.get(digest_id, 1)
        self._next_list[digest_id] = list_id + 1 if list_id < (1 << 64) - 1 else 1
        msg = p4runtime_pb2.StreamMessageResponse()
        dl = msg.digest
        dl.digest_id = digest_id
        dl.list_id = list_id
        dl.data.extend(buf.items)
        dl.timestamp = time.time_ns()
        if buf.config.ack_timeout_ns > 0:
            self._sent[(digest_id, list_id)] = _SentList(buf.keys, now, buf.config.ack_timeout_ns)
            cached = self._cached.setdefault(digest_id, {})
            for k in buf.keys:
                cached[k] = list_id
        buf.items, buf.keys = [], set()
        return msg, digest_id, list_id

    def _forget(self, digest_id: int, list_id: int) -> None:
        sent = self._sent.pop((digest_id, list_id), None)
        if sent is None:
            return
        cached = self._cached.get(digest_id, {})
        for k in sent.keys:
            if cached.get(k) == list_id:
                del cached[k]

    def _send(self, out: list[tuple[Any, int, int]]) -> None:
        for msg, did, lid in out:  # outside the lock: delivery takes the arbiter's lock
            if not self._deliver(msg):
                self.ack(did, lid)


class IdleTimeouts:
    """Finds idle table entries and reports them (see the module docstring).

    `deliver(response)` sends to the primary (False if there is none: the entries are
    then reported again at the next scan); `scan()` is one pass, `start`/`stop` run it
    every `interval_s` seconds on a thread of its own."""

    def __init__(
        self,
        pipelines: Pipelines,
        runtime: RuntimeLike,
        deliver: Callable[[Any], bool],
        active: Callable[[], bool] = lambda: True,
        interval_s: float = 0.1,
    ) -> None:
        self.pipelines = pipelines
        self.runtime = runtime
        self.deliver = deliver
        self.active = active  # e.g. "is there a primary?": no scanning without a reader
        self.interval_s = interval_s
        self._pipe: Any = None
        self._restarted: dict[tuple[Any, ...], int] = {}  # entry -> ns its timer restarted
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan(self) -> int:
        """One pass over the live pipeline; the number of entries reported."""
        pipe = self.pipelines.live
        if pipe is None or not self.active():
            return 0
        if pipe is not self._pipe:
            self._pipe, self._restarted = pipe, {}
        notify = p4info_pb2.Table.NOTIFY_CONTROL
        tables = [t.preamble.id for t in pipe.p4info.tables if t.idle_timeout_behavior == notify]
        kept: dict[tuple[Any, ...], int] = {}
        reported = 0
        for tid in tables:
            query = p4runtime_pb2.Entity()
            query.table_entry.table_id = tid
            query.table_entry.time_since_last_hit.SetInParent()
            with self.runtime.lock:
                now_ns = pipe.switch.clock.now_us() * 1000
                entries = [e.table_entry for e in pipe.store.read(query)]
            msg = p4runtime_pb2.StreamMessageResponse()
            note = msg.idle_timeout_notification
            expired = []
            for te in entries:
                if te.idle_timeout_ns <= 0 or te.is_default_action:
                    continue
                key = (
                    tid,
                    te.priority,
                    *(m.SerializeToString(deterministic=True) for m in te.match),
                )
                start = now_ns - te.time_since_last_hit.elapsed_ns
                if key in self._restarted:
                    kept[key] = self._restarted[key]
                    start = max(start, kept[key])
                if now_ns - start >= te.idle_timeout_ns:
                    expired.append(key)
                    out = note.table_entry.add()
                    out.CopyFrom(te)
                    out.ClearField("time_since_last_hit")
            if not expired:
                continue
            note.timestamp = time.time_ns()
            if self.deliver(msg):
                reported += len(expired)
                for key in expired:
                    kept[key] = now_ns
        self._restarted = kept
        return reported

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="p4rt-idle", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.scan()
            except Exception:  # noqa: BLE001 - keep scanning
                log.exception("P4Runtime: idle timeout scan")


def _earliest(a: int | None, b: int) -> int:
    return b if a is None else min(a, b)


def encode_p4data(value: Any, spec: Any, info: Any) -> Any:
    """A value of the switch (generated struct/header objects, ints, bools) as P4Data, as
    its P4Info type spec (`spec`, a P4DataTypeSpec) and `type_info` describe it."""
    d = p4data_pb2.P4Data()
    kind = spec.WhichOneof("type_spec")
    if kind == "bitstring":
        bs = spec.bitstring
        which = bs.WhichOneof("type_spec")
        if which == "int":
            d.bitstring = encode_int(int(value), bs.int.bitwidth)
        elif which == "varbit":
            d.varbit.bitstring = encode_uint(int(value))
            d.varbit.bitwidth = bs.varbit.max_bitwidth
        else:
            d.bitstring = encode_uint(int(value) & ((1 << bs.bit.bitwidth) - 1))
    elif kind == "bool":
        d.bool = bool(value)
    elif kind == "tuple":
        for v, m in zip(value, spec.tuple.members, strict=True):
            d.tuple.members.append(encode_p4data(v, m, info))
    elif kind == "struct":
        for m in info.structs[spec.struct.name].members:
            d.struct.members.append(
                encode_p4data(getattr(value, field_py(m.name)), m.type_spec, info)
            )
    elif kind == "header":
        _header(d.header, value, info.headers[spec.header.name])
    elif kind == "header_union":
        for m in info.header_unions[spec.header_union.name].members:
            h = getattr(value, field_py(m.name))
            if h._v:
                d.header_union.valid_header_name = m.name
                _header(d.header_union.valid_header, h, info.headers[m.header.name])
                break
    elif kind == "header_stack":
        hspec = info.headers[spec.header_stack.header.name]
        for h in value.h:
            _header(d.header_stack.entries.add(), h, hspec)
    elif kind == "serializable_enum":
        width = info.serializable_enums[spec.serializable_enum.name].underlying_type.bitwidth
        d.enum_value = encode_uint(int(value) & ((1 << width) - 1))
    elif kind == "enum":
        members = info.enums[spec.enum.name].members
        d.enum = value if isinstance(value, str) else members[int(value)].name
    elif kind == "error":
        d.error = value if isinstance(value, str) else info.error.members[int(value)]
    elif kind == "new_type":
        nt = info.new_types[spec.new_type.name]
        if nt.HasField("original_type"):
            return encode_p4data(value, nt.original_type, info)
        d.bitstring = encode_uint(int(value))
    else:
        raise ValueError(f"cannot encode P4 type {kind!r} as P4Data")
    return d


def _header(out: Any, h: Any, spec: Any) -> None:
    out.is_valid = bool(h._v)
    if not out.is_valid:
        return  # an invalid header has no bitstrings
    for m in spec.members:
        v = int(getattr(h, field_py(m.name)))
        bs = m.type_spec
        if bs.WhichOneof("type_spec") == "int":
            out.bitstrings.append(encode_int(v, bs.int.bitwidth))
        else:
            out.bitstrings.append(encode_uint(v))


# ---------------------------------------------------------------- the stream handler
class StreamHandler:
    """Serves StreamChannel RPCs; also the runtime's packet-in and digest callbacks."""

    def __init__(
        self,
        arbiter: Arbiter,
        pipelines: Pipelines,
        runtime: RuntimeLike,
        digests: DigestEngine,
        control_lock: Any,
        strict: bool = False,
    ) -> None:
        self.arbiter = arbiter
        self.pipelines = pipelines
        self.runtime = runtime
        self.digests = digests
        self.control_lock = control_lock  # serialises arbitration with Write/Set
        self.strict = strict
        self._sessions: set[_Session] = set()
        self._lock = threading.Lock()

    def serve(self, requests: Iterable[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        """The StreamChannel RPC: yields responses; raises RpcAbort to end with an error."""
        session = _Session(Outbox(), context.peer())
        with self._lock:
            self._sessions.add(session)
        context.add_callback(session.outbox.close)
        reader = threading.Thread(
            target=self._read, args=(requests, session), name="p4rt-stream", daemon=True
        )
        reader.start()
        try:
            yield from session.outbox
        finally:
            self._leave(session)
        if session.outbox.code is not None:
            raise RpcAbort(session.outbox.code, session.outbox.message)

    def close_all(self) -> None:
        """End every stream (the server stops)."""
        with self._lock:
            sessions = list(self._sessions)
        for s in sessions:
            s.outbox.close()

    def _leave(self, session: _Session) -> None:
        session.outbox.close()
        with self._lock:
            self._sessions.discard(session)
        client, session.client = session.client, None
        if client is not None:
            with self.control_lock:
                self.arbiter.leave(client)

    def _read(self, requests: Iterable[Any], session: _Session) -> None:
        try:
            for req in requests:
                if session.outbox.closed:
                    break
                try:
                    self._handle(session, req)
                except P4RuntimeError as e:  # arbitration errors end the stream
                    session.outbox.close(e.code, e.message)
                    return
        except Exception as e:  # noqa: BLE001 - the client went away (or the RPC ended)
            log.debug("P4Runtime: stream from %s ended: %r", session.peer, e)
        finally:
            session.outbox.close()

    def _handle(self, session: _Session, req: Any) -> None:
        if isinstance(req, Undecodable):  # a broken client: end the stream
            raise P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, req.message)
        kind = req.WhichOneof("update")
        if kind == "arbitration":
            with self.control_lock:
                if session.client is None:
                    session.client = self.arbiter.join(
                        session.outbox.send, req.arbitration, session.peer
                    )
                else:
                    self.arbiter.update(session.client, req.arbitration)
            return
        try:
            if kind == "packet":
                self._packet_out(session, req.packet)
            elif kind == "digest_ack":
                self._digest_ack(session, req.digest_ack)
            elif kind == "other":
                err = _stream_error(grpc.StatusCode.UNIMPLEMENTED, "'other' stream messages")
                err.error.other.other.CopyFrom(req.other)
                session.outbox.send(err, True)
        except P4RuntimeError as e:
            err = _stream_error(e.code, e.message)
            if kind == "packet":
                err.error.packet_out.packet_out.CopyFrom(req.packet)
            elif kind == "digest_ack":
                err.error.digest_list_ack.digest_list_ack.CopyFrom(req.digest_ack)
            session.outbox.send(err, True)
        except Exception as e:  # noqa: BLE001 - never let one message end the stream
            log.exception("P4Runtime: stream message %s", kind)
            session.outbox.send(_stream_error(grpc.StatusCode.INTERNAL, repr(e)), True)

    def _check_primary(self, session: _Session, what: str) -> None:
        if session.client is None:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED, f"{what} before a MasterArbitrationUpdate"
            )
        if self.arbiter.primary is not session.client:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED, f"{what} from a backup controller"
            )

    def _packet_out(self, session: _Session, packet: Any) -> None:
        self._check_primary(session, "PacketOut")
        pipe = self.pipelines.live
        if pipe is None:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "no pipeline config set")
        cpu = self.runtime.cpu_port
        if cpu is None:
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION, "the switch has no CPU port for packet-out"
            )
        if pipe.packet_out is not None:
            data = pipe.packet_out.pack(packet.metadata, self.strict) + packet.payload
        elif packet.metadata:
            raise P4RuntimeError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "PacketOut metadata given, but the program has no packet_out controller header",
            )
        else:
            data = packet.payload
        self.runtime.inject(cpu, data)

    def _digest_ack(self, session: _Session, ack: Any) -> None:
        self._check_primary(session, "DigestListAck")
        pipe = self.pipelines.live
        if pipe is None or ack.digest_id not in pipe.digest_ids.values():
            raise P4RuntimeError(
                grpc.StatusCode.INVALID_ARGUMENT, f"unknown digest id {ack.digest_id}"
            )
        self.digests.ack(ack.digest_id, ack.list_id)

    # ------------------------------------------------------------ runtime callbacks
    def on_cpu_packet(self, data: bytes) -> None:
        """A packet the switch sent to the CPU port -> PacketIn to the primary."""
        try:
            pipe = self.pipelines.live
            msg = p4runtime_pb2.StreamMessageResponse()
            if pipe is not None and pipe.packet_in is not None:
                got = pipe.packet_in.unpack(data)
                if got is None:
                    log.debug("P4Runtime: packet-in shorter than its header, dropped")
                    return
                msg.packet.metadata.extend(got[0])
                msg.packet.payload = got[1]
            else:
                msg.packet.payload = data
            self.arbiter.send_to_primary(msg, True)
        except Exception:  # noqa: BLE001 - never break the packet path
            log.exception("P4Runtime: packet-in")

    def on_digest(self, digest: Any) -> None:
        """A digest message from the data plane (softswitch.v1model.switch.Digest)."""
        try:
            pipe = self.pipelines.live
            if pipe is None:
                return
            did = pipe.digest_ids.get(digest.name)
            if did is None:
                return
            with self.runtime.lock:
                config = pipe.store.digest_config(did)
            if config is None:
                return  # no DigestEntry for it: digests are not enabled
            spec = pipe.digest_type(did)
            data = encode_p4data(digest.data, spec, pipe.p4info.type_info)
            self.digests.add(did, data, config)
        except Exception:  # noqa: BLE001
            log.exception("P4Runtime: digest")


def _stream_error(code: grpc.StatusCode, message: str) -> Any:
    msg = p4runtime_pb2.StreamMessageResponse()
    msg.error.canonical_code = status_code(code)
    msg.error.message = message
    msg.error.space = SPACE
    return msg
