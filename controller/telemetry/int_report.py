"""Decoding fabric.p4's INT reports: Telemetry Report v2.0 around an INT-MD v2.1 packet.

What the INT sink sends to the collector (docs/fabric.md, "INT-MD v2.1 over UDP"):

    Ethernet / IPv4 / UDP                         the report's encapsulation (`int_report`)
    report group header      8 B                  ver 2, hw id, sequence number, node id
    individual report      12 B                   rep_type 1 (INT), in_type 3 (Ethernet),
                                                  length, MD length 0, flags, main contents
    inner packet                                  as the sink received it:
      Ethernet [VLAN] IPv4|IPv6 UDP               UDP destination port = the INT port
      INT shim 4 B                                type, NPT=1, length, original UDP dport
      INT-MD header 12 B                          E/M flags, hop_ml, remaining hops, bitmap
      metadata stack                              hop_ml words per hop, newest hop first
      payload

`decode_report(udp_payload)` decodes from the report group header (what a UDP collector
socket receives); `decode_report_frame(frame)` from the outer Ethernet header (what a
switch port emits). Both raise `ReportError` saying what is wrong. Hops come out in path
order (the INT source first).
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

__all__ = [
    "FlowKey",
    "HopRecord",
    "IntReport",
    "ReportError",
    "decode_report",
    "decode_report_frame",
]

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_VLAN = 0x8100
PROTO_UDP = 17
INT_TYPE_MD = 1
REPORT_TYPE_INT = 1
IN_TYPE_ETHERNET = 3

# instruction bit (0 = most significant) -> (field names, struct format); each is 4 or 8 B
_INSTRUCTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("switch_id",), "!I"),
    (("ingress_port", "egress_port"), "!HH"),
    (("hop_latency_ns",), "!I"),
    (("queue",), "!I"),  # 8-bit queue id + 24-bit occupancy
    (("ingress_ts_ns",), "!Q"),
    (("egress_ts_ns",), "!Q"),
    (("l2_ingress_port", "l2_egress_port"), "!II"),
    (("tx_utilization",), "!I"),
    (("buffer",), "!I"),  # 8-bit buffer id + 24-bit occupancy
)


class ReportError(ValueError):
    """A datagram that is not a Telemetry Report v2.0 with an INT-MD packet inside."""


@dataclass(frozen=True, slots=True)
class HopRecord:
    """One hop's INT metadata; a field the instruction bitmap did not ask for is None.
    Times in nanoseconds, occupancy in packets (as fabric.p4 records them)."""

    switch_id: int | None = None
    ingress_port: int | None = None
    egress_port: int | None = None
    hop_latency_ns: int | None = None
    queue_id: int | None = None
    queue_occupancy: int | None = None
    ingress_ts_ns: int | None = None
    egress_ts_ns: int | None = None
    l2_ingress_port: int | None = None
    l2_egress_port: int | None = None
    tx_utilization: int | None = None
    buffer_id: int | None = None
    buffer_occupancy: int | None = None


@dataclass(frozen=True, slots=True)
class FlowKey:
    src: str
    dst: str
    protocol: int
    sport: int
    dport: int  # the original destination port (from the INT shim)


@dataclass(frozen=True, slots=True)
class IntReport:
    seq: int
    node_id: int  # the reporting (sink) switch
    hw_id: int
    flow: FlowKey
    instructions: int
    hops: tuple[HopRecord, ...]  # path order: source first, sink last
    hop_limit_exceeded: bool  # E: a hop had no budget left
    mtu_exceeded: bool  # M: a hop could not add its metadata within the MTU
    remaining_hops: int
    inner_length: int  # bytes of the reported packet


def _need(data: bytes, n: int, what: str) -> None:
    if len(data) < n:
        raise ReportError(f"{what}: needs {n} bytes, the datagram has {len(data)}")


def decode_report_frame(frame: bytes) -> IntReport:
    """A report as a switch port emits it (Ethernet/IPv4/UDP around the report)."""
    return decode_report(report_payload(frame))


def report_payload(frame: bytes) -> bytes:
    """The report (group header on) inside a frame's Ethernet/IPv4/UDP encapsulation."""
    _need(frame, 14 + 20 + 8, "report encapsulation")
    (ethertype,) = struct.unpack_from("!H", frame, 12)
    if ethertype != ETH_IPV4:
        raise ReportError(f"report encapsulation: ethertype {ethertype:#06x}, expected IPv4")
    ihl = (frame[14] & 0x0F) * 4
    if frame[14 + 9] != PROTO_UDP:
        raise ReportError(f"report encapsulation: IP protocol {frame[23]}, expected UDP")
    return frame[14 + ihl + 8 :]


