"""Congestion signalling, bit-exact: CNPs back to a RoCEv2 sender (rate-limited per flow)
and packet trimming (cut, re-marked, ahead of the backlog).

Both read the depth egress last recorded for the data's port: `congest` builds a backlog
on port 2 (served at 4 packets/s) and waits until port_queue_depth shows it."""

from __future__ import annotations

import ipaddress
import time

from controller.lb import Cnp
from ptf_tests.lib.fabric_test import BACKGROUND_PREFIX, FabricTest, next_hop_mac
from ptf_tests.lib.packets import (
    ROUTER_MAC,
    cnp_for,
    roce_packet,
    route,
    tcp_packet,
    trim,
    udp_packet,
)

DATA_PORT, HOST_PORT = 2, 1
INTERVAL_US = 300_000


class CongestionTest(FabricTest):
    def setUp(self) -> None:
        super().setUp()
        self.require_queue_control()
        self.add_ecmp_route("10.0.2.0/24", 601, [DATA_PORT])
        self.ignore_background()

    def counter(self, name: str, index: int) -> int:
        return self.sw.read_counter(name, index).packets

    def send_expect_trimmed(self, psn: int, dscp: int) -> None:
        """Send a RoCEv2 packet toward DATA_PORT's backlog and check that the next frame
        out of the port that is not background is its trimmed header. On a real-time
        switch the backlog keeps leaving meanwhile, so background frames are skipped."""
        background = ipaddress.ip_network(BACKGROUND_PREFIX)
        data = roce_packet(qp=0x42, psn=psn, ident=psn, ecn=2, payload=bytes(500))
        self.send(HOST_PORT, data)
        got = self.next_frame(DATA_PORT)
        while ipaddress.ip_address(got[30:34]) in background:
            got = self.next_frame(DATA_PORT)
        exp = trim(route(data, ROUTER_MAC, next_hop_mac(DATA_PORT)), dscp)
        self.assertEqual(got.hex(), bytes(exp).hex())


class CnpTest(CongestionTest):
    """A RoCEv2 packet toward a queue above the threshold makes the switch send the CNP
    back out of the sender's port, bit-exact; the same flow gets no second CNP within
    the interval, another flow gets its own, and after the interval the first again."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=20)  # port_queue_depth 18, falling 4 per second
        self.set_cnp(DATA_PORT, threshold=5, interval_us=INTERVAL_US, dscp=48)
        self.add_cnp_session(HOST_PORT)
        before = self.counter("cnp_counter", HOST_PORT)
        data = roce_packet(qp=0x123456, psn=77, ident=0x77, ecn=2, payload=bytes(200))
        self.send(HOST_PORT, data)
        sent_at = time.monotonic()
        self.expect_next(HOST_PORT, cnp_for(data, dscp=48))
        self.send(HOST_PORT, roce_packet(qp=0x123456, psn=78, ident=0x77, ecn=2))
        self.expect_nothing(timeout=0.1)  # the data itself waits in port 2's queue
        other = roce_packet(sport=999, qp=0x123456, ident=0x78, ecn=2)
        self.send(HOST_PORT, other)
        self.expect_next(HOST_PORT, cnp_for(other, dscp=48))
        time.sleep(max(0.0, sent_at + INTERVAL_US / 1e6 * 1.2 - time.monotonic()))
        again = roce_packet(qp=0x123456, psn=79, ident=0x79, ecn=2)
        self.send(HOST_PORT, again)
        self.expect_next(HOST_PORT, cnp_for(again, dscp=48))
        self.assertEqual(self.counter("cnp_counter", HOST_PORT) - before, 3)


class NoCnpTest(CongestionTest):
    """No CNP while the queue is at (not above) the threshold, nor for non-RoCE UDP."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)  # depth 8
        self.set_cnp(DATA_PORT, threshold=8, interval_us=INTERVAL_US, dscp=48)
        self.add_cnp_session(HOST_PORT)
        self.send(HOST_PORT, roce_packet())
        self.expect_nothing(timeout=0.1)
        self.modify(self.enc.cnp(DATA_PORT, Cnp(1, INTERVAL_US, 48)))
        self.send(HOST_PORT, udp_packet(sport=4791, dport=4791 + 1))
        self.expect_nothing(timeout=0.1)


