"""Traffic between hosts of a running fabric: `sprayfabric send SRC DST`.

A host is the far end of its access cable (a UDP socket on loopback, see wiring.py): this
module binds the destination host's end, sends Ethernet/IPv4/UDP frames into the source
host's switch port, one flow per source port, and counts what arrives at the destination.
In a BMv2 fabric a host is a network namespace: the frames are sent and received on its
interface (an AF_PACKET socket opened inside the namespace).
`roce=True` sends RoCEv2 (UDP 4791 with a BTH), which the default policy's INT watchlist
selects, so INT reports flow too.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from dataclasses import dataclass

from .control import HostState
from .veth import PACKET_OUTGOING, host_socket

__all__ = ["SendResult", "build_frame", "ipv4_frame", "send"]

ROCE_PORT = 4791
ECT0 = 0b10  # the IPv4 ECN field of an ECN-capable sender
CE = 0b11  # ... and of a packet a switch marked


def _csum(data: bytes) -> int:
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_frame(
    src: HostState,
    dst: HostState,
    udp: bytes,
    *,
    tos: int = 0,
    ident: int = 0,
    dont_fragment: bool = False,
    ttl: int = 64,
) -> bytes:
    """`udp` (header and payload) in IPv4 from `src` to `dst`, in Ethernet from `src` to
    its gateway."""
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        tos,
        20 + len(udp),
        ident,
        0x4000 if dont_fragment else 0,
        ttl,
        17,
        0,
        socket.inet_aton(src.ip),
        socket.inet_aton(dst.ip),
    )
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    eth = bytes.fromhex(src.gateway_mac.replace(":", "")) + bytes.fromhex(src.mac.replace(":", ""))
    return eth + b"\x08\x00" + ip + udp


def build_frame(
    src: HostState,
    dst: HostState,
    sport: int,
    seq: int,
    size: int = 128,
    roce: bool = False,
    ecn: bool = False,
) -> bytes:
    """An Ethernet/IPv4/UDP frame (RoCEv2 when `roce`) of about `size` bytes carrying `seq`;
    ECN-capable (ECT(0)) when `ecn`."""
    body = struct.pack("!I", seq)
    dport = 7
    if roce:  # BTH: RC SEND only, P_Key 0xffff, destination QP from the flow
        body = struct.pack("!BBHII", 0x04, 0, 0xFFFF, sport & 0xFFFFFF, seq & 0xFFFFFF) + body
        dport = ROCE_PORT
    body += bytes(max(0, size - 14 - 20 - 8 - len(body)))
    udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
    return ipv4_frame(src, dst, udp, tos=ECT0 if ecn else 0, ident=seq & 0xFFFF)


@dataclass(frozen=True, slots=True)
class SendResult:
    sent: int
    received: int
    seconds: float
    reordered: int  # frames that arrived after a later one of the same flow
    trimmed: int = 0  # arrived cut to their headers (a trimming switch), payload lost
    ce_marked: int = 0  # arrived with ECN Congestion Experienced

    @property
    def lost(self) -> int:
        return self.sent - self.received - self.trimmed


def send(
    src: HostState,
    dst: HostState,
    count: int,
    *,
    flows: int = 8,
    size: int = 128,
    roce: bool = False,
    ecn: bool = False,
    rate_pps: float = 2000.0,
    wait: float = 2.0,
) -> SendResult:
    """Send `count` frames from `src` to `dst` over `flows` flows at about `rate_pps`;
    count what reaches `dst` until `wait` s pass with nothing more (whole, trimmed to
    headers, CE-marked)."""
    if dst.netns is not None:  # a namespace host (BMv2 fabric): frames on its interface
        rx = host_socket(dst.netns, dst.iface)
    else:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            rx.bind(dst.address)
        except OSError as e:
            rx.close()
            raise OSError(
                f"cannot be host {dst.name} ({dst.address[0]}:{dst.address[1]}): {e}"
            ) from None
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    if src.netns is not None:
        tx = host_socket(src.netns, src.iface)

        def out(frame: bytes) -> None:
            tx.send(frame)
    else:
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

        def out(frame: bytes) -> None:
            tx.sendto(frame, src.switch_address)

    received = 0
    last_seq: dict[int, int] = {}
    reordered = trimmed = ce_marked = 0

    def take(timeout: float) -> bool:
        nonlocal received, reordered, trimmed, ce_marked
        ready, _, _ = select.select([rx], [], [], timeout)
        if not ready:
            return False
        data, addr = rx.recvfrom(65535)
        if dst.netns is not None and addr[2] == PACKET_OUTGOING:
            return True  # what the host itself sent (an AF_PACKET socket sees both ways)
        if len(data) < 42 or data[23] != 17 or data[30:34] != socket.inet_aton(dst.ip):
            return True
        sport = struct.unpack_from("!H", data, 34)[0]
        off = 42 + (12 if struct.unpack_from("!H", data, 36)[0] == ROCE_PORT else 0)
        if data[15] & 0b11 == CE:
            ce_marked += 1
        if len(data) < off + 4:  # cut to its headers on the way: the sequence number is gone
            trimmed += 1
            return True
        seq = struct.unpack_from("!I", data, off)[0]
        received += 1
        if seq < last_seq.get(sport, -1):
            reordered += 1
        last_seq[sport] = max(seq, last_seq.get(sport, -1))
        return True

    t0 = time.perf_counter()
    try:
        for i in range(count):
            frame = build_frame(src, dst, 20000 + i % flows, i, size, roce, ecn)
            out(frame)
            due = t0 + (i + 1) / rate_pps
            while (left := due - time.perf_counter()) > 0:
                take(left)
        while take(wait):
            pass
    finally:
        tx.close()
        rx.close()
    return SendResult(count, received, time.perf_counter() - t0, reordered, trimmed, ce_marked)
