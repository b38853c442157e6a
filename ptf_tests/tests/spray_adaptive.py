"""Per-packet spraying (random, round-robin) and adaptive load balancing (DRILL): packets
of one flow spread over the members; adaptive keeps away from a member whose egress
queue is long; every mode skips dead members."""

from __future__ import annotations

from collections import Counter

from ptf_tests.lib.fabric_test import (
    CHI2_P001,
    FabricTest,
    chi_square_uniform,
    flows,
    next_hop_mac,
)
from ptf_tests.lib.packets import ROUTER_MAC, route, udp_packet

PORTS = [2, 3, 4, 5]
PREFIX = "10.0.2.0/24"


class SprayRandomTest(FabricTest):
    """800 packets of one flow: every member used, the spread passes a chi-square test
    (p = 0.001) and each member gets 18-32 % (about 4.5 sd)."""

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, 401, PORTS, mode="spray_random")
        got = Counter(self.out_ports([udp_packet(dport=401)] * 800, PORTS))
        self.assertLess(chi_square_uniform([got[p] for p in PORTS]), CHI2_P001[3], str(got))
        for p in PORTS:
            self.assertTrue(0.18 < got[p] / 800 < 0.32, f"port {p}: {got}")


class SprayRoundRobinTest(FabricTest):
    """Round-robin: the members take turns (from wherever the group's pointer is)."""

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, 402, PORTS, mode="spray_round_robin")
        seq = self.out_ports([udp_packet(dport=402)] * 12, PORTS)
        start = PORTS.index(seq[0])
        self.assertEqual(seq, [PORTS[(start + i) % 4] for i in range(12)])


class DeadMembersAllModesTest(FabricTest):
    """Members 0 and 2 dead (live = 0b1010): every mode uses only ports 3 and 5."""

    def runTest(self) -> None:
        for group, mode in enumerate(
            ["spray_random", "spray_round_robin", "adaptive", "flowlet"], start=403
        ):
            self.add_ecmp_route(
                f"10.{group % 256}.0.0/16", group, PORTS, mode=mode, live=0b1010, gap_us=50
            )
            pkts = list(flows(60, dst=f"10.{group % 256}.0.1"))
            self.assertEqual(set(self.out_ports(pkts, PORTS)), {3, 5}, mode)


class AdaptiveAvoidsLongQueueTest(FabricTest):
    """Adaptive over ports 2 and 3: with the fabric idle both are used; once port 2's
    queue is long (40 background packets into a port served at 4 packets/s), 200 new
    flows go to port 3.

    DRILL(2,1) compares two random samples and the group's previous best, so while the
    remembered best is the congested member a packet still goes there when both samples
    are that member too (probability 1/4 each); once one packet picked port 3, port 3
    is the remembered best and wins every later comparison. So: at most a short run of
    the first packets joins the long queue (4 or more: p < 0.4 %), and port 3 receives
    all the others, in order."""

    def runTest(self) -> None:
        self.require_queue_control()
        members = self.add_ecmp_route(PREFIX, 410, [2, 3], mode="adaptive")
        idle = Counter(self.out_ports(list(flows(20, dport=410)), [2, 3]))
        self.assertEqual(set(idle), {2, 3}, "idle fabric: both members should be used")
        self.ignore_background()
        self.congest(2, backlog=40)
        before = [self.member_packets(m) for m in members]
        busy = list(flows(200, dport=411))
        for p in busy:
            self.send(1, p)
        self.wait_for(
            "200 packets counted",
            lambda: sum(self.member_packets(m) for m in members) - sum(before) == 200,
        )
        slow = self.member_packets(members[0]) - before[0]
        self.assertLess(slow, 4, f"{slow} of 200 packets joined the long queue")
        got = [self.next_frame(3) for _ in busy[slow:]]
        exp = [bytes(route(p, ROUTER_MAC, next_hop_mac(3))) for p in busy[slow:]]
        self.assertEqual(got, exp, "port 3 should get every packet after the first pick")


class SprayIgnoresLongQueueTest(FabricTest):
    """The same congestion with random spraying: about half of 200 packets still join
    port 2's long queue (member counters; binomial(200, 1/2) within 4 sd)."""

    def runTest(self) -> None:
        self.require_queue_control()
        members = self.add_ecmp_route(PREFIX, 411, [2, 3], mode="spray_random")
        self.ignore_background()
        self.congest(2, backlog=40)
        before = [self.member_packets(m) for m in members]
        for p in flows(200, dport=412):
            self.send(1, p)
        self.wait_for(
            "200 packets counted",
            lambda: sum(self.member_packets(m) for m in members) - sum(before) == 200,
        )
        on_slow = self.member_packets(members[0]) - before[0]
        self.assertTrue(72 < on_slow < 128, f"{on_slow} of 200 sprayed onto the long queue")
