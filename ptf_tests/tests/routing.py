"""Routing: LPM to a next hop, TTL and checksum, drops of malformed and expired packets."""

from __future__ import annotations

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import checksum

from ptf_tests.lib.fabric_test import FabricTest, next_hop_mac
from ptf_tests.lib.packets import ROUTER_MAC, route, tcp_packet, udp_packet, with_vlan

V4_PREFIX, V4_GROUP, V4_PORT = "10.0.2.0/24", 101, 2
V6_PREFIX, V6_GROUP, V6_PORT = "2001:db8:2::/64", 102, 3


class RoutingTest(FabricTest):
    """Base: one IPv4 and one IPv6 route, each to a one-member group."""

    def setUp(self) -> None:
        super().setUp()
        self.add_ecmp_route(V4_PREFIX, V4_GROUP, [V4_PORT])
        self.add_ecmp_route(V6_PREFIX, V6_GROUP, [V6_PORT])


class Ipv4UdpTest(RoutingTest):
    """IPv4/UDP: MACs rewritten, TTL - 1, header checksum recomputed, DSCP/ECN kept."""

    def runTest(self) -> None:
        pkt = udp_packet(ttl=64, ident=0x1234, dscp=10, ecn=2)
        self.send(1, pkt)
        got = self.next_frame(V4_PORT)
        self.assertEqual(got, bytes(route(pkt, ROUTER_MAC, next_hop_mac(V4_PORT))))
        self.assertEqual(IP(got[14:]).ttl, 63)
        self.assertEqual(checksum(got[14:34]), 0, "IPv4 header checksum")
        self.expect_nothing()


class Ipv4TcpLongestPrefixTest(RoutingTest):
    """TCP; a longer prefix wins over the /24."""

    def runTest(self) -> None:
        self.add_ecmp_route("10.0.2.128/25", 103, [4])
        low, high = tcp_packet(dst="10.0.2.1"), tcp_packet(dst="10.0.2.200")
        self.send(1, low)
        self.expect_only(V4_PORT, route(low, ROUTER_MAC, next_hop_mac(V4_PORT)))
        self.send(1, high)
        self.expect_only(4, route(high, ROUTER_MAC, next_hop_mac(4)))


class Ipv6Test(RoutingTest):
    """IPv6: hop limit - 1."""

    def runTest(self) -> None:
        pkt = udp_packet(src="2001:db8:1::1", dst="2001:db8:2::5", ttl=10)
        self.send(1, pkt)
        self.expect_only(V6_PORT, route(pkt, ROUTER_MAC, next_hop_mac(V6_PORT)))


class VlanTagRemovedTest(RoutingTest):
    """A host's 802.1Q tag is removed on the way through."""

    def runTest(self) -> None:
        pkt = udp_packet()
        self.send(1, with_vlan(pkt, 10))
        self.expect_only(V4_PORT, route(pkt, ROUTER_MAC, next_hop_mac(V4_PORT)))


class TtlExpiredDropTest(RoutingTest):
    """TTL / hop limit 0 and 1 are dropped and counted; 2 is forwarded."""

    def runTest(self) -> None:
        before = self.drop_count("TTL_EXPIRED")
        for ttl in (0, 1):
            self.send(1, udp_packet(ttl=ttl))
            self.send(1, udp_packet(src="2001:db8:1::1", dst="2001:db8:2::5", ttl=ttl))
        self.expect_nothing(timeout=0.2)
        self.assertEqual(self.drop_count("TTL_EXPIRED") - before, 4)
        pkt = udp_packet(ttl=2)
        self.send(1, pkt)
        self.expect_only(V4_PORT, route(pkt, ROUTER_MAC, next_hop_mac(V4_PORT)))


class MalformedDropTest(RoutingTest):
    """Each bad packet is dropped and counted under its own reason."""

    def check_drop(self, reason: str, frame: bytes) -> None:
        before = self.drop_count(reason)
        self.send(1, frame)
        self.expect_nothing(timeout=0.1)
        self.assertEqual(self.drop_count(reason) - before, 1, reason)

    def runTest(self) -> None:
        good = bytes(udp_packet())
        bad_checksum = bytearray(good)
        bad_checksum[24] ^= 0xFF  # the IPv4 header checksum
        self.check_drop("IPV4_CHECKSUM", bytes(bad_checksum))
        options = (
            Ether(dst=ROUTER_MAC, src="00:00:00:00:01:01")
            / IP(src="10.0.1.1", dst="10.0.2.1", proto=17, options=[b"\x01\x01\x01\x01"])
            / Raw(bytes(8))
        )
        self.check_drop("IPV4_OPTIONS", bytes(options))
        self.check_drop("NOT_ROUTER_MAC", bytes(udp_packet(dmac="00:00:00:00:99:99")))
        self.check_drop("NO_ROUTE", bytes(udp_packet(dst="10.9.9.9")))
        self.add_route("10.0.3.0/24", 199)  # a group that does not exist
        self.check_drop("GROUP_MISS", bytes(udp_packet(dst="10.0.3.1")))
        self.add_route_action("10.0.4.0/24", "drop_route")
        self.check_drop("ROUTE_BLACKHOLE", bytes(udp_packet(dst="10.0.4.1")))
        not_ip = Ether(dst=ROUTER_MAC, src="00:00:00:00:01:01", type=0x88B5) / Raw(bytes(46))
        self.check_drop("UNKNOWN_L3", bytes(not_ip))
        self.check_drop("UNKNOWN_L3", good[: 14 + 12])  # IPv4 header cut short


class PortCountersTest(RoutingTest):
    """Ingress and egress port counters see the routed packets (bytes as received)."""

    def runTest(self) -> None:
        rx0 = self.sw.read_counter("ingress_port_counter", 5)
        tx0 = self.sw.read_counter("egress_port_counter", V4_PORT)
        pkt = udp_packet()
        for _ in range(3):
            self.send(5, pkt)
            self.expect(V4_PORT, route(pkt, ROUTER_MAC, next_hop_mac(V4_PORT)))
        rx = self.sw.read_counter("ingress_port_counter", 5)
        tx = self.sw.read_counter("egress_port_counter", V4_PORT)
        self.assertEqual((rx.packets - rx0.packets, rx.bytes - rx0.bytes), (3, 3 * len(pkt)))
        self.assertEqual(tx.packets - tx0.packets, 3)