class TrimRoceTest(CongestionTest):
    """Above the threshold a RoCEv2 packet is cut after its BTH, lengths fixed, DSCP 8,
    UDP checksum zeroed, and queued at priority 1: it is the next packet out of port 2,
    ahead of the 8 queued before it."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)
        self.set_trim(DATA_PORT, threshold=4, dscp=8, priority=1)
        before = self.counter("trimmed_counter", DATA_PORT)
        data = roce_packet(qp=0x42, psn=9, ident=5, ecn=2, payload=bytes(1000), udp_checksum=0xBEEF)
        self.send(HOST_PORT, data)
        self.expect_next(DATA_PORT, trim(route(data, ROUTER_MAC, next_hop_mac(DATA_PORT)), 8))
        self.assertEqual(self.counter("trimmed_counter", DATA_PORT) - before, 1)


class TrimSparesSmallPacketTest(CongestionTest):
    """Above the threshold a RoCEv2 ACK-sized packet (8 bytes after its BTH: an AETH and
    the ICRC) is not cut, which would lose its AETH: it leaves whole, DSCP kept, at
    priority 1 (the next packet out of port 2, ahead of the backlog), and is not counted
    as trimmed."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)
        self.set_trim(DATA_PORT, threshold=4, dscp=8, priority=1)
        before = self.counter("trimmed_counter", DATA_PORT)
        ack = roce_packet(qp=0x43, psn=3, ident=6, payload=bytes(8))
        self.send(HOST_PORT, ack)
        self.expect_next(DATA_PORT, route(ack, ROUTER_MAC, next_hop_mac(DATA_PORT)))
        self.assertEqual(self.counter("trimmed_counter", DATA_PORT) - before, 0)


class NoTrimAtThresholdTest(CongestionTest):
    """At the threshold (not above) the packet is forwarded whole, behind the backlog."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)  # depth 8, 8 queued
        self.set_trim(DATA_PORT, threshold=8, dscp=8, priority=1)
        data = roce_packet(payload=bytes(1000))
        self.send(HOST_PORT, data)
        assert self.target.queues is not None
        self.target.queues.wait_queued(DATA_PORT, 9, timeout=2)
        self.unthrottle(DATA_PORT)
        frames = [self.next_frame(DATA_PORT) for _ in range(9)]
        self.assertEqual(frames[-1], bytes(route(data, ROUTER_MAC, next_hop_mac(DATA_PORT))))


class TrimTcpTest(CongestionTest):
    """TCP is cut after its TCP header (IP length 40), DSCP set, TCP checksum as it was."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)
        self.set_trim(DATA_PORT, threshold=0, dscp=8, priority=1)
        data = tcp_packet(payload=bytes(500))
        self.send(HOST_PORT, data)
        exp = trim(route(data, ROUTER_MAC, next_hop_mac(DATA_PORT)), 8)
        self.assertEqual(len(exp) - 14, 40)
        self.expect_next(DATA_PORT, exp)


class TrimBurstKeepsDepthTest(CongestionTest):
    """Trimmed packets leave from the priority queue, whose depth says nothing of the data
    queue: they must not overwrite the depth trimming and CNPs read. Three packets in a
    row toward the same backlog are all trimmed, and after each has left the recorded
    depth is still the data queue's (above the threshold), not the priority queue's 0.

    The backlog keeps leaving (4 per second) while the test reads the register; an
    untrimmed packet would wait behind all of it (about 5 s)."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=24)  # port_queue_depth 22, falling 4 per second
        self.set_trim(DATA_PORT, threshold=4, dscp=8, priority=1)
        before = self.counter("trimmed_counter", DATA_PORT)
        for psn in range(3):
            self.send_expect_trimmed(psn, dscp=8)
            self.assertGreater(self.queue_depth_seen(DATA_PORT), 4)
        self.assertEqual(self.counter("trimmed_counter", DATA_PORT) - before, 3)


class TrimmedTailDrainsTest(CongestionTest):
    """The depth trimming reads cannot outlive the backlog: while every new packet is
    trimmed no data packet joins the queue, but the backlog still leaves from it and each
    departure records the depth behind it, the last one 0. After a trimmed burst and the
    drain, the next packet is forwarded whole (not trimmed by a depth left from the burst)."""

    def runTest(self) -> None:
        self.congest(DATA_PORT, backlog=10)  # depth 8, falling 4 per second
        self.set_trim(DATA_PORT, threshold=4, dscp=8, priority=1)
        before = self.counter("trimmed_counter", DATA_PORT)
        for psn in range(2):
            self.send_expect_trimmed(psn, dscp=8)
        self.unthrottle(DATA_PORT)
        self.wait_for(
            f"port {DATA_PORT}'s backlog to drain", lambda: self.queue_depth_seen(DATA_PORT) == 0
        )
        whole = roce_packet(qp=0x42, psn=2, ident=2, ecn=2, payload=bytes(500))
        self.send(HOST_PORT, whole)
        self.expect(DATA_PORT, route(whole, ROUTER_MAC, next_hop_mac(DATA_PORT)))
        self.assertEqual(self.counter("trimmed_counter", DATA_PORT) - before, 2)
