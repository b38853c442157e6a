"""ECMP: a flow sticks to one member; many flows spread evenly; replicated member slots
weight the spread (WCMP); dead members are skipped without moving other flows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from scapy.packet import Packet

from ptf_tests.lib.fabric_test import CHI2_P001, FabricTest, chi_square_uniform, flows
from ptf_tests.lib.packets import roce_packet

PORTS = [2, 3, 4, 5]
PREFIX = "10.0.2.0/24"


class EcmpTest(FabricTest):
    group = 0  # one per test: the switch keeps data-plane state of earlier tests

    def route_flows(self, pkts: Iterable[Packet], ports: Sequence[int] = PORTS) -> list[int]:
        return self.out_ports(pkts, ports)


class EcmpStickyAndEvenTest(EcmpTest):
    """1,200 flows, each sent twice: the same member both times, the spread over four
    members passes a chi-square test (p = 0.001) and no member gets under 20 % or over
    30 %; the member counters agree with what arrived."""

    group = 201

    def runTest(self) -> None:
        members = self.add_ecmp_route(PREFIX, self.group, PORTS)
        before = [self.member_packets(m) for m in members]
        pkts = list(flows(1200))
        first = self.route_flows(pkts)
        self.assertEqual(self.route_flows(pkts), first, "a flow changed member")
        counts = Counter(first)
        shares = [counts[p] / len(pkts) for p in PORTS]
        chi2 = chi_square_uniform([counts[p] for p in PORTS])
        self.assertLess(chi2, CHI2_P001[len(PORTS) - 1], f"uneven spread {counts}")
        self.assertTrue(all(0.20 < s < 0.30 for s in shares), f"shares {shares}")
        got = [self.member_packets(m) - b for m, b in zip(members, before, strict=True)]
        self.assertEqual(got, [2 * counts[p] for p in PORTS])


class EcmpRoceQueuePairTest(EcmpTest):
    """RoCEv2 flows with one 5-tuple and different destination QPs spread (the hash
    covers the QP)."""

    group = 202

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, self.group, PORTS)
        ports = set(self.route_flows([roce_packet(qp=qp) for qp in range(64)]))
        self.assertEqual(ports, set(PORTS))


class WeightedMembersTest(EcmpTest):
    """WCMP by slots: port 2 in three of four slots gets about 3/4 of the flows."""

    group = 203

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, self.group, [2, 2, 2, 3])
        counts = Counter(self.route_flows(list(flows(800)), [2, 3]))
        share = counts[2] / 800
        # binomial(800, 0.75): sd 1.5 %; 5 sd either side
        self.assertTrue(0.675 < share < 0.825, f"port 2 share {share:.3f} ({counts})")


class DeadMemberTest(EcmpTest):
    """Clearing a member's live bit moves only its flows, to the next live slot
    (cyclically); the other flows keep their member."""

    group = 204

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, self.group, PORTS)
        pkts = list(flows(300))
        before = self.route_flows(pkts)
        self.set_group(self.group, "ecmp", 4, live=0b1101)  # member 1 (port 3) down
        after = self.route_flows(pkts, [2, 4, 5])
        for b, a in zip(before, after, strict=True):
            self.assertEqual(a, 4 if b == 3 else b)
        self.set_group(self.group, "ecmp", 4, live=0b0111)  # member 3 (port 5): wraps to 0
        moved = {
            a for b, a in zip(before, self.route_flows(pkts, [2, 3, 4]), strict=True) if b == 5
        }
        self.assertEqual(moved, {2})


class NoLiveMemberTest(EcmpTest):
    """A group without a live member drops (NO_LIVE_MEMBER)."""

    group = 205

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, self.group, PORTS, live=0)
        before = self.drop_count("NO_LIVE_MEMBER")
        for p in flows(5):
            self.send(1, p)
        self.expect_nothing(timeout=0.2)
        self.assertEqual(self.drop_count("NO_LIVE_MEMBER") - before, 5)
