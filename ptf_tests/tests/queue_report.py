"""Queue reports: a packet that waited behind `threshold` packets or more in its egress
queue makes the switch send a postcard to the collector (Telemetry Report v2.0, Q=1):
node id, ingress and egress port, hop latency, queue id and occupancy, and the packet's
first 128 bytes as it left. At most one per port per interval. A burst into port 2 while
it is served slowly: packet i (i >= 1) finds i - 1 packets ahead of it. Sequence number
and hop latency are masked; everything else is compared bit for bit."""

from __future__ import annotations

import struct

from ptf.mask import Mask
from scapy.packet import Packet

from ptf_tests.lib.fabric_test import FabricTest, next_hop_mac
from ptf_tests.lib.packets import ROUTER_MAC, route, udp_packet
from ptf_tests.lib.reports import ETH_IP_UDP, REPORT, report_mask

IN, OUT, COLLECTOR = 1, 2, 3
SWITCH_ID = 11
KEPT = 128
LONG_GAP_US = 60_000_000


def queue_report(left: Packet, occupancy: int) -> Mask:
    """The report of `left` (as it left port OUT) having found `occupancy` queued."""
    inner = bytes(left)[:KEPT]
    rep_len = 2 + 3 + (len(inner) + 3) // 4
    mask = report_mask(
        SWITCH_ID,
        struct.pack("!BBBB", 0x13, rep_len, 3, 0x40)  # INT, in_type Ethernet; Q flag
        + struct.pack("!HHHH", 0x7000, 0, 0, 0)  # RepMdBits: ports, latency, queue
        + struct.pack("!HHII", IN, OUT, 0, occupancy)  # queue id 0
        + inner,
    )
    mask.set_do_not_care((ETH_IP_UDP + 24) * 8, 32)  # hop latency
    return mask


class QueueReportTest(FabricTest):
    def setUp(self) -> None:
        super().setUp()
        self.require_queue_control()
        self.add_ecmp_route("10.0.2.0/24", 1101, [OUT])
        self.add_int_report(COLLECTOR, **REPORT)
        self.add_int_session(COLLECTOR)

    def routed(self, pkt: Packet) -> Packet:
        return route(pkt, ROUTER_MAC, next_hop_mac(OUT))


class CongestedQueueReportTest(QueueReportTest):
    """Threshold 4: packet 5 of a burst of 8 is the first to find 4 ahead of it and is
    reported; packets 6 and 7 are not (one report per interval); every packet of the
    burst leaves unchanged."""

    def runTest(self) -> None:
        self.add_queue_report(OUT, SWITCH_ID, 4, LONG_GAP_US)
        pkts = [udp_packet(sport=i, payload=bytes(range(150))) for i in range(8)]
        out = self.burst(IN, pkts, OUT)
        self.assertEqual(out, [bytes(self.routed(p)) for p in pkts])
        frame = self.next_frame(COLLECTOR)
        want = queue_report(self.routed(pkts[5]), 4)
        self.assertTrue(want.pkt_match(frame), frame.hex())
        latency_ns = struct.unpack_from("!I", frame, ETH_IP_UDP + 24)[0]
        self.assertGreater(latency_ns, 0)
        self.expect_nothing()


class QueueBelowThresholdTest(QueueReportTest):
    """Threshold 20 on a burst of 6: no packet finds that many ahead, no report."""

    def runTest(self) -> None:
        self.add_queue_report(OUT, SWITCH_ID, 20, 0)
        pkts = [udp_packet(sport=i) for i in range(6)]
        out = self.burst(IN, pkts, OUT)
        self.assertEqual(out, [bytes(self.routed(p)) for p in pkts])
        self.expect_nothing()
