"""Hand-built packets for the fabric tests (scapy is not a dependency yet).

Builders return bytes; `Frame` describes a UDP/TCP/RoCEv2 packet whose expected forms
are derived by named transformations (`route`, `mark_ce`, ...), so a test states only
what the switch should change.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, replace

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_ARP = 0x0806
ETH_VLAN = 0x8100
PROTO_TCP = 6
PROTO_UDP = 17
ROCE_PORT = 4791
BTH_RC_SEND_ONLY = 0x04


def mac(s: str) -> bytes:
    return bytes.fromhex(s.replace(":", ""))


def mac_int(s: str) -> int:
    return int.from_bytes(mac(s), "big")


def ip_int(s: str) -> int:
    return int(ipaddress.ip_address(s))


def ip_bytes(s: str) -> bytes:
    return ipaddress.ip_address(s).packed


def csum16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ethernet(dst: str, src: str, ethertype: int) -> bytes:
    return mac(dst) + mac(src) + struct.pack("!H", ethertype)


def ipv4(
    src: str,
    dst: str,
    proto: int,
    payload_len: int,
    *,
    ttl: int = 64,
    dscp: int = 0,
    ecn: int = 0,
    ident: int = 0,
    ihl: int = 5,
    checksum: int | None = None,
) -> bytes:
    hdr = struct.pack(
        "!BBHHHBBH4s4s",
        (4 << 4) | ihl,
        (dscp << 2) | ecn,
        20 + payload_len,
        ident,
        0,
        ttl,
        proto,
        0,
        ip_bytes(src),
        ip_bytes(dst),
    )
    c = csum16(hdr) if checksum is None else checksum
    return hdr[:10] + struct.pack("!H", c) + hdr[12:]


def ipv6(
    src: str,
    dst: str,
    next_hdr: int,
    payload_len: int,
    *,
    hop_limit: int = 64,
    dscp: int = 0,
    ecn: int = 0,
) -> bytes:
    first = (6 << 28) | (dscp << 22) | (ecn << 20)
    return (
        struct.pack("!IHBB", first, payload_len, next_hdr, hop_limit)
        + ip_bytes(src)
        + ip_bytes(dst)
    )


def udp(sport: int, dport: int, payload_len: int, checksum: int = 0) -> bytes:
    return struct.pack("!HHHH", sport, dport, 8 + payload_len, checksum)


def tcp(sport: int, dport: int) -> bytes:
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x10, 1024, 0, 0)


def bth(opcode: int, qp: int, psn: int = 0, pkey: int = 0xFFFF, becn: int = 0) -> bytes:
    return struct.pack("!BBHII", opcode, 0, pkey, (becn << 30) | qp, psn & 0xFFFFFF)


def arp(oper: int, sha: str, spa: str, tha: str, tpa: str) -> bytes:
    return (
        struct.pack("!HHBBH", 1, ETH_IPV4, 6, 4, oper)
        + mac(sha)
        + ip_bytes(spa)
        + mac(tha)
        + ip_bytes(tpa)
    )


@dataclass(frozen=True)
class Frame:
    """An IPv4/IPv6 packet with a UDP, TCP or RoCEv2 (UDP 4791 + BTH) header."""

    src: str = "10.0.1.1"
    dst: str = "10.0.2.1"
    smac: str = "00:00:00:00:01:01"
    dmac: str = "00:00:00:00:aa:01"
    l4: str = "udp"  # udp, tcp, roce
    sport: int = 1234
    dport: int = 80
    qp: int = 0x12
    psn: int = 0
    ttl: int = 64
    dscp: int = 0
    ecn: int = 0
    ident: int = 0
    payload: bytes = bytes(range(32))
    udp_checksum: int = 0

    @property
    def v6(self) -> bool:
        return ":" in self.src

    def l4_bytes(self) -> bytes:
        if self.l4 == "tcp":
            return tcp(self.sport, self.dport) + self.payload
        body = self.payload
        dport = self.dport
        if self.l4 == "roce":
            body = bth(BTH_RC_SEND_ONLY, self.qp, self.psn) + body
            dport = ROCE_PORT
        return udp(self.sport, dport, len(body), self.udp_checksum) + body

    def bytes(self) -> bytes:
        l4 = self.l4_bytes()
        proto = PROTO_TCP if self.l4 == "tcp" else PROTO_UDP
        if self.v6:
            l3 = ipv6(
                self.src, self.dst, proto, len(l4), hop_limit=self.ttl, dscp=self.dscp, ecn=self.ecn
            )
            return ethernet(self.dmac, self.smac, ETH_IPV6) + l3 + l4
        l3 = ipv4(
            self.src,
            self.dst,
            proto,
            len(l4),
            ttl=self.ttl,
            dscp=self.dscp,
            ecn=self.ecn,
            ident=self.ident,
        )
        return ethernet(self.dmac, self.smac, ETH_IPV4) + l3 + l4


def route(f: Frame, smac: str, dmac: str, hops: int = 1) -> Frame:
    """What a router makes of `f`: new MACs, TTL/hop limit down by one per hop."""
    return replace(f, smac=smac, dmac=dmac, ttl=f.ttl - hops)


def mark_ce(f: Frame) -> Frame:
    return replace(f, ecn=3)


def with_udp_checksum(f: Frame) -> Frame:
    """`f` with a correct UDP checksum (IPv4 pseudo-header)."""
    f0 = replace(f, udp_checksum=0)
    l4 = f0.l4_bytes()
    pseudo = ip_bytes(f.src) + ip_bytes(f.dst) + struct.pack("!BBH", 0, PROTO_UDP, len(l4))
    return replace(f, udp_checksum=csum16(pseudo + l4) or 0xFFFF)


# ------------------------------------------------------------------ reading packets
def eth_fields(b: bytes) -> tuple[str, str, int]:
    return b[0:6].hex(":"), b[6:12].hex(":"), struct.unpack("!H", b[12:14])[0]


def ipv4_header(b: bytes, off: int = 14) -> dict[str, int]:
    (vihl, tos, total, ident, _ff, ttl, proto, cs) = struct.unpack("!BBHHHBBH", b[off : off + 12])
    return {
        "ihl": vihl & 0xF,
        "dscp": tos >> 2,
        "ecn": tos & 3,
        "total_len": total,
        "ident": ident,
        "ttl": ttl,
        "proto": proto,
        "checksum": cs,
        "checksum_ok": csum16(b[off : off + 20]) == 0,
        "src": int.from_bytes(b[off + 12 : off + 16], "big"),
        "dst": int.from_bytes(b[off + 16 : off + 20], "big"),
    }


def ecn_of(b: bytes) -> int:
    ethertype = struct.unpack("!H", b[12:14])[0]
    if ethertype == ETH_IPV6:
        return (struct.unpack("!I", b[14:18])[0] >> 20) & 3
    return b[15] & 3
