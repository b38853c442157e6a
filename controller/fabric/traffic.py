"""Traffic between hosts of a running fabric: `sprayfabric send SRC DST`.

A host is the far end of its access cable (a UDP socket on loopback, see wiring.py): this
module binds the destination host's end, sends Ethernet/IPv4/UDP frames into the source
host's switch port, one flow per source port, and counts what arrives at the destination.
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

__all__ = ["SendResult", "build_frame", "send"]

ROCE_PORT = 4791


def _csum(data: bytes) -> int:
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def build_frame(
    src: HostState, dst: HostState, sport: int, seq: int, size: int = 128, roce: bool = False
) -> bytes:
    """An Ethernet/IPv4/UDP frame (RoCEv2 when `roce`) of about `size` bytes carrying `seq`."""
    body = struct.pack("!I", seq)
    dport = 7
    if roce:  # BTH: RC SEND only, P_Key 0xffff, destination QP from the flow
        body = struct.pack("!BBHII", 0x04, 0, 0xFFFF, sport & 0xFFFFFF, seq & 0xFFFFFF) + body
        dport = ROCE_PORT
    body += bytes(max(0, size - 14 - 20 - 8 - len(body)))
    udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(udp),
        seq & 0xFFFF,
        0,
        64,
        17,
        0,
        socket.inet_aton(src.ip),
        socket.inet_aton(dst.ip),
    )
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    eth = bytes.fromhex(src.gateway_mac.replace(":", "")) + bytes.fromhex(src.mac.replace(":", ""))
    return eth + b"\x08\x00" + ip + udp


@dataclass(frozen=True, slots=True)
class SendResult:
    sent: int
    received: int
    seconds: float
    reordered: int  # frames that arrived after a later one of the same flow


def send(
    src: HostState,
    dst: HostState,
    count: int,
    *,
    flows: int = 8,
    size: int = 128,
    roce: bool = False,
    rate_pps: float = 2000.0,
    wait: float = 2.0,
) -> SendResult:
    """Send `count` frames from `src` to `dst` over `flows` flows at about `rate_pps`;
    count what reaches `dst` until `wait` s pass with nothing more."""
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    try:
        rx.bind(dst.address)
    except OSError as e:
        rx.close()
        raise OSError(
            f"cannot be host {dst.name} ({dst.address[0]}:{dst.address[1]}): {e}"
        ) from None
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    received = 0
    last_seq: dict[int, int] = {}
    reordered = 0

    def take(timeout: float) -> bool:
        nonlocal received, reordered
        ready, _, _ = select.select([rx], [], [], timeout)
        if not ready:
            return False
        data = rx.recv(65535)
        if len(data) < 42 or data[23] != 17:
            return True
        sport = struct.unpack_from("!H", data, 34)[0]
        off = 42 + (12 if struct.unpack_from("!H", data, 36)[0] == ROCE_PORT else 0)
        seq = struct.unpack_from("!I", data, off)[0]
        received += 1
        if seq < last_seq.get(sport, -1):
            reordered += 1
        last_seq[sport] = max(seq, last_seq.get(sport, -1))
        return True

    t0 = time.perf_counter()
    try:
        for i in range(count):
            frame = build_frame(src, dst, 20000 + i % flows, i, size, roce)
            tx.sendto(frame, src.switch_address)
            due = t0 + (i + 1) / rate_pps
            while (left := due - time.perf_counter()) > 0:
                take(left)
        while take(wait):
            pass
    finally:
        tx.close()
        rx.close()
    return SendResult(count, received, time.perf_counter() - t0, reordered)
