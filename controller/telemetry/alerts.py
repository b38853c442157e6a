"""Decoding fabric.p4's alert reports: Telemetry Report v2.0 without INT, around the
start of a packet a switch dropped (D=1) or that left a congested queue (Q=1)
(docs/fabric.md, "Drop reports" and "Queue reports").

    Ethernet / IPv4 / UDP                 the report's encapsulation (`int_report`)
    report group header      8 B          ver 2, hw id, sequence number, node id
    individual report       12 B          rep_type 1 (INT), in_type 3 (Ethernet), flags,
                                          RepMdBits: drop 0x4001 (bits 1, 15),
                                          queue 0x7000 (bits 1, 2, 3)
    metadata             8/12 B           drop: ingress port, egress port (511: none),
                                          queue id, drop reason, padding
                                          queue: ingress port, egress port, hop latency
                                          (ns), queue id, occupancy (packets)
    inner packet        <= 128 B          the packet (as it arrived / as it left), cut

`decode_alert(udp_payload)` and `decode_alert_frame(frame)` return a `DropReport` or a
`QueueReport` and raise `ReportError` saying what is wrong; `is_alert(udp_payload)` tells
them from INT reports by the D and Q flags.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

from .int_report import (
    ETH_IPV4,
    ETH_IPV6,
    ETH_VLAN,
    IN_TYPE_ETHERNET,
    REPORT_TYPE_INT,
    FlowKey,
    ReportError,
    report_payload,
)

__all__ = [
    "DropReport",
    "QueueReport",
    "decode_alert",
    "decode_alert_frame",
    "decode_drop_report",
    "decode_drop_report_frame",
    "is_alert",
]

REP_MD_PORTS = 0x4000  # RepMdBits bit 1 (bit 0 is the most significant)
REP_MD_LATENCY = 0x2000  # bit 2: hop latency
REP_MD_QUEUE = 0x1000  # bit 3: queue id + occupancy
REP_MD_DROP = 0x0001  # RepMdBits bit 15: queue id + drop reason
FLAG_D, FLAG_Q = 0x80, 0x40
_L4_PORTS = (6, 17)  # TCP and UDP: ports in the first four bytes


@dataclass(frozen=True, slots=True)
class DropReport:
    seq: int
    node_id: int  # the switch that dropped the packet
    hw_id: int
    ingress_port: int
    egress_port: int  # 511 when the packet was dropped before an egress port was chosen
    queue_id: int
    reason: int  # fabric.p4's DROP_* code (FabricConstants.drop_reasons)
    flow: FlowKey | None  # None when the kept bytes do not reach the L4 ports
    inner: bytes  # the start of the dropped packet


@dataclass(frozen=True, slots=True)
class QueueReport:
    seq: int
    node_id: int  # the switch whose queue was congested
    hw_id: int
    ingress_port: int
    egress_port: int  # the congested queue's port
    hop_latency_ns: int  # ingress to egress of the reported packet
    queue_id: int
    queue_occupancy: int  # packets ahead of the reported packet
    flow: FlowKey | None
    inner: bytes  # the start of the packet as it left


def is_alert(payload: bytes) -> bool:
    """Whether a report (from its group header on) has the D or Q flag set."""
    return len(payload) > 11 and bool(payload[11] & (FLAG_D | FLAG_Q))


def decode_alert_frame(frame: bytes) -> DropReport | QueueReport:
    """An alert as a switch port emits it (Ethernet/IPv4/UDP around the report)."""
    return decode_alert(report_payload(frame))


def decode_drop_report_frame(frame: bytes) -> DropReport:
    """A drop report as a switch port emits it (Ethernet/IPv4/UDP around the report)."""
    return decode_drop_report(report_payload(frame))


def decode_drop_report(payload: bytes) -> DropReport:
    """A drop report from its group header on; anything else raises `ReportError`."""
    rep = decode_alert(payload)
    if not isinstance(rep, DropReport):
        raise ReportError("individual report: D flag clear, not a drop report")
    return rep


def decode_alert(payload: bytes) -> DropReport | QueueReport:
    """A drop or queue report from its group header on (a UDP collector's datagram)."""
    if len(payload) < 20:
        raise ReportError(f"report headers: needs 20 bytes, the datagram has {len(payload)}")
    w0, node_id = struct.unpack_from("!II", payload, 0)
    ver, hw_id, seq = w0 >> 28, (w0 >> 22) & 0x3F, w0 & 0x3FFFFF
    if ver != 2:
        raise ReportError(f"report group header: version {ver}, expected 2")
    rt, _rep_len, md_len, flags, md_bits = struct.unpack_from("!BBBBH", payload, 8)
    if rt >> 4 != REPORT_TYPE_INT or rt & 0xF != IN_TYPE_ETHERNET:
        raise ReportError(
            f"individual report: type {rt >> 4} / inner type {rt & 0xF}, expected INT (1) "
            "over Ethernet (3)"
        )
    if flags & FLAG_D:
        want_bits, want_len, what = REP_MD_PORTS | REP_MD_DROP, 2, "drop"
    elif flags & FLAG_Q:
        want_bits, want_len, what = REP_MD_PORTS | REP_MD_LATENCY | REP_MD_QUEUE, 3, "queue"
    else:
        raise ReportError("individual report: D and Q flags clear, not a drop or queue report")
    if md_bits != want_bits or md_len != want_len:
        raise ReportError(
            f"{what} report: RepMdBits {md_bits:#06x} with {md_len} words, expected "
            f"{want_bits:#06x} with {want_len}"
        )
    end = 20 + 4 * md_len
    if len(payload) < end:
        raise ReportError(
            f"{what} report metadata: needs {end} bytes, the datagram has {len(payload)}"
        )
    inner = bytes(payload[end:])
    if what == "drop":
        in_port, eg_port, queue_id, reason = struct.unpack_from("!HHBB", payload, 20)
        return DropReport(
            seq, node_id, hw_id, in_port, eg_port, queue_id, reason, _flow(inner), inner
        )
    in_port, eg_port, latency, q = struct.unpack_from("!HHII", payload, 20)
    return QueueReport(
        seq, node_id, hw_id, in_port, eg_port, latency, q >> 24, q & 0xFFFFFF, _flow(inner), inner
    )


def _flow(b: bytes) -> FlowKey | None:
    """The 5-tuple of the kept bytes, or None where they stop short of it."""
    if len(b) < 14:
        return None
    off = 12
    (ethertype,) = struct.unpack_from("!H", b, off)
    off += 2
    if ethertype == ETH_VLAN and len(b) >= 18:
        (ethertype,) = struct.unpack_from("!H", b, off + 2)
        off += 4
    if ethertype == ETH_IPV4 and len(b) >= off + 20:
        ihl = (b[off] & 0x0F) * 4
        proto = b[off + 9]
        src = str(ipaddress.IPv4Address(b[off + 12 : off + 16]))
        dst = str(ipaddress.IPv4Address(b[off + 16 : off + 20]))
        off += ihl
    elif ethertype == ETH_IPV6 and len(b) >= off + 40:
        proto = b[off + 6]
        src = str(ipaddress.IPv6Address(b[off + 8 : off + 24]))
        dst = str(ipaddress.IPv6Address(b[off + 24 : off + 40]))
        off += 40
    else:
        return None
    sport = dport = 0
    if proto in _L4_PORTS and len(b) >= off + 4:
        sport, dport = struct.unpack_from("!HH", b, off)
    return FlowKey(src, dst, proto, sport, dport)
