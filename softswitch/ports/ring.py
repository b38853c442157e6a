"""A receive ring for an AF_PACKET socket (PACKET_MMAP, TPACKET_V2), and the repairs a
frame from a Linux interface needs before a switch may forward it.

With a ring, the kernel copies each frame it hands to the socket into a slot of memory
that this process has mapped, marks the slot as the user's, and moves on; the process reads
the frame from the slot and gives the slot back by marking it the kernel's. Taking a frame
costs no system call and no buffer allocation: a switch busy forwarding only sleeps in
`select` when the ring is empty. (`recvmsg` per frame, with the ancillary data the switch
needs, costs several microseconds in Python: as much as a third of what a small program
spends on the frame itself.)

A slot holds a `tpacket2_hdr` (status, lengths, offsets, the kernel's receive time, the VLAN
tag the kernel took out of the frame), the `sockaddr_ll` (whose packet type says whether
the frame was one this host sent) and, as the socket has PACKET_VNET_HDR on, a
`virtio_net_hdr` just before the frame (whether the sender left the checksum to
"hardware", whether it is a GSO super-frame). Slots are `frame_size` bytes: a frame longer
than a slot holds (the interface's MTU raised after the ring was made) is dropped and
counted, as a NIC drops a frame above its MTU.

The slot's status is read before its contents (first in the one `struct` reading of the
header) and written last; x86-64 keeps stores and loads in that order, and the kernel
orders its own side with barriers.
"""

from __future__ import annotations

import array
import contextlib
import logging
import mmap
import socket
import struct

__all__ = ["RxRing", "complete_checksum", "frame_size_for_mtu"]

log = logging.getLogger("softswitch.ports")

SOL_PACKET = 263
PACKET_RX_RING = 5
PACKET_VERSION = 10
TPACKET_V2 = 1
PACKET_OUTGOING = 4
TP_STATUS_USER = 1
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1

# tpacket2_hdr: status, len, snaplen, mac, net, sec, nsec, vlan_tci, vlan_tpid (+4 padding)
_TP2 = struct.Struct("=IIIHHIIHH")
_TP2_ALIGNED = 32  # TPACKET_ALIGN(sizeof(struct tpacket2_hdr)): the sockaddr_ll follows
_SLL_PKTTYPE = _TP2_ALIGNED + 10  # sockaddr_ll: family, protocol, ifindex, hatype, pkttype
_VNET = struct.Struct("=BBHHHH")  # flags, gso_type, hdr_len, gso_size, csum_start, csum_offset
# where the kernel puts an Ethernet frame in a slot: TPACKET_ALIGN(TPACKET2_HDRLEN + 16)
# plus the virtio_net_hdr, minus the 14-byte MAC header
_FRAME_OFFSET = 80 + _VNET.size - 14
# what `drain` needs of a slot whose frame is at _FRAME_OFFSET, in one reading: tp_status,
# tp_len, tp_snaplen, tp_mac, the sockaddr_ll's packet type, the virtio flags and gso_type
_SLOT = struct.Struct(
    f"=IIIH{_SLL_PKTTYPE - 14}xB{_FRAME_OFFSET - _VNET.size - _SLL_PKTTYPE - 1}xBB"
)
_TPACKET_REQ = struct.Struct("=IIII")  # block_size, block_nr, frame_size, frame_nr
_FREE = bytes(4)  # TP_STATUS_KERNEL


def frame_size_for_mtu(mtu: int) -> int:
    """A slot size (a power of two, at least 2 KiB) that holds a frame of an interface
    with this MTU, with its MAC header, one VLAN tag left in it and the slot's headers."""
    need = _FRAME_OFFSET + 14 + 4 + 4 + mtu
    size = 2048
    while size < need:
        size *= 2
    return size


def complete_checksum(frame: bytes, start: int, offset: int) -> bytes:
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


def insert_vlan(frame: bytes, status: int, tci: int, tpid: int) -> bytes:
    """Put back the VLAN tag the kernel moved into the frame's metadata."""
    if not status & TP_STATUS_VLAN_TPID_VALID:
        tpid = 0x8100
    return frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]


