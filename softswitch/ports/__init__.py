"""Packet I/O for a running switch: the port protocol, in-process queues, pcap files, the CPU.

Every port speaks the `Port` protocol: `send(data)` puts a frame on the wire, `recv(timeout)`
returns the next frame from the wire (None when `timeout` seconds pass first) and raises
`PortClosed` once no frame will ever come (closed, end of a file, or a send-only port).
`SwitchRuntime` runs one receive thread per port; a port's `send` is only called with the
runtime's lock held, so a port needs no locking of its own for sending. A port that
buffers its output has `flush()`, which the runtime calls after every batch (it may return
how many frames the port refused: they count as transmit errors); a port that also has
`send_later(data)` is given frames through it, to be sent at that `flush` (AF_PACKET
ports: a transmit ring).

- `QueuePort`: in-process queues, for tests and simulators; `queue_link()` wires two ports
  back to back (a cable between two switches).
- `CpuPort`: packets the switch sends to its CPU port go to listeners (P4Runtime packet-in).
- `PcapFilePort` and `merge_pcaps`: pcap files as `simple_switch --use-files` uses them
  (`<iface>_in.pcap` replayed in timestamp order across all ports, `<iface>_out.pcap`
  written).

Linux interfaces (AF_PACKET) are in `ports.afpacket`, UDP socket pairs in `ports.udp`.
"""

from __future__ import annotations

import heapq
import logging
import queue
import struct
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

__all__ = [
    "CpuPort",
    "PcapError",
    "PcapFilePort",
    "PcapRecord",
    "PcapWriter",
    "Port",
    "PortClosed",
    "QueuePort",
    "merge_pcaps",
    "queue_link",
    "read_pcap",
]

log = logging.getLogger("softswitch.ports")


class PortClosed(Exception):
    """`recv` on a port that will never deliver another frame."""


class Port(Protocol):
    def send(self, data: bytes) -> None:
        """Put one frame on the wire (raises OSError when the wire refuses it)."""

    def recv(self, timeout: float | None = None) -> bytes | None:
        """The next frame from the wire; None after `timeout` s; PortClosed when done."""

    def close(self) -> None:
        """Stop receiving (a blocked `recv` raises PortClosed) and release the port."""


# ------------------------------------------------------------------ in-process ports
_CLOSED = object()


class QueuePort:
    """A port whose wire is two in-process queues.

    `rx` holds frames travelling to the switch (`feed` puts one there, `recv` takes it);
    `tx` holds frames the switch sent (`send` puts one there, `take` takes it)."""

    def __init__(
        self,
        name: str = "mem",
        rx: queue.SimpleQueue[Any] | None = None,
        tx: queue.SimpleQueue[Any] | None = None,
    ) -> None:
        self.name = name
        self.rx: queue.SimpleQueue[Any] = rx if rx is not None else queue.SimpleQueue()
        self.tx: queue.SimpleQueue[Any] = tx if tx is not None else queue.SimpleQueue()

    def send(self, data: bytes) -> None:
        self.tx.put(bytes(data))

    def recv(self, timeout: float | None = None) -> bytes | None:
        try:
            item = self.rx.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _CLOSED:
            self.rx.put(_CLOSED)  # every later recv sees it too
            raise PortClosed(self.name)
        return item  # type: ignore[no-any-return]

    def close(self) -> None:
        self.rx.put(_CLOSED)

    # the far end of the wire
    def feed(self, data: bytes) -> None:
        """A frame arrives from the wire."""
        self.rx.put(bytes(data))

    def take(self, timeout: float | None = 1.0) -> bytes | None:
        """The next frame the switch sent (None when none comes within `timeout` s)."""
        try:
            item = self.tx.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _CLOSED:  # the peer of a queue_link was closed
            self.tx.put(_CLOSED)
            return None
        return item  # type: ignore[no-any-return]

    def take_all(self) -> list[bytes]:
        """Every frame sent so far, without waiting."""
        out: list[bytes] = []
        while (item := self.take(timeout=0)) is not None:
            out.append(item)
        return out


