"""RoCEv2 frames the simulated hosts send and read: Ethernet / IPv4 / UDP 4791 / BTH.

Data packets are RC SEND (opcode 0x04) to the receiver's queue pair; acknowledgements are
opcode 0x11 with an AETH (syndrome, then 24 bits this simulator uses for the PSN that
triggered it); CNPs (opcode 0x81) come from the switches. Each flow's headers are built
once (IPv4 checksum included: fabric.p4 verifies it); a packet is its flow's prefix, a
12-byte BTH and the payload.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

__all__ = [
    "ACK_LEN",
    "AETH_ACK",
    "AETH_NAK",
    "AETH_PULL",
    "DATA_HEADER_LEN",
    "OP_ACK",
    "OP_CNP",
    "OP_DATA",
    "OP_PROBE",
    "FlowFrames",
    "ip_checksum",
]

OP_DATA = 0x04
OP_ACK = 0x11
OP_CNP = 0x81
OP_PROBE = 0x64  # fabricsim.probes: a BTH opcode no transport uses
AETH_ACK = 0x00
AETH_NAK = 0x60  # PSN sequence error
AETH_PULL = 0x20  # this simulator's PULL (receiver-driven transports): AETH low bits = pull no.
ECT0 = 2
ROCE_PORT = 4791
DATA_HEADER_LEN = 14 + 20 + 8 + 12  # up to the end of the BTH
ICRC = 4
ACK_LEN = DATA_HEADER_LEN + 4 + ICRC
_BTH = struct.Struct("!BBHII")
_AETH = struct.Struct("!I")


def ip_checksum(hdr: bytes) -> int:
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _mac(text: str) -> bytes:
    return bytes(int(x, 16) for x in text.split(":"))


def _prefix(
    smac: str, dmac: str, src: str, dst: str, sport: int, l4_payload: int, dscp: int
) -> bytes:
    """Ethernet + IPv4 (ECT(0), checksum set) + UDP for a BTH and `l4_payload` more bytes."""
    udp_len = 8 + 12 + l4_payload
    ip_len = 20 + udp_len
    tos = (dscp << 2) | ECT0
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        tos,
        ip_len,
        0,
        0x4000,
        64,
        17,
        0,
        ipaddress.IPv4Address(src).packed,
        ipaddress.IPv4Address(dst).packed,
    )
    ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
    eth = _mac(dmac) + _mac(smac) + b"\x08\x00"
    return eth + ip + struct.pack("!HHHH", sport, ROCE_PORT, udp_len, 0)


@dataclass(slots=True)
class FlowFrames:
    """Prebuilt headers of one flow: data one way, acknowledgements the other."""

    data_full: bytes  # prefix of a full-size data packet
    data_last: bytes  # prefix of the last (shorter) one
    payload: bytes
    last_payload: bytes
    ack_prefix: bytes
    data_qp: int
    ack_qp: int
    grown: dict[int, bytes] = field(default_factory=dict)  # ACK prefixes for longer ACKs

    @classmethod
    def build(
        cls,
        *,
        src_mac: str,
        src_gw: str,
        src_ip: str,
        dst_mac: str,
        dst_gw: str,
        dst_ip: str,
        sport: int,
        payload: int,
        last_payload: int,
        data_qp: int,
        ack_qp: int,
        dscp: int,
        ctrl_dscp: int | None = None,
        ack_sport: int | None = None,
    ) -> FlowFrames:
        """`ctrl_dscp`: the class of ACKs, NACKs, pulls and CNPs (default: the data's);
        `ack_sport`: their UDP source port (default: the data's, `sport`)."""
        return cls(
            _prefix(src_mac, src_gw, src_ip, dst_ip, sport, payload + ICRC, dscp),
            _prefix(src_mac, src_gw, src_ip, dst_ip, sport, last_payload + ICRC, dscp),
            bytes(payload + ICRC),
            bytes(last_payload + ICRC),
            _prefix(
                dst_mac,
                dst_gw,
                dst_ip,
                src_ip,
                sport if ack_sport is None else ack_sport,
                4 + ICRC,
                dscp if ctrl_dscp is None else ctrl_dscp,
            ),
            data_qp,
            ack_qp,
        )

    def data(self, psn: int, last: bool) -> bytes:
        bth = _BTH.pack(OP_DATA, 0, 0xFFFF, self.data_qp, 0x80000000 | psn)
        if last:
            return self.data_last + bth + self.last_payload
        return self.data_full + bth + self.payload

    def ack(self, cum: int, psn: int, nak: bool, ece: bool, echo: bytes = b"") -> bytes:
        """An ACK (or NAK) carrying the cumulative PSN in the BTH and `psn` in the AETH;
        BECN set echoes a CE mark (the DCTCP-style echo). `echo` (INT records the
        receiver copies back, `fabricsim.int_echo`) goes after the AETH."""
        qp = self.ack_qp | (0x40000000 if ece else 0)
        syndrome = AETH_NAK if nak else AETH_ACK
        prefix = self.ack_prefix
        if echo:
            prefix = self.grown.get(len(echo)) or self._grow(len(echo))
        return (
            prefix
            + _BTH.pack(OP_ACK, 0, 0xFFFF, qp, cum & 0xFFFFFF)
            + _AETH.pack(syndrome << 24 | (psn & 0xFFFFFF))
            + echo
            + b"\0\0\0\0"
        )

    def _grow(self, extra: int) -> bytes:
        """The ACK prefix with IPv4 and UDP lengths `extra` bytes longer (checksum redone)."""
        p = bytearray(self.ack_prefix)
        ip_len, udp_len = struct.unpack_from("!H", p, 16)[0], struct.unpack_from("!H", p, 38)[0]
        struct.pack_into("!H", p, 16, ip_len + extra)
        struct.pack_into("!H", p, 24, 0)
        struct.pack_into("!H", p, 24, ip_checksum(bytes(p[14:34])))
        struct.pack_into("!H", p, 38, udp_len + extra)
        self.grown[extra] = out = bytes(p)
        return out

    def pull(self, cum: int, pull_no: int) -> bytes:
        """A PULL: the receiver grants the sender its `pull_no`-th packet beyond the first
        window (cumulative, so a lost pull is made up by the next)."""
        return (
            self.ack_prefix
            + _BTH.pack(OP_ACK, 0, 0xFFFF, self.ack_qp, cum & 0xFFFFFF)
            + _AETH.pack(AETH_PULL << 24 | (pull_no & 0xFFFFFF))
            + b"\0\0\0\0"
        )

    def cnp(self) -> bytes:
        """A CNP from the receiver (DCQCN's notification point) to the flow's sender: the
        BTH names the data QP, as a switch-made CNP does."""
        return (
            self.ack_prefix
            + _BTH.pack(OP_CNP, 0, 0xFFFF, self.data_qp, 0)
            + b"\0\0\0\0"
            + b"\0\0\0\0"
        )
