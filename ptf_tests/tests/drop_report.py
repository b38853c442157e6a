"""Drop reports: a packet the switch's ingress drops goes to the collector as a Telemetry
Report v2.0 with D=1: this switch's node id, the port the packet came in on, the drop
reason and the packet's first 128 bytes. One report per reason per interval; the drops in
between are counted only. Everything but the sequence number is compared bit for bit."""

from __future__ import annotations

import struct

from ptf.mask import Mask
from scapy.packet import Packet

from ptf_tests.lib.fabric_test import FabricTest, next_hop_mac
from ptf_tests.lib.packets import ROUTER_MAC, route, tcp_packet, udp_packet
from ptf_tests.lib.reports import REPORT, report_mask, report_seq

IN, OTHER_IN, OUT, COLLECTOR = 1, 4, 2, 3
SWITCH_ID = 9
KEPT = 128  # bytes of the dropped packet a report keeps
LONG_GAP_US = 60_000_000  # no second report of a reason within a test


def drop_report(dropped: Packet, in_port: int, reason: int) -> Mask:
    """The report of `dropped`, received on `in_port`: sequence number masked."""
    inner = bytes(dropped)[:KEPT]
    rep_len = 2 + 2 + (len(inner) + 3) // 4
    return report_mask(
        SWITCH_ID,
        struct.pack("!BBBB", 0x13, rep_len, 2, 0x80)  # INT, in_type Ethernet; D flag
        + struct.pack("!HHHH", 0x4001, 0, 0, 0)  # RepMdBits: ports, drop reason
        + struct.pack("!HHBBH", in_port, 511, 0, reason, 0)
        + inner,
    )


class DropReportTest(FabricTest):
    def setUp(self) -> None:
        super().setUp()
        self.add_ecmp_route("10.0.2.0/24", 801, [OUT])
        self.add_route_action("10.0.4.0/24", "drop_route")
        self.add_int_report(COLLECTOR, **REPORT)
        self.add_int_session(COLLECTOR)


class BlackholeDropReportTest(DropReportTest):
    """A blackholed packet longer than 128 bytes: reported cut to 128 bytes; a second one
    within the interval only counted; a packet the route forwards gives no report."""

    def runTest(self) -> None:
        self.add_drop_report(SWITCH_ID, LONG_GAP_US)
        dropped = self.drop_count("ROUTE_BLACKHOLE")
        pkt = udp_packet(dst="10.0.4.9", dport=4791, payload=bytes(range(200)))
        self.send(IN, pkt)
        self.expect_only(COLLECTOR, drop_report(pkt, IN, self.c["DROP_ROUTE_BLACKHOLE"]))
        self.send(IN, pkt)
        self.expect_nothing()
        self.assertEqual(self.drop_count("ROUTE_BLACKHOLE"), dropped + 2)
        ok = udp_packet()
        self.send(IN, ok)
        self.expect_only(OUT, route(ok, ROUTER_MAC, next_hop_mac(OUT)))


class ReasonsReportedApartTest(DropReportTest):
    """Each reason has its own interval; a reason without an entry is not reported; a
    short TCP packet is reported whole; sequence numbers count up. (The limiter's state is
    a register, which deleting entries does not clear: each test here uses its own
    reasons.)"""

    def runTest(self) -> None:
        self.add_drop_report(SWITCH_ID, LONG_GAP_US, "NO_ROUTE")
        self.add_drop_report(SWITCH_ID, LONG_GAP_US, "TTL_EXPIRED")
        missed = tcp_packet(dst="10.0.9.9", payload=b"")
        expired = udp_packet(ttl=1)
        self.send(IN, missed)
        first = self.next_frame(COLLECTOR)
        self.send(OTHER_IN, expired)
        second = self.next_frame(COLLECTOR)
        blackholed = self.drop_count("ROUTE_BLACKHOLE")
        self.send(IN, udp_packet(dst="10.0.4.9"))  # no entry for this reason
        self.expect_nothing()
        for frame, pkt, port, reason in (
            (first, missed, IN, "NO_ROUTE"),
            (second, expired, OTHER_IN, "TTL_EXPIRED"),
        ):
            want = drop_report(pkt, port, self.c[f"DROP_{reason}"])
            self.assertTrue(want.pkt_match(frame), f"{reason}: {frame.hex()}")
        self.assertEqual(report_seq(second), (report_seq(first) + 1) & 0x3FFFFF)
        self.assertEqual(self.drop_count("ROUTE_BLACKHOLE"), blackholed + 1)
