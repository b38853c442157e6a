"""Packet I/O for a running switch: in-process queues, pcap files, Linux interfaces, the CPU.

Every port speaks the `Port` protocol: `send(data)` puts a frame on the wire, `recv(timeout)`
returns the next frame from the wire (None when `timeout` seconds pass first) and raises
`PortClosed` once no frame will ever come (closed, end of a file, or a send-only port).
`SwitchRuntime` runs one receive thread per port; a port's `send` is only called with the
runtime's lock held, so a port needs no locking of its own for sending.

- `QueuePort`: in-process queues, for tests and simulators; `queue_link()` wires two ports
  back to back (a cable between two switches).
- `CpuPort`: packets the switch sends to its CPU port go to listeners (P4Runtime packet-in).
- `PcapFilePort` and `merge_pcaps`: pcap files as `simple_switch --use-files` uses them
  (`<iface>_in.pcap` replayed in timestamp order across all ports, `<iface>_out.pcap`
  written).
- `RawSocketPort`: a Linux interface (a veth end for PTF and Mininet) through an AF_PACKET
  socket. It turns the interface's checksum and segmentation offloads off, ignores the
  frames it sent itself, puts back VLAN tags the kernel moved into metadata, and completes
  checksums a peer left to "hardware" (CHECKSUM_PARTIAL), because a user-space switch that
  forwards such a frame unchanged would deliver a bad TCP/UDP checksum.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import heapq
import logging
import os
import queue
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

__all__ = [
    "CpuPort",
    "PcapError",
    "PcapFilePort",
    "PcapRecord",
    "PcapWriter",
    "Port",
    "PortClosed",
    "QueuePort",
    "RawSocketPort",
    "disable_offloads",
    "in_netns",
    "merge_pcaps",
    "queue_link",
    "read_pcap",
]

log = logging.getLogger("softswitch.ports")
T = TypeVar("T")


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


# ------------------------------------------------------------------ Linux interfaces
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_AUXDATA = 8
PACKET_VNET_HDR = 15
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
_AUXDATA = struct.Struct("=IIIHHHH")  # tp_status, len, snaplen, mac, net, vlan_tci, vlan_tpid
_VNET = struct.Struct("=BBHHHH")  # flags, gso_type, hdr_len, gso_size, csum_start, csum_offset
_VNET_NONE = bytes(_VNET.size)
_AUX_SPACE = socket.CMSG_SPACE(_AUXDATA.size)
SIOCETHTOOL = 0x8946
CLONE_NEWNET = 0x40000000
# legacy ethtool "set" commands, each taking a struct ethtool_value {u32 cmd, u32 data}
_OFFLOADS = {
    "rx": 0x15,  # ETHTOOL_SRXCSUM
    "tx": 0x17,  # ETHTOOL_STXCSUM
    "sg": 0x19,  # ETHTOOL_SSG
    "tso": 0x1F,  # ETHTOOL_STSO
    "gso": 0x24,  # ETHTOOL_SGSO
    "gro": 0x2C,  # ETHTOOL_SGRO
}


def disable_offloads(iface: str) -> dict[str, str]:
    """`ethtool -K IFACE rx off tx off sg off tso off gso off gro off` through the ioctl
    (in the caller's network namespace). Returns {feature: "off" or the error} per feature;
    a device that cannot change a feature keeps it. Needs CAP_NET_ADMIN.

    Call it on hosts' interfaces too (Mininet): a host that leaves its transmit checksum to
    the veth sends TCP/UDP frames with unfinished checksums. `RawSocketPort` repairs those,
    but a host with offloads off needs no repair."""
    results: dict[str, str] = {}
    name = iface.encode()
    if len(name) > 15:
        raise ValueError(f"interface name too long: {iface}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for feature, cmd in _OFFLOADS.items():
            value = array.array("I", [cmd, 0])
            ifreq = struct.pack("16sP", name, value.buffer_info()[0])
            try:
                fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifreq)
                results[feature] = "off"
            except OSError as e:
                results[feature] = os.strerror(e.errno or 0)
    return results


def in_netns(netns: str | None, fn: Callable[[], T]) -> T:
    """Call `fn` inside network namespace `netns` (a name under /var/run/netns, as
    `ip netns add` makes) and return its result. Sockets made there stay in that namespace.
    Runs on a short-lived thread, so the caller's own namespace never changes."""
    if netns is None:
        return fn()
    result: list[Any] = []

    import ctypes  # only here: most switches never enter a namespace

    def body() -> None:
        try:
            fd = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns {netns}: {os.strerror(err)}")
            finally:
                os.close(fd)
            result.append((True, fn()))
        except BaseException as e:  # handed to the caller
            result.append((False, e))

    t = threading.Thread(target=body, name=f"netns-{netns}")
    t.start()
    t.join()
    ok, value = result[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _complete_checksum(frame: bytes, start: int, offset: int) -> bytes:
    """Finish a CHECKSUM_PARTIAL frame as the NIC would: the ones'-complement sum of
    frame[start:] (whose checksum field holds the pseudo-header sum) goes, complemented,
    into the field at start + offset (0 becomes 0xffff, as the kernel does)."""
    at = start + offset
    if at + 2 > len(frame) or start >= len(frame):
        return frame
    part = frame[start:]
    if len(part) & 1:
        part += b"\0"
    s = sum(array.array("H", part))  # native order: the sum is byte-order independent
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    csum = (~s & 0xFFFF) or 0xFFFF
    return frame[:at] + struct.pack("=H", csum) + frame[at + 2 :]


class RawSocketPort:
    """A Linux interface through an AF_PACKET socket (root or CAP_NET_RAW).

    On opening, the interface's offloads are turned off (`offloads=False` keeps them) and it
    is put in promiscuous mode for as long as the socket is open; the interface must be up.
    `netns` names a namespace (`ip netns add`) to open the interface in.

    Received frames are the frames on the wire: our own transmissions are skipped
    (PACKET_OUTGOING), a VLAN tag the kernel stripped is put back, a checksum the sender
    left to offload is completed, and GSO super-frames (a peer with TSO/GSO on) are
    dropped and counted in `gso_dropped` (turn the peer's offloads off)."""

    def __init__(
        self,
        iface: str,
        *,
        netns: str | None = None,
        offloads: bool = False,
        rcvbuf: int = 4 << 20,
    ) -> None:
        self.iface = iface
        self.netns = netns
        self.gso_dropped = 0
        self.offload_results: dict[str, str] = {}
        self._closed = False
        self._wake_r, self._wake_w = os.pipe()
        self._sock = in_netns(netns, lambda: self._open(offloads, rcvbuf))
        self._sock.setblocking(False)
        self._fd = self._sock.fileno()

    def _open(self, offloads: bool, rcvbuf: int) -> socket.socket:
        if not offloads:
            try:
                self.offload_results = disable_offloads(self.iface)
            except OSError as e:
                log.warning("%s: cannot turn offloads off: %s", self.iface, e)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            s.bind((self.iface, ETH_P_ALL))
            ifindex = socket.if_nametoindex(self.iface)
            mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
            s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
            try:
                s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)  # Linux >= 4.20
            except OSError:
                pass  # recv filters PACKET_OUTGOING itself
            try:
                s.setsockopt(socket.SOL_SOCKET, 33, rcvbuf)  # SO_RCVBUFFORCE
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        except BaseException:
            s.close()
            raise
        return s

    def send(self, data: bytes) -> None:
        self._sock.send(_VNET_NONE + data)

    def recv(self, timeout: float | None = None) -> bytes | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                raise PortClosed(self.iface)
            try:
                raw, anc, _flags, addr = self._sock.recvmsg(65536 + _VNET.size, _AUX_SPACE)
            except BlockingIOError:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                if self._wait(left):
                    raise PortClosed(self.iface) from None
                continue
            except OSError:
                if self._closed:
                    raise PortClosed(self.iface) from None
                raise
            if addr[2] == PACKET_OUTGOING:
                continue
            frame = self._decode(raw, anc)
            if frame is not None:
                return frame

    def recv_burst(self, timeout: float | None, limit: int) -> list[bytes]:
        """Up to `limit` frames: the first as `recv` waits for it (none after `timeout`),
        then those already queued, without waiting (one lock hand-off for a burst)."""
        first = self.recv(timeout)
        if first is None:
            return []
        out = [first]
        recvmsg, decode = self._sock.recvmsg, self._decode
        while len(out) < limit:
            try:
                raw, anc, _flags, addr = recvmsg(65536 + _VNET.size, _AUX_SPACE)
            except OSError:  # nothing queued (or closed: the next recv says so)
                break
            if addr[2] == PACKET_OUTGOING:
                continue
            frame = decode(raw, anc)
            if frame is not None:
                out.append(frame)
        return out

    def _wait(self, timeout: float | None) -> bool:
        """Block until a frame may be readable; True when the port was closed meanwhile."""
        try:
            ready, _, _ = select.select([self._fd, self._wake_r], [], [], timeout)
        except (OSError, ValueError):
            if self._closed:
                return True
            raise
        return self._wake_r in ready

    def _decode(self, raw: bytes, anc: list[tuple[int, int, bytes]]) -> bytes | None:
        flags, gso_type, _hl, _gs, cstart, coff = _VNET.unpack_from(raw)
        frame = raw[_VNET.size :]
        if gso_type:
            self.gso_dropped += 1
            if self.gso_dropped == 1:
                log.warning(
                    "%s: dropping GSO frames (%d bytes); turn TSO/GSO off on the peer",
                    self.iface,
                    len(frame),
                )
            return None
        if flags & VIRTIO_NET_HDR_F_NEEDS_CSUM:
            frame = _complete_checksum(frame, cstart, coff)
        for level, kind, cdata in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= _AUXDATA.size:
                status, _l, _s, _m, _n, tci, tpid = _AUXDATA.unpack_from(cdata)
                if tci or status & TP_STATUS_VLAN_VALID:
                    if not status & TP_STATUS_VLAN_TPID_VALID:
                        tpid = 0x8100
                    frame = frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]
        return frame

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._sock.close()
        # the pipe stays open until the port is collected: a recv may still select on it

    def __del__(self) -> None:
        for fd in (getattr(self, "_wake_r", -1), getattr(self, "_wake_w", -1)):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
