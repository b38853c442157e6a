"""ARP and packet I/O: ARP answered from the table or punted, packet-in and packet-out
through the CPU port (P4Runtime StreamChannel, metadata by P4Info name)."""

from __future__ import annotations

from ptf_tests.lib.fabric_test import FabricTest
from ptf_tests.lib.packets import ROUTER_MAC, arp_reply, arp_request, udp_packet


class ArpReplyTest(FabricTest):
    """An ARP request for an address in arp_responder is answered out of its port."""

    def runTest(self) -> None:
        self.add_arp_responder("10.0.1.254", ROUTER_MAC)
        req = arp_request("10.0.1.254")
        self.send(4, req)
        self.expect_only(4, arp_reply(req, ROUTER_MAC))
        self.assertIsNone(self.sw.packet_in(timeout=0.05))


class ArpPuntTest(FabricTest):
    """Other ARP goes to the controller as a packet-in naming its ingress port."""

    def runTest(self) -> None:
        req = arp_request("10.0.1.77")
        self.send(3, req)
        got = self.sw.packet_in(timeout=3)
        self.assertIsNotNone(got, "no packet-in")
        assert got is not None
        self.assertEqual(got.payload, bytes(req))
        self.assertEqual(got.metadata["ingress_port"], 3)
        self.expect_nothing()


class PuntRouteTest(FabricTest):
    """A route with punt_to_cpu sends the packet to the controller, unchanged."""

    def runTest(self) -> None:
        self.add_route_action("10.0.1.254/32", "punt_to_cpu")
        pkt = udp_packet(dst="10.0.1.254")
        self.send(2, pkt)
        got = self.sw.packet_in(timeout=3)
        assert got is not None, "no packet-in"
        self.assertEqual((got.payload, got.metadata["ingress_port"]), (bytes(pkt), 2))
        self.expect_nothing()


class PacketOutTest(FabricTest):
    """A packet-out leaves by the port its metadata names, untouched by the pipeline
    (here unroutable and expiring: it would be dropped if it were routed)."""

    def runTest(self) -> None:
        for port in (1, 5, 8):
            inner = udp_packet(dst="10.9.9.9", ttl=1, sport=port)
            self.sw.packet_out(bytes(inner), egress_port=port)
            self.expect_only(port, inner)
