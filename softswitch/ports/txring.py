"""A transmit ring for an AF_PACKET socket (PACKET_MMAP, TPACKET_V2).

`send` on an AF_PACKET socket costs a system call per frame: its entry and exit, a buffer
allocated and filled from user memory, then the device's transmit (for a veth, the far
end's receive too). With a transmit ring, the frames of a batch are written into slots of
memory this process has mapped and one `send` hands them all to the kernel, which walks the
slots in order, transmits each and marks it free again once the device is done with it.

A slot holds a `tpacket2_hdr` (status, length) and the frame 32 bytes after its start
(TPACKET2_HDRLEN less the sockaddr_ll the kernel does not use for sending). The kernel
reads the ring only during `send`, so a slot's header may be written in any order. The
socket has PACKET_LOSS on: a frame the device refuses (longer than an MTU lowered since
the port opened) is dropped instead of stopping the ring. Frames longer than the MTU at
opening go out with a plain `send` on another socket, which says why it refuses them.

`flush` does not wait for the device (MSG_DONTWAIT): a qdisc that holds frames back (a
rate limit, a delay) holds their slots, and only a full ring makes the writer wait.
"""

from __future__ import annotations

import contextlib
import mmap
import select
import socket
import struct
import sys
import time
from collections.abc import Callable

from .ring import SOL_PACKET, map_ring

__all__ = ["TxRing"]

PACKET_LOSS = 14
PACKET_TX_RING = 13
TP_STATUS_AVAILABLE = 0
TP_STATUS_SEND_REQUEST = 1
_DATA = 32  # TPACKET2_HDRLEN - sizeof(struct sockaddr_ll): where the frame starts in a slot
_FREE = bytes(4)  # TP_STATUS_AVAILABLE
_STATUS_BYTE = 0 if sys.byteorder == "little" else 3  # the status's low byte
_FULL_WAIT_S = 5.0  # a full ring whose frames the device keeps this long: give up on them


class TxRing:
    """The transmit ring of `sock` (an AF_PACKET socket bound to its interface, with no
    ring yet): `frames` slots of `frame_size` bytes, taking frames of up to `max_len`
    bytes. `queue` (the `append` of the list `waiting`) takes a frame; `flush` writes the
    queued frames into the ring and hands them to the kernel with one system call. Raises
    OSError when the kernel refuses the ring."""

    def __init__(
        self,
        sock: socket.socket,
        frame_size: int,
        frames: int,
        max_len: int,
        send_one: Callable[[bytes], object],
    ) -> None:
        self.frame_size = frame_size
        self.max_len = min(max_len, frame_size - _DATA)
        self._send_one = send_one  # frames too long for a slot
        self._sock = sock
        self._head = 0
        self.waiting: list[bytes] = []  # frames queued, not yet flushed
        self.queue = self.waiting.append
        # per frame length: one call writes a slot's status, length and frame
        self._writers: dict[int, Callable[..., None]] = {}
        sock.setsockopt(SOL_PACKET, PACKET_LOSS, 1)  # before the ring, or EBUSY
        mm, self.frames = map_ring(sock, PACKET_TX_RING, frame_size, frames, mmap.PAGESIZE)
        self._mm: mmap.mmap | None = mm

    def flush(self) -> int:
        """Send the queued frames, in order; returns how many were refused (the interface
        is down or gone, a frame is longer than its MTU, or the ring was closed)."""
        queued = self.waiting
        if not queued:
            return 0
        count = len(queued)
        mm = self._mm
        if mm is not None:
            try:
                return self._flush(mm, queued)
            except ValueError:  # the ring was unmapped by close() on another thread
                if self._mm is not None:
                    raise
        queued.clear()  # closed: nothing goes out any more
        return count

    def _flush(self, mm: mmap.mmap, queued: list[bytes]) -> int:
        refused = 0
        i, n, size, max_len = self._head, self.frames, self.frame_size, self.max_len
        written = 0  # slots filled since the last hand-over
        writers = self._writers
        sb = _STATUS_BYTE
        for data in queued:
            off = i * size
            length = len(data)
            if length > max_len or mm[off + sb]:  # too long for a slot, or the ring is full
                self._head = i
                refused += self._kick(written)  # what came before it goes first
                written = 0
                i = self._head
                if length > max_len:
                    refused += self._send_long(data)
                    continue
                off = i * size
                if not self._wait_free(off):
                    refused += 1
                    continue
            write = writers.get(length)
            if write is None:
                write = writers[length] = struct.Struct(f"=II{_DATA - 8}x{length}s").pack_into
            write(mm, off, TP_STATUS_SEND_REQUEST, length, data)
            written += 1
            i = i + 1 if i + 1 < n else 0
        queued.clear()
        self._head = i
        return refused + self._kick(written)

    def _kick(self, count: int) -> int:
        """Hand the `count` slots filled before the head to the kernel; returns how many
        it refused (the interface is down or gone: their slots are freed again)."""
        if not count:
            return 0
        mm = self._mm
        if mm is None:
            raise ValueError("ring closed")
        last = ((self._head - 1) % self.frames) * self.frame_size + _STATUS_BYTE
        deadline = None
        while True:
            try:
                self._sock.send(b"", socket.MSG_DONTWAIT)
            except BlockingIOError:
                pass
            except OSError:
                return self._take_back(count)
            if mm[last] != TP_STATUS_SEND_REQUEST:
                return 0
            # the socket's send buffer is full (a qdisc holds frames): wait for room
            now = time.monotonic()
            if deadline is None:
                deadline = now + _FULL_WAIT_S
            elif now > deadline:
                return self._take_back(count)
            select.select([], [self._sock], [], 0.05)

    def _take_back(self, count: int) -> int:
        """Of the `count` slots filled before the head, free those the kernel did not take
        and move the head back to the first of them (where the kernel looks next);
        returns how many."""
        mm = self._mm
        if mm is None:
            raise ValueError("ring closed")
        n, size = self.frames, self.frame_size
        start = (self._head - count) % n
        first = None
        for k in range(count):
            j = (start + k) % n
            if first is None and mm[j * size + _STATUS_BYTE] == TP_STATUS_SEND_REQUEST:
                first = k
            if first is not None:
                mm[j * size : j * size + 4] = _FREE
        if first is None:
            return 0
        self._head = (start + first) % n
        return count - first

    def _send_long(self, data: bytes) -> int:
        try:
            self._send_one(data)
        except OSError:
            return 1
        return 0

    def _wait_free(self, off: int) -> bool:
        """Wait until the device gives back the slot at `off`; False after a long wait."""
        mm = self._mm
        if mm is None:
            raise ValueError("ring closed")
        deadline = time.monotonic() + _FULL_WAIT_S
        while mm[off + _STATUS_BYTE]:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def close(self) -> None:
        mm, self._mm = self._mm, None
        self.waiting.clear()
        if mm is not None:
            with contextlib.suppress(BufferError):
                mm.close()
