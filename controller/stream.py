"""The StreamChannel of one session: arbitration, and what the switch sends unasked.

`StreamChannel.open(stub)` starts the bidirectional RPC; `send(msg)` queues a
`StreamMessageRequest`; a reader thread sorts what comes back: arbitration answers (this
session primary or not), packet-ins, digest lists and stream errors, each decoded by the
callbacks the session gives and put on its own queue.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from p4rt_proto import p4runtime_pb2 as p4r

from .entities import DigestList, PacketIn
from .errors import P4RuntimeError, StreamError

__all__ = ["StreamChannel"]

log = logging.getLogger("controller.p4rt")

_END = object()
_CODES = {c.value[0]: c for c in grpc.StatusCode}


class StreamChannel:
    def __init__(
        self,
        address: str,
        decode_packet_in: Callable[[Any], PacketIn],
        decode_digest: Callable[[Any], DigestList],
    ) -> None:
        self.address = address
        self._decode_packet_in = decode_packet_in
        self._decode_digest = decode_digest
        self._requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._call: Any = None
        self._reader: threading.Thread | None = None
        self._arbitration = threading.Condition()
        self._primary: bool | None = None  # None: no arbitration answer yet
        self._done = threading.Event()
        self.status: P4RuntimeError | None = None  # why the stream ended, if it failed
        self.packet_ins: queue.SimpleQueue[PacketIn] = queue.SimpleQueue()
        self.digest_lists: queue.SimpleQueue[DigestList] = queue.SimpleQueue()
        self.errors: queue.SimpleQueue[StreamError] = queue.SimpleQueue()

    def open(self, stub: Any) -> None:
        self._call = stub.StreamChannel(self._request_iter())
        self._reader = threading.Thread(target=self._read, name="p4rt-client", daemon=True)
        self._reader.start()

    def send(self, msg: Any) -> None:
        self._requests.put(msg)

    def arbitrate(self, device_id: int, election_id: int) -> None:
        msg = p4r.StreamMessageRequest()
        msg.arbitration.device_id = device_id
        msg.arbitration.election_id.high = election_id >> 64
        msg.arbitration.election_id.low = election_id & ((1 << 64) - 1)
        self.send(msg)

    def wait_primary(self, timeout: float) -> bool:
        """Wait for the answer to the arbitration; True if this session is primary."""
        with self._arbitration:
            self._arbitration.wait_for(
                lambda: self._primary is not None or self._done.is_set(), timeout
            )
            return bool(self._primary)

    @property
    def is_primary(self) -> bool:
        return bool(self._primary) and not self._done.is_set()

    @property
    def ended(self) -> bool:
        """True once the stream is over (closed here, or broken by the switch)."""
        return self._done.is_set()

    def close(self) -> None:
        self._requests.put(_END)
        if self._call is not None:
            self._call.cancel()
        if self._reader is not None:
            self._reader.join(timeout=5)

    # ------------------------------------------------------------ internals
    def _request_iter(self) -> Iterator[Any]:
        while True:
            msg = self._requests.get()
            if msg is _END:
                return
            yield msg

    def _read(self) -> None:
        try:
            for msg in self._call:
                self._dispatch(msg)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                self.status = P4RuntimeError.of(e, "StreamChannel")
                log.warning("P4Runtime stream to %s ended: %s", self.address, self.status)
        finally:
            with self._arbitration:
                self._done.set()
                self._arbitration.notify_all()

    def _dispatch(self, msg: Any) -> None:
        kind = msg.WhichOneof("update")
        if kind == "arbitration":
            with self._arbitration:
                self._primary = msg.arbitration.status.code == grpc.StatusCode.OK.value[0]
                self._arbitration.notify_all()
        elif kind == "packet":
            self.packet_ins.put(self._decode_packet_in(msg.packet))
        elif kind == "digest":
            self.digest_lists.put(self._decode_digest(msg.digest))
        elif kind == "error":
            err = msg.error
            code = _CODES.get(err.canonical_code, grpc.StatusCode.UNKNOWN)
            self.errors.put(StreamError(code, err.message, "StreamChannel"))
        else:
            log.debug("P4Runtime stream message %s ignored", kind)
