"""HPCC's INT echo: the receiver copies each data packet's INT records into its ACK.

fabric.p4's sink strips INT from the data packet and sends the stack to the collector as
an INT report: an ingress clone made as the packet reaches the sink, so the report leaves
before the data packet reaches the host. In a run whose transport reads INT (HPCC), every
switch's reports go to an `IntEcho`. It decodes each one (`controller.telemetry`), finds
its flow by source, destination and UDP source port, and gives that flow's receiver the
hop records under the PSN of the reported packet (read from its BTH). The receiver puts
them in the ACK of that packet, `HOP_BYTES` per hop between the AETH and the ICRC, so the
ACK is that much longer on the wire. The sender decodes them (`decode_hops`) for its
transport.

Per hop: the queue occupancy (packets), txBytes (bytes the egress port has sent, mod
2^32: the INT tx utilisation word, see p4src/include/tx_bytes.p4), the egress timestamp
(ns, a whole number of microseconds) and the egress port's rate in Mb/s. INT does not
carry the rate, so the echo takes it from the topology (switch id and egress port), as
an HPCC NIC is configured with its fabric's link speeds.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from .frames import OP_DATA
from .receivers import Receiver
from .transports import IntHop

__all__ = ["HOP_BYTES", "INT_INSTRUCTIONS", "IntEcho", "decode_hops", "encode_hops"]

# what the sources ask every hop for (hop latency only for the run's summary)
INT_INSTRUCTIONS = (
    "switch_id",
    "ports",
    "hop_latency",
    "queue",
    "egress_timestamp",
    "tx_utilization",
)
_HOP = struct.Struct("!IIQI")  # qlen, tx bytes, ts ns, rate Mb/s
HOP_BYTES = _HOP.size


def encode_hops(hops: tuple[IntHop, ...]) -> bytes:
    return b"".join(
        _HOP.pack(h.qlen_pkts, h.tx_bytes, h.ts_ns, int(h.rate_bps // 1e6)) for h in hops
    )


def decode_hops(data: bytes) -> tuple[IntHop, ...]:
    """The records an ACK echoes (`data`: the bytes between its AETH and ICRC)."""
    n = len(data) // HOP_BYTES
    return tuple(
        IntHop(q, tx, ts, rate * 1e6)
        for q, tx, ts, rate in (_HOP.unpack_from(data, i * HOP_BYTES) for i in range(n))
    )


class IntEcho:
    """Routes INT reports to the receivers of the flows they describe (module docstring)."""

    __slots__ = (
        "filed",
        "flows",
        "hop_latency",
        "port_rate",
        "reports",
        "undecodable",
        "unmatched",
    )

    def __init__(self, port_rate: Mapping[tuple[int, int], float]) -> None:
        self.port_rate = port_rate  # (switch id, egress port) -> bit/s
        self.flows: dict[tuple[str, str, int], Receiver] = {}
        self.reports = 0
        self.filed = 0  # records handed to a receiver for an ACK
        self.undecodable = 0
        self.unmatched = 0  # decoded, but of no flow watched (or a packet not data)
        self.hop_latency: list[int] = []  # ns, every hop of every report

    @classmethod
    def for_topology(cls, topo: Any) -> IntEcho:
        dev = {s.name: s.device_id for s in topo.switches}
        rate: dict[tuple[int, int], float] = {}
        for link in topo.all_links():
            for name, port in ((link.a, link.a_port), (link.b, link.b_port)):
                if name in dev:
                    rate[(dev[name], port)] = link.rate_bps
        return cls(rate)

    def watch(self, src_ip: str, dst_ip: str, sport: int, r: Receiver) -> None:
        self.flows[(src_ip, dst_ip, sport)] = r

    def on_report(self, frame: bytes) -> None:
        """One report frame as a sink switch sent it toward the collector."""
        from controller.telemetry.int_report import ReportError, decode_report_frame

        self.reports += 1
        bth = _bth_offset(frame)
        if bth is not None and frame[bth] != OP_DATA:
            self.unmatched += 1  # a CNP (it leaves with its data's source port)
            return
        try:
            rep = decode_report_frame(frame)
        except ReportError:
            self.undecodable += 1
            return
        self.hop_latency.extend(h.hop_latency_ns for h in rep.hops if h.hop_latency_ns is not None)
        f = rep.flow
        r = self.flows.get((f.src, f.dst, f.sport))
        if r is None or bth is None:
            self.unmatched += 1
            return
        hops = []
        for h in rep.hops:
            if h.switch_id is None or h.egress_port is None or h.egress_ts_ns is None:
                self.unmatched += 1
                return
            hops.append(
                IntHop(
                    h.queue_occupancy or 0,
                    h.tx_utilization or 0,
                    h.egress_ts_ns,
                    self.port_rate.get((h.switch_id, h.egress_port), 0.0),
                )
            )
        if any(h.rate_bps <= 0 for h in hops):
            self.unmatched += 1  # a port the topology does not know: no rate to divide by
            return
        psn = int.from_bytes(frame[bth + 9 : bth + 12], "big")
        r.echo[psn] = encode_hops(tuple(hops))
        self.filed += 1

    def summary(self) -> dict[str, int]:
        return {
            "reports": self.reports,
            "filed": self.filed,
            "unmatched": self.unmatched,
            "undecodable": self.undecodable,
        }


def _bth_offset(frame: bytes) -> int | None:
    """Where the reported packet's BTH starts: after the report's Ethernet/IPv4/UDP and
    20 bytes of report headers, the inner Ethernet/IPv4/UDP, the INT shim and stack."""
    if len(frame) < 34:
        return None
    inner = 14 + (frame[14] & 0x0F) * 4 + 8 + 20
    ip = inner + 14
    if len(frame) < ip + 20:
        return None
    shim = ip + (frame[ip] & 0x0F) * 4 + 8
    if len(frame) < shim + 4:
        return None
    bth = shim + frame[shim + 1] * 4
    return bth if len(frame) >= bth + 12 else None
