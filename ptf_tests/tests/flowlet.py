"""Flowlet switching: a flow keeps its member while its packets come closer together than
the group's gap, and re-picks only after a gap; modes change at run time with one MODIFY.

The switch runs on the wall clock here, so gaps are long (hundreds of milliseconds)
against the time a round of packets takes."""

from __future__ import annotations

import time

from ptf_tests.lib.fabric_test import FabricTest, flows
from ptf_tests.lib.packets import udp_packet

PORTS = [2, 3, 4, 5]
PREFIX = "10.0.2.0/24"
GAP_US = 500_000
MIN_GAP_S = 0.3


class FlowletRepickAfterGapTest(FabricTest):
    """Rounds of 32 flows inside the gap: every flow keeps its member. After a pause
    longer than the gap most flows move (a new flowlet picks at random: 3/4 of them on
    average), and stick again to the new member.

    The gap is ten times the time a round takes here (at least 0.3 s), measured first
    with the group in ECMP mode, so a slow machine gets a longer gap, not a flaky test."""

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, 301, PORTS)
        pkts = list(flows(32, dport=301))
        started = time.monotonic()
        self.out_ports(pkts, PORTS)
        gap_s = max(MIN_GAP_S, 10 * (time.monotonic() - started))
        self.set_group(301, "flowlet", len(PORTS), gap_us=int(gap_s * 1e6))

        def round_() -> list[int]:
            t = time.monotonic()
            ports = self.out_ports(pkts, PORTS)
            self.assertLess(time.monotonic() - t, gap_s, "a round took longer than the gap")
            return ports

        first = round_()
        for _ in range(2):
            self.assertEqual(round_(), first, "re-picked inside the gap")
        time.sleep(gap_s * 1.3)  # the behaviour under test: a pause past the gap
        second = round_()
        moved = sum(a != b for a, b in zip(first, second, strict=True))
        # binomial(32, 3/4): mean 24, sd 2.4; 8 or fewer is 6 sd away
        self.assertGreater(moved, 8, f"only {moved} of 32 flows re-picked after the gap")
        self.assertEqual(round_(), second, "a new flowlet did not stick")


class ModeChangeTest(FabricTest):
    """One MODIFY of the group entry switches ECMP (one member for a flow) to
    round-robin spraying (every member), members untouched."""

    def runTest(self) -> None:
        self.add_ecmp_route(PREFIX, 302, PORTS)
        pkt = udp_packet(dport=302)
        self.assertEqual(len(set(self.out_ports([pkt] * 20, PORTS))), 1)
        self.set_group(302, "spray_round_robin", len(PORTS))
        self.assertEqual(set(self.out_ports([pkt] * 20, PORTS)), set(PORTS))
        self.set_group(302, "flowlet", len(PORTS), gap_us=GAP_US)
        self.assertEqual(len(set(self.out_ports([pkt] * 20, PORTS))), 1)