def map_ring(
    sock: socket.socket, option: int, frame_size: int, frames: int, min_block: int
) -> tuple[mmap.mmap, int]:
    """Give `sock` a TPACKET_V2 ring (`option`: PACKET_RX_RING or PACKET_TX_RING) of at
    least `frames` slots of `frame_size` bytes, in blocks of at least `min_block` bytes
    holding whole slots, and map it: (the mapping, the number of slots). OSError when the
    kernel refuses the ring."""
    block = max(frame_size, min_block)
    per_block = block // frame_size
    blocks = max(1, -(-frames // per_block))
    slots = blocks * per_block
    sock.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
    sock.setsockopt(SOL_PACKET, option, _TPACKET_REQ.pack(block, blocks, frame_size, slots))
    mm = mmap.mmap(sock.fileno(), block * blocks, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    return mm, slots


class RxRing:
    """The receive ring of `sock` (an AF_PACKET socket with PACKET_VNET_HDR on, not yet
    bound to a ring): `frames` slots of `frame_size` bytes. `drain(limit)` takes the frames
    waiting in the ring; the socket is readable (select) when one waits. Raises OSError
    when the kernel refuses the ring."""

    def __init__(self, sock: socket.socket, name: str, frame_size: int, frames: int) -> None:
        self.name = name
        self.frame_size = frame_size
        self.gso_dropped = 0
        self.oversize_dropped = 0
        self._head = 0
        mm, self.frames = map_ring(sock, PACKET_RX_RING, frame_size, frames, 1 << 16)
        self._mm: mmap.mmap | None = mm
        self._offsets = list(range(0, self.frames * frame_size, frame_size))  # of each slot

    def drain(self, limit: int) -> list[bytes]:
        """Up to `limit` frames waiting in the ring, oldest first, repaired (see
        `RawSocketPort`); our own transmissions and dropped frames are skipped. Raises
        ValueError once the ring is closed."""
        mm = self._mm
        if mm is None:
            raise ValueError("ring closed")
        out: list[bytes] = []
        append = out.append
        head = self._head
        unpack = _SLOT.unpack_from
        free = _FREE
        taken = 0
        # the slots from the head on, up to the ring's end (the next call goes on from 0)
        for off in self._offsets[head : head + limit]:
            status, length, snap, mac, pkttype, vflags, gso = unpack(mm, off)
            if not status & TP_STATUS_USER:
                break
            # the common frame: whole, received (not sent), no virtio flags (no checksum to
            # complete) and no GSO, no VLAN tag taken out
            if (
                snap == length
                and mac == _FRAME_OFFSET
                and not (vflags or gso or status & TP_STATUS_VLAN_VALID)
                and pkttype != PACKET_OUTGOING
            ):
                append(mm[off + mac : off + mac + snap])
            else:
                frame = self._unusual(mm, off, status)
                if frame is not None:
                    append(frame)
            mm[off : off + 4] = free  # the slot goes back to the kernel
            taken += 1
        head += taken
        self._head = head if head < self.frames else 0
        return out

    def _unusual(self, mm: mmap.mmap, off: int, status: int) -> bytes | None:
        """A slot whose frame is not to be taken as it is: ours (None), cut short (None),
        a GSO super-frame (None), or one to repair (its checksum, its VLAN tag)."""
        _st, length, snap, mac, _net, _sec, _nsec, tci, tpid = _TP2.unpack_from(mm, off)
        start = off + mac
        if mm[off + _SLL_PKTTYPE] == PACKET_OUTGOING:
            return None
        if snap < length:
            self._oversize(length)
            return None
        flags, gso_type, _hl, _gs, cstart, coff = _VNET.unpack_from(mm, start - _VNET.size)
        if gso_type:
            self._gso(length)
            return None
        frame = mm[start : start + snap]
        if flags & VIRTIO_NET_HDR_F_NEEDS_CSUM:
            frame = complete_checksum(frame, cstart, coff)
        if status & TP_STATUS_VLAN_VALID or tci:
            frame = insert_vlan(frame, status, tci, tpid)
        return frame

    def _gso(self, length: int) -> None:
        self.gso_dropped += 1
        if self.gso_dropped == 1:
            log.warning(
                "%s: dropping GSO frames (%d bytes); turn TSO/GSO off on the peer",
                self.name,
                length,
            )

    def _oversize(self, length: int) -> None:
        self.oversize_dropped += 1
        if self.oversize_dropped == 1:
            log.warning(
                "%s: dropping frames longer than the receive ring's %d-byte slots (%d bytes); "
                "was the MTU raised after the switch opened the interface?",
                self.name,
                self.frame_size,
                length,
            )

    def close(self) -> None:
        mm, self._mm = self._mm, None
        if mm is not None:
            with contextlib.suppress(BufferError):
                mm.close()
