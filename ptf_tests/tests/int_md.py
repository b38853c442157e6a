"""INT-MD v2.1 over UDP on one switch: source and sink on the same switch (host gets the
packet as sent, the collector a Telemetry Report v2.0 of it), transit of a packet that
already carries INT (this hop's metadata pushed, lengths fixed), the E and M flags, the
sink stripping INT, and flows off the watchlist. Timestamps, hop latency and queue
occupancy are masked; everything else is compared bit for bit. (A three-switch chain is
covered by tests/fabric/test_int.py.)"""

from __future__ import annotations

import struct

from ptf.mask import Mask
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from ptf_tests.lib.fabric_test import FabricTest, next_hop_mac
from ptf_tests.lib.packets import HOST_MAC, ROUTER_MAC, route, udp_packet
from ptf_tests.lib.reports import ETH_IP_UDP, REPORT, report_mask, report_seq

IN, OUT, COLLECTOR = 1, 2, 3
SWITCH_ID, UPSTREAM_ID = 7, 1
BASIC = 0xFC00  # bits 0-5: switch id, ports, hop latency, queue, ingress/egress timestamps
ALL_SUPPORTED = 0xFF80  # bits 0-8
WORDS = {BASIC: 8, ALL_SUPPORTED: 12}
SHIM_MD = 4 + 12
REPORT_HDRS = 8 + 12  # group header, individual report header


# ------------------------------------------------------------------ INT headers
def shim(stack_words: int, dport: int) -> bytes:
    """INT shim: type INT-MD, NPT 1 (original UDP port kept here), length in words."""
    return bytes([0x14, 4 + stack_words]) + struct.pack("!H", dport)


def md_header(remaining: int, instructions: int, *, e: int = 0, m: int = 0) -> bytes:
    hop_ml = WORDS[instructions]
    return struct.pack("!BBBBHHI", 0x20 | e << 2 | m << 1, 0, hop_ml, remaining, instructions, 0, 0)


def hop(switch_id: int, in_port: int, out_port: int, instructions: int = BASIC) -> bytes:
    """One hop's metadata with the variable fields zero (they are masked)."""
    md = struct.pack("!IHHIIQQ", switch_id, in_port, out_port, 0, 0, 0, 0)
    if instructions == ALL_SUPPORTED:
        md += struct.pack("!IIII", in_port, out_port, 0, 0)
    return md


def hop_mask(mask: Mask, offset: int, instructions: int = BASIC) -> None:
    """Don't care about hop latency, queue occupancy, timestamps (and buffer occupancy)
    of the hop metadata at byte `offset`."""
    mask.set_do_not_care((offset + 8) * 8, 32)  # hop latency
    mask.set_do_not_care((offset + 12) * 8 + 8, 24)  # queue occupancy
    mask.set_do_not_care((offset + 16) * 8, 128)  # ingress and egress timestamps
    if instructions == ALL_SUPPORTED:
        mask.set_do_not_care((offset + 40) * 8, 32)  # txBytes: what earlier tests sent
        mask.set_do_not_care((offset + 44) * 8 + 8, 24)  # buffer occupancy


def with_int(pkt: Packet, int_port: int, stack: bytes, words: int, md: bytes) -> Packet:
    """`pkt` (UDP) inside the INT domain: UDP to `int_port`, shim, INT-MD header, the
    metadata `stack` of `words` words; the UDP checksum as the sender computed it."""
    sent = Ether(bytes(pkt))
    udp = pkt[UDP]
    p = pkt.copy()
    if IP in p:
        del p[IP].chksum
    u = p[UDP]
    u.remove_payload()
    u.dport, u.len, u.chksum = int_port, None, sent[UDP].chksum
    u.add_payload(Raw(shim(words, udp.dport) + md + stack + bytes(udp.payload)))
    return p


def report(inner: bytes, node_id: int) -> Mask:
    """The Telemetry Report the collector gets for `inner`: sequence number masked."""
    rep_len = 2 + (len(inner) + 3) // 4
    return report_mask(
        node_id,
        struct.pack("!BBBB", 0x13, rep_len, 0, 0x20)  # INT, in_type Ethernet; F flag
        + bytes(8)
        + inner,
    )


class IntTest(FabricTest):
    def setUp(self) -> None:
        super().setUp()
        self.int_port = self.c["UDP_PORT_INT"]
        self.add_ecmp_route("10.0.2.0/24", 701, [OUT])
        self.enable_int(OUT, SWITCH_ID)

    def collector(self) -> None:
        self.add_int_report(COLLECTOR, **REPORT)
        self.add_int_session(COLLECTOR)

    def routed(self, pkt: Packet) -> Packet:
        return route(pkt, ROUTER_MAC, next_hop_mac(OUT))

    def upstream(self, pkt: Packet, remaining: int = 7, instructions: int = BASIC) -> Packet:
        """`pkt` as the upstream switch (UPSTREAM_ID, a source) sent it to us."""
        md = md_header(remaining, instructions)
        return with_int(
            pkt, self.int_port, hop(UPSTREAM_ID, 1, 2, instructions), WORDS[instructions], md
        )


class SourceAndSinkReportTest(IntTest):
    """Source and sink on one switch: the host gets the packet exactly as routed without
    INT; the collector gets a report whose inner packet is the one received plus the
    INT this switch adds (shim, INT-MD header, its metadata); sequence numbers count up."""

    def check(self, instructions: int) -> None:
        self.add_int_watchlist(8, instructions, ip_proto=(17, 0xFF))
        self.add_int_sink(OUT)
        self.collector()
        pkt = udp_packet(dport=4444)
        self.send(IN, pkt)
        self.expect(OUT, self.routed(pkt))
        words = WORDS[instructions]
        inner = with_int(
            pkt,
            self.int_port,
            hop(SWITCH_ID, IN, OUT, instructions),
            words,
            md_header(7, instructions),
        )
        exp = report(bytes(inner), SWITCH_ID)
        hop_mask(exp, ETH_IP_UDP + REPORT_HDRS + ETH_IP_UDP + SHIM_MD, instructions)
        self.expect(COLLECTOR, exp)
        self.expect_nothing()

    def runTest(self) -> None:
        self.check(BASIC)