def decode_report(payload: bytes) -> IntReport:
    """A report from its group header on (a UDP collector's datagram)."""
    _need(payload, 20, "report headers")
    w0, node_id = struct.unpack_from("!II", payload, 0)
    ver, hw_id, seq = w0 >> 28, (w0 >> 22) & 0x3F, w0 & 0x3FFFFF
    if ver != 2:
        raise ReportError(f"report group header: version {ver}, expected 2")
    rt, rep_len, md_len, _flags = struct.unpack_from("!BBBB", payload, 8)
    if rt >> 4 != REPORT_TYPE_INT or rt & 0xF != IN_TYPE_ETHERNET:
        raise ReportError(
            f"individual report: type {rt >> 4} / inner type {rt & 0xF}, expected INT (1) "
            "over Ethernet (3)"
        )
    inner = payload[20 + md_len * 4 :]
    hops, flow, ins, e, m, rhc = _decode_inner(inner)
    return IntReport(seq, node_id, hw_id, flow, ins, hops, e, m, rhc, len(inner))


def _decode_inner(
    b: bytes,
) -> tuple[tuple[HopRecord, ...], FlowKey, int, bool, bool, int]:
    _need(b, 14, "inner Ethernet header")
    off = 12
    (ethertype,) = struct.unpack_from("!H", b, off)
    off += 2
    if ethertype == ETH_VLAN:
        _need(b, 18, "inner VLAN tag")
        (ethertype,) = struct.unpack_from("!H", b, off + 2)
        off += 4
    if ethertype == ETH_IPV4:
        _need(b, off + 20, "inner IPv4 header")
        ihl = (b[off] & 0x0F) * 4
        proto = b[off + 9]
        src = str(ipaddress.IPv4Address(b[off + 12 : off + 16]))
        dst = str(ipaddress.IPv4Address(b[off + 16 : off + 20]))
        off += ihl
    elif ethertype == ETH_IPV6:
        _need(b, off + 40, "inner IPv6 header")
        proto = b[off + 6]
        src = str(ipaddress.IPv6Address(b[off + 8 : off + 24]))
        dst = str(ipaddress.IPv6Address(b[off + 24 : off + 40]))
        off += 40
    else:
        raise ReportError(f"inner packet: ethertype {ethertype:#06x} is not IP")
    if proto != PROTO_UDP:
        raise ReportError(f"inner packet: IP protocol {proto}, INT-MD here is over UDP")
    _need(b, off + 8 + 16, "inner UDP + INT headers")
    (sport,) = struct.unpack_from("!H", b, off)
    off += 8
    shim0, shim_len, orig_dport = struct.unpack_from("!BBH", b, off)
    if shim0 >> 4 != INT_TYPE_MD:
        raise ReportError(f"INT shim: type {shim0 >> 4}, expected INT-MD (1)")
    vf, hop_ml, rhc, ins = struct.unpack_from("!HBBH", b, off + 4)
    hop_words = hop_ml & 0x1F
    e, m = bool(vf & 0x0400), bool(vf & 0x0200)
    stack_bytes = (shim_len - 4) * 4
    start = off + 16
    _need(b, start + stack_bytes, "INT metadata stack")
    hops: list[HopRecord] = []
    if hop_words:
        if stack_bytes % (hop_words * 4):
            raise ReportError(
                f"INT metadata stack: {stack_bytes} bytes is not a whole number of "
                f"{hop_words * 4}-byte hops"
            )
        for pos in range(start, start + stack_bytes, hop_words * 4):
            hops.append(_decode_hop(b[pos : pos + hop_words * 4], ins))
    hops.reverse()
    return tuple(hops), FlowKey(src, dst, proto, sport, orig_dport), ins, e, m, rhc


def _decode_hop(data: bytes, instructions: int) -> HopRecord:
    values: dict[str, int] = {}
    off = 0
    for bit, (names, fmt) in enumerate(_INSTRUCTIONS):
        if not instructions & (0x8000 >> bit):
            continue
        got = struct.unpack_from(fmt, data, off)
        off += struct.calcsize(fmt)
        values.update(zip(names, got, strict=True))
    if "queue" in values:
        q = values.pop("queue")
        values["queue_id"], values["queue_occupancy"] = q >> 24, q & 0xFFFFFF
    if "buffer" in values:
        q = values.pop("buffer")
        values["buffer_id"], values["buffer_occupancy"] = q >> 24, q & 0xFFFFFF
    return HopRecord(**values)