def queue_link(a: str = "a", b: str = "b") -> tuple[QueuePort, QueuePort]:
    """Two ports joined by a cable: what one sends, the other receives."""
    ab: queue.SimpleQueue[Any] = queue.SimpleQueue()
    ba: queue.SimpleQueue[Any] = queue.SimpleQueue()
    return QueuePort(a, rx=ba, tx=ab), QueuePort(b, rx=ab, tx=ba)


class CpuPort:
    """The CPU port: frames the switch sends here go to every listener, not to a wire.
    Nothing arrives on it (P4Runtime packet-out is injected by the runtime directly)."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[bytes], None]] = []

    def add_listener(self, cb: Callable[[bytes], None]) -> None:
        self.listeners.append(cb)

    def send(self, data: bytes) -> None:
        for cb in list(self.listeners):
            try:
                cb(data)
            except Exception:
                log.exception("CPU port listener %r failed", cb)

    def recv(self, timeout: float | None = None) -> bytes | None:
        raise PortClosed("cpu")

    def close(self) -> None:
        pass


# ------------------------------------------------------------------ pcap files
class PcapError(ValueError):
    """A file that is not a classic pcap capture."""


@dataclass(slots=True, frozen=True)
class PcapRecord:
    ts_ns: int  # capture time, nanoseconds since the epoch
    data: bytes


_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": ("<", 1000),  # little-endian, microseconds
    b"\xa1\xb2\xc3\xd4": (">", 1000),
    b"\x4d\x3c\xb2\xa1": ("<", 1),  # nanoseconds
    b"\xa1\xb2\x3c\x4d": (">", 1),
}
LINKTYPE_ETHERNET = 1


def read_pcap(path: str | Path) -> Iterator[PcapRecord]:
    """The frames of a classic pcap file (micro- or nanosecond, either byte order)."""
    for ts_ns, data in _pcap_frames(path):
        yield PcapRecord(ts_ns, data)


def _pcap_frames(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """`read_pcap` as (nanoseconds, frame) pairs: what a replay needs, without a record
    object per frame. The file is read a megabyte at a time, not a read per record."""
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            raise PcapError(f"{path}: too short for a pcap header")
        if head[:4] == b"\x0a\x0d\x0d\x0a":
            raise PcapError(f"{path}: pcapng is not supported; save it as pcap")
        fmt = _PCAP_MAGIC.get(head[:4])
        if fmt is None:
            raise PcapError(f"{path}: not a pcap file")
        order, unit = fmt
        unpack = struct.Struct(order + "IIII").unpack_from
        buf = b""
        while chunk := f.read(_READ_CHUNK):
            buf += chunk
            off, end = 0, len(buf)
            while off + 16 <= end:
                sec, frac, incl, _orig = unpack(buf, off)
                stop = off + 16 + incl
                if stop > end:
                    break  # the rest of this record is in the next chunk
                yield sec * 1_000_000_000 + frac * unit, buf[off + 16 : stop]
                off = stop
            buf = buf[off:]
        # what is left is a truncated last record, as a capture cut short leaves it


_READ_CHUNK = 1 << 20
_RECORD = struct.Struct("<IIII")  # pcap record header: seconds, microseconds, lengths


class PcapWriter:
    """Writes a classic pcap (Ethernet, microseconds). The file header is written at once;
    frames are kept in memory until `flush()` or `close()` writes them with one call.

    `write(data, ts_ns)` stamps a frame with its own time (now when None). `append(data)`
    stamps it with the time of the batch it belongs to: the wall clock read at the first
    frame appended since the last `flush()`; the switch runtime flushes after every batch
    it delivers, so the frames one batch of input produced share one reading of the clock
    (and a record header per frame length, built once)."""

    def __init__(self, path: str | Path, snaplen: int = 65535) -> None:
        self.path = Path(path)
        self._f: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115 - kept open
        self._f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))
        self._f.flush()
        self.snaplen = snaplen
        self.count = 0  # frames written or appended, flushed or not
        self._parts: list[bytes] = []
        self._heads: dict[int, bytes] = {}  # record headers at the batch time, by length
        self._batch_ts: int | None = None

    def write(self, data: bytes, ts_ns: int | None = None) -> None:
        """One frame captured at `ts_ns` (nanoseconds since the epoch; now when None)."""
        if self._f is None:
            raise OSError(f"{self.path} is closed")
        self._add(data, time.time_ns() if ts_ns is None else ts_ns)

    def append(self, data: bytes) -> None:
        """One frame at the batch time (see the class)."""
        head = self._heads.get(len(data))
        if head is None:
            if self._f is None:
                raise OSError(f"{self.path} is closed")
            if self._batch_ts is None:
                self._batch_ts = time.time_ns()
            head = self._add(data, self._batch_ts)
            if len(data) <= self.snaplen:
                self._heads[len(data)] = head
            return
        self._parts += (head, data)
        self.count += 1

    def _add(self, data: bytes, ts_ns: int) -> bytes:
        sec, ns = divmod(ts_ns, 1_000_000_000)
        n = len(data)
        if n > self.snaplen:
            head = _RECORD.pack(sec, ns // 1000, self.snaplen, n)
            data = data[: self.snaplen]
        else:
            head = _RECORD.pack(sec, ns // 1000, n, n)
        self._parts += (head, data)
        self.count += 1
        return head

    def flush(self) -> None:
        """Write what was kept in memory to the file; the next `append` starts a batch."""
        self._batch_ts = None
        if self._heads:
            self._heads = {}
        if self._parts and self._f is not None:
            self._f.write(b"".join(self._parts))
            self._parts.clear()
            self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            try:
                self.flush()
            finally:
                self._f.close()
                self._f = None


class PcapFilePort:
    """A port backed by files: `send` appends to `out_path`; `recv` replays `in_path` (when
    given) frame by frame, as fast as it is read, then raises PortClosed.

    For `--use-files` the CLI passes no `in_path` and replays every port's input with
    `merge_pcaps`, which orders frames by timestamp across ports as BMv2 does."""

    def __init__(self, out_path: str | Path, in_path: str | Path | None = None) -> None:
        self.writer = PcapWriter(out_path)
        self._in = iter(read_pcap(in_path)) if in_path is not None else None
        self._closed = False
        self.send = self.writer.append  # type: ignore[method-assign]  # one call per frame, not two

    def send(self, data: bytes) -> None:
        """Append `data` to the output (at the time of the runtime's batch; see PcapWriter)."""
        self.writer.append(data)

    def flush(self) -> None:
        self.writer.flush()

    def recv(self, timeout: float | None = None) -> bytes | None:
        if self._closed or self._in is None:
            raise PortClosed("pcap")
        rec = next(self._in, None)
        if rec is None:
            raise PortClosed("pcap: end of input")
        return rec.data

    def close(self) -> None:
        self._closed = True
        self.writer.close()


def merge_pcaps(inputs: Mapping[int, str | Path]) -> Iterator[tuple[int, bytes]]:
    """(port, frame) for every frame of every port's input file, the earliest timestamp
    first (ties: the port listed first, then file order), like BMv2's pcap reader."""
    if len(inputs) == 1:  # nothing to merge
        ((port, path),) = inputs.items()
        for _ts, data in _pcap_frames(path):
            yield port, data
        return
    order = {port: i for i, port in enumerate(inputs)}

    def keyed(port: int, path: str | Path) -> Iterator[tuple[int, int, int, int, bytes]]:
        i = order[port]
        for seq, (ts_ns, data) in enumerate(_pcap_frames(path)):
            yield ts_ns, i, seq, port, data

    for _ts, _i, _seq, port, data in heapq.merge(*(keyed(p, f) for p, f in inputs.items())):
        yield port, data