class AllInstructionsTest(SourceAndSinkReportTest):
    """Every supported instruction (bits 0-8): level-2 ports, tx utilisation and buffer
    occupancy follow the basic ones. The tx utilisation word carries HPCC's txBytes (the
    bytes the data port has sent, mod 2^32), counted in whole frames. The report is an
    ingress clone: on BMv2 it leaves through another egress thread than the packet it
    reports, so its count may be read before or after that packet's own bytes are added
    (softswitch: always before). Over five equal packets, each report is 0, 1 or 2 frames
    above the one before and the last 3, 4 or 5 frames above the first."""

    def runTest(self) -> None:
        self.check(ALL_SUPPORTED)
        tx, sent = [], []
        for _ in range(5):
            self.send(IN, udp_packet(dport=4444))
            sent.append(len(self.next_frame(OUT)))
            rep = self.next_frame(COLLECTOR)
            at = ETH_IP_UDP + REPORT_HDRS + ETH_IP_UDP + SHIM_MD + 40
            tx.append(struct.unpack("!I", rep[at : at + 4])[0])
        frame = sent[0]
        self.assertEqual(set(sent), {frame})
        steps = [(b - a) % (1 << 32) for a, b in zip(tx, tx[1:], strict=False)]
        self.assertTrue(all(d in (0, frame, 2 * frame) for d in steps), steps)
        self.assertIn(sum(steps), (3 * frame, 4 * frame, 5 * frame))
        if self.target.name == "softswitch":
            self.assertEqual(steps, [frame] * 4)  # deterministic: read before the packet


class ReportSequenceTest(IntTest):
    """Each report carries the next sequence number."""

    def runTest(self) -> None:
        self.add_int_watchlist(8, BASIC, ip_proto=(17, 0xFF))
        self.add_int_sink(OUT)
        self.collector()
        seqs = []
        for i in range(3):
            self.send(IN, udp_packet(sport=2000 + i))
            seqs.append(report_seq(self.next_frame(COLLECTOR)))
        self.assertEqual(seqs, [seqs[0], seqs[0] + 1, seqs[0] + 2])


class TransitTest(IntTest):
    """A packet carrying INT from upstream leaves with this hop's metadata in front of
    the stack, the shim, IP and UDP lengths grown and the hop count down by one."""

    def runTest(self) -> None:
        pkt = udp_packet(dport=4444)
        arriving = self.upstream(pkt)
        self.send(IN, arriving)
        stack = hop(SWITCH_ID, IN, OUT) + hop(UPSTREAM_ID, 1, 2)
        leaving = self.routed(with_int(pkt, self.int_port, stack, 16, md_header(6, BASIC)))
        exp = Mask(bytes(leaving))
        hop_mask(exp, ETH_IP_UDP + SHIM_MD)
        self.expect_only(OUT, exp)


class HopBudgetTest(IntTest):
    """With no hop budget left the switch sets E and adds nothing."""

    def runTest(self) -> None:
        pkt = udp_packet(dport=4444)
        self.send(IN, self.upstream(pkt, remaining=0))
        md = md_header(0, BASIC, e=1)
        exp = self.routed(with_int(pkt, self.int_port, hop(UPSTREAM_ID, 1, 2), 8, md))
        self.expect_only(OUT, exp)


class MtuTest(IntTest):
    """When this hop's metadata would exceed the port's MTU the switch sets M and adds
    nothing."""

    def runTest(self) -> None:
        pkt = udp_packet(dport=4444)
        arriving = self.upstream(pkt)
        ip_len = len(arriving) - 14
        self.modify(self.enc.int_port(OUT, SWITCH_ID, mtu=ip_len + 31))
        self.send(IN, arriving)
        md = md_header(7, BASIC, m=1)
        exp = self.routed(with_int(pkt, self.int_port, hop(UPSTREAM_ID, 1, 2), 8, md))
        self.expect_only(OUT, exp)


class SinkTest(IntTest):
    """At a sink port the host gets the original packet (UDP port and lengths restored,
    checksum valid again) and the collector the packet as received plus this hop."""

    def runTest(self) -> None:
        self.add_int_sink(OUT)
        self.collector()
        pkt = udp_packet(dport=4444)
        arriving = self.upstream(pkt)
        self.send(IN, arriving)
        self.expect(OUT, self.routed(pkt))
        stack = hop(SWITCH_ID, IN, OUT) + hop(UPSTREAM_ID, 1, 2)
        inner = with_int(pkt, self.int_port, stack, 16, md_header(6, BASIC))
        exp = report(bytes(inner), SWITCH_ID)
        hop_mask(exp, ETH_IP_UDP + REPORT_HDRS + ETH_IP_UDP + SHIM_MD)
        self.expect(COLLECTOR, exp)
        self.expect_nothing()


class UnwatchedFlowTest(IntTest):
    """A flow the watchlist does not match gets no INT and makes no report."""

    def runTest(self) -> None:
        self.add_int_watchlist(8, BASIC, ip_proto=(17, 0xFF), l4_dport=(4444, 0xFFFF))
        self.add_int_sink(OUT)
        self.collector()
        pkt = udp_packet(dport=80, smac=HOST_MAC)
        self.send(IN, pkt)
        self.expect_only(OUT, self.routed(pkt))
