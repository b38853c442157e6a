"""Linux interfaces as switch ports: `RawSocketPort` (AF_PACKET) and `disable_offloads`;
`p4rt_proto.netns.in_netns` opens one inside a network namespace.

A `RawSocketPort` receives through a PACKET_MMAP ring (`ring.RxRing`: no system call
per frame while frames wait) and sends on sockets of its own that receive nothing: `send`
puts one frame on the wire at once; `send_later` queues frames that `flush` writes into a
PACKET_MMAP transmit ring (`txring.TxRing`) and hands to the kernel with one system
call (the switch runtime flushes after every batch). It turns the interface's checksum
and segmentation offloads off, ignores the frames this host sent on the interface, puts
back VLAN tags the kernel moved into metadata, and completes checksums a peer left to
"hardware" (CHECKSUM_PARTIAL), because a user-space switch that forwards such a frame
unchanged would deliver a bad TCP/UDP checksum. Where the kernel refuses a receive ring,
frames are received with `recvmsg`; where it refuses a transmit ring, `send_later` sends
at once.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import logging
import os
import select
import socket
import struct
import time
from collections import deque
from collections.abc import Callable

from p4rt_proto.netns import in_netns

from . import PortClosed
from .ring import (
    PACKET_OUTGOING,
    SOL_PACKET,
    TP_STATUS_VLAN_VALID,
    VIRTIO_NET_HDR_F_NEEDS_CSUM,
    RxRing,
    complete_checksum,
    frame_size_for_mtu,
    insert_vlan,
)
from .txring import TxRing

__all__ = ["RawSocketPort", "disable_offloads"]

log = logging.getLogger("softswitch.ports")

ETH_P_ALL = 0x0003
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_AUXDATA = 8
PACKET_VNET_HDR = 15
PACKET_IGNORE_OUTGOING = 23
SO_RCVBUFFORCE = 33
_AUXDATA = struct.Struct("=IIIHHHH")  # tp_status, len, snaplen, mac, net, vlan_tci, vlan_tpid
_VNET = struct.Struct("=BBHHHH")  # flags, gso_type, hdr_len, gso_size, csum_start, csum_offset
_AUX_SPACE = socket.CMSG_SPACE(_AUXDATA.size)
SIOCGIFMTU = 0x8921
SIOCETHTOOL = 0x8946
_RING_BYTES = 2 << 20  # receive ring memory per port
_TX_SLOTS = 128  # transmit ring slots per port: a burst fits twice; few, so they stay cached
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


def _mtu(sock: socket.socket, iface: str) -> int:
    ifreq = fcntl.ioctl(sock.fileno(), SIOCGIFMTU, struct.pack("16si12x", iface.encode(), 0))
    return int(struct.unpack_from("i", ifreq, 16)[0])


class RawSocketPort:
    """A Linux interface through AF_PACKET sockets (root or CAP_NET_RAW).

    On opening, the interface's offloads are turned off (`offloads=False` keeps them) and it
    is put in promiscuous mode for as long as the port is open; the interface must be up.
    `netns` names a namespace (`ip netns add`) to open the interface in. `ring=False`
    receives with `recvmsg` instead of a PACKET_MMAP ring (`rcvbuf` bytes of socket buffer
    then hold the frames waiting; a ring holds about 2 MiB of slots). `tx_ring=False`
    makes `send_later` send each frame at once instead of through a transmit ring.

    `send(data)` puts a frame on the wire now (after any still queued by `send_later`);
    `send_later(data)` queues it and `flush()` sends the queue, in order, returning how
    many frames the interface refused (a switch runtime counts them as transmit errors).

    Received frames are the frames on the wire: frames sent out of the interface (by us or
    anyone on this host) are skipped, a VLAN tag the kernel stripped is put back, a checksum
    the sender left to offload is completed, and GSO super-frames (a peer with TSO/GSO on)
    are dropped and counted in `gso_dropped` (turn the peer's offloads off)."""

    def __init__(
        self,
        iface: str,
        *,
        netns: str | None = None,
        offloads: bool = False,
        rcvbuf: int = 4 << 20,
        ring: bool = True,
        tx_ring: bool = True,
    ) -> None:
        self.iface = iface
        self.netns = netns
        self.offload_results: dict[str, str] = {}
        self._gso_dropped = 0
        self._closed = False
        self._pending: deque[bytes] = deque()
        self._ring: RxRing | None = None
        self._txring: TxRing | None = None
        self._txring_sock: socket.socket | None = None
        self._refused = 0  # frames refused when `send` flushed the queue: for `flush` to count
        self._wake_r, self._wake_w = os.pipe()
        self._sock, self._tx = in_netns(netns, lambda: self._open(offloads, rcvbuf, ring, tx_ring))
        self._sock.setblocking(False)
        self._fd = self._sock.fileno()
        # one call per frame, not two: a list's append, or the socket's send
        self.send_later: Callable[[bytes], object] = (
            self._txring.queue if self._txring is not None else self._tx.send
        )

    @property
    def gso_dropped(self) -> int:
        """GSO super-frames received and dropped."""
        return self._gso_dropped + (self._ring.gso_dropped if self._ring else 0)

    @property
    def uses_ring(self) -> bool:
        """Whether frames are received through a PACKET_MMAP ring (else `recvmsg`)."""
        return self._ring is not None

    @property
    def uses_tx_ring(self) -> bool:
        """Whether `send_later` frames go out through a PACKET_MMAP transmit ring."""
        return self._txring is not None

    def _open(
        self, offloads: bool, rcvbuf: int, ring: bool, tx_ring: bool
    ) -> tuple[socket.socket, socket.socket]:
        if not offloads:
            try:
                self.offload_results = disable_offloads(self.iface)
            except OSError as e:
                log.warning("%s: cannot turn offloads off: %s", self.iface, e)
        # protocol 0 until bound: no frame of another interface is taken meanwhile
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        tx = None
        try:
            s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)  # before the ring, or EBUSY
            try:
                s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)  # Linux >= 4.20
            except OSError:
                pass  # outgoing frames are recognised by their packet type
            mtu = _mtu(s, self.iface)
            if ring:
                try:
                    size = frame_size_for_mtu(mtu)
                    self._ring = RxRing(s, self.iface, size, max(64, _RING_BYTES // size))
                except OSError as e:
                    log.info("%s: no receive ring (%s): receiving with recvmsg", self.iface, e)
            if self._ring is None:
                s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
                try:
                    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
                except OSError:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.bind((self.iface, ETH_P_ALL))
            ifindex = socket.if_nametoindex(self.iface)
            mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
            s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            # sending: protocol 0, so this socket receives nothing and needs no vnet header
            tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            tx.bind((self.iface, 0))
            if tx_ring:
                self._open_tx_ring(mtu, tx.send)
        except BaseException:
            if self._ring is not None:
                self._ring.close()
            s.close()
            if tx is not None:
                tx.close()
            raise
        return s, tx

    def _open_tx_ring(self, mtu: int, send_one: Callable[[bytes], object]) -> None:
        """A transmit ring on a socket of its own (frames longer than the MTU at opening
        go out through `send_one`); none, and a log line, when the kernel refuses it."""
        rs = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        try:
            self._txring = TxRing(rs, frame_size_for_mtu(mtu), _TX_SLOTS, mtu + 14, send_one)
            rs.bind((self.iface, 0))
        except OSError as e:
            log.info("%s: no transmit ring (%s): sending frame by frame", self.iface, e)
            if self._txring is not None:
                self._txring.close()
                self._txring = None
            rs.close()
            return
        self._txring_sock = rs

    def send(self, data: bytes) -> None:
        """Put `data` on the wire (OSError when the interface refuses it, e.g. above MTU),
        after the frames `send_later` queued (those it refuses, the next `flush` counts)."""
        if self._txring is not None and self._txring.waiting:
            self._refused = self.flush()
        self._tx.send(data)

    def flush(self) -> int:
        """Send the frames `send_later` queued, in order; returns how many the interface
        refused (down, gone, longer than its MTU), with those `send` flushed before."""
        refused = self._txring.flush() if self._txring is not None else 0
        if self._refused:
            refused += self._refused
            self._refused = 0
        return refused

    def recv(self, timeout: float | None = None) -> bytes | None:
        if self._pending:
            return self._pending.popleft()
        frames = self.recv_burst(timeout, 64)
        if not frames:
            return None
        self._pending.extend(frames[1:])
        return frames[0]

    def recv_burst(self, timeout: float | None, limit: int) -> list[bytes]:
        """Up to `limit` frames: those waiting now, or, when none waits, the first to come
        within `timeout` s (None: wait as long as it takes) with any that came with it;
        [] when none came."""
        pending = self._pending
        if pending:
            return [pending.popleft() for _ in range(min(limit, len(pending)))]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                raise PortClosed(self.iface)
            try:
                frames = self._ring.drain(limit) if self._ring is not None else self._read(limit)
            except (OSError, ValueError):  # ValueError: the ring was unmapped by close()
                if self._closed:
                    raise PortClosed(self.iface) from None
                raise
            if frames:
                return frames
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return []
            if self._wait(left):
                raise PortClosed(self.iface)

    def _read(self, limit: int) -> list[bytes]:
        """Without a ring: up to `limit` frames queued on the socket, one recvmsg each."""
        out: list[bytes] = []
        recvmsg, decode = self._sock.recvmsg, self._decode
        while len(out) < limit:
            try:
                raw, anc, _flags, addr = recvmsg(65536 + _VNET.size, _AUX_SPACE)
            except BlockingIOError:
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
            self._gso_dropped += 1
            if self._gso_dropped == 1:
                log.warning(
                    "%s: dropping GSO frames (%d bytes); turn TSO/GSO off on the peer",
                    self.iface,
                    len(frame),
                )
            return None
        if flags & VIRTIO_NET_HDR_F_NEEDS_CSUM:
            frame = complete_checksum(frame, cstart, coff)
        for level, kind, cdata in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= _AUXDATA.size:
                status, _l, _s, _m, _n, tci, tpid = _AUXDATA.unpack_from(cdata)
                if tci or status & TP_STATUS_VLAN_VALID:
                    frame = insert_vlan(frame, status, tci, tpid)
        return frame

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        if self._ring is not None:
            self._ring.close()
        if self._txring is not None:
            self._txring.close()
        if self._txring_sock is not None:
            self._txring_sock.close()
        self._tx.close()
        self._sock.close()
        # the pipe stays open until the port is collected: a recv may still select on it

    def __del__(self) -> None:
        for fd in (getattr(self, "_wake_r", -1), getattr(self, "_wake_w", -1)):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
