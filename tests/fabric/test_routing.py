"""Routing: LPM to a next hop, TTL and checksum, drops by reason, ARP, packet I/O."""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest

from softswitch.program_info import CompiledProgram

from .fabric import Fabric
from .packets import (
    ETH_ARP,
    ETH_IPV4,
    ETH_VLAN,
    Frame,
    arp,
    csum16,
    ethernet,
    ipv4,
    ipv4_header,
    route,
)

ROUTER = "00:00:00:00:aa:01"
NH = "00:00:00:00:02:02"


@pytest.fixture
def fab(program: CompiledProgram) -> Fabric:
    f = Fabric(program, router_mac=ROUTER)
    f.add_ecmp_route("10.0.2.0/24", 1, [2])
    f.add_ecmp_route("2001:db8:2::/64", 2, [3])
    return f


def test_ipv4_routed_with_ttl_and_checksum(fab: Fabric) -> None:
    pkt = Frame(ttl=64, ident=0x1234, dscp=10, ecn=2)
    out = fab.send(1, pkt.bytes())
    assert out == [(2, route(pkt, ROUTER, NH).bytes())]
    assert ipv4_header(out[0][1])["checksum_ok"]
    assert ipv4_header(out[0][1])["ttl"] == 63


def test_tcp_and_longest_prefix(fab: Fabric) -> None:
    fab.add_ecmp_route("10.0.2.128/25", 3, [4])
    low, high = Frame(dst="10.0.2.1", l4="tcp"), Frame(dst="10.0.2.200", l4="tcp")
    assert fab.send(1, low.bytes()) == [(2, route(low, ROUTER, NH).bytes())]
    assert fab.send(1, high.bytes()) == [(4, route(high, ROUTER, "00:00:00:00:04:04").bytes())]


def test_ipv6_routed_with_hop_limit(fab: Fabric) -> None:
    pkt = Frame(src="2001:db8:1::1", dst="2001:db8:2::5", ttl=10)
    assert fab.send(1, pkt.bytes()) == [(3, route(pkt, ROUTER, "00:00:00:00:03:03").bytes())]


@pytest.mark.parametrize("ttl", [0, 1])
def test_ttl_expiry_is_dropped_and_counted(fab: Fabric, ttl: int) -> None:
    assert fab.send(1, Frame(ttl=ttl).bytes()) == []
    assert fab.send(1, Frame(src="2001:db8:1::1", dst="2001:db8:2::5", ttl=ttl).bytes()) == []
    assert fab.drops("TTL_EXPIRED") == 2
    assert fab.send(1, Frame(ttl=2).bytes()) != []


def test_no_route_and_other_drops_are_counted(fab: Fabric) -> None:
    assert fab.send(1, Frame(dst="10.9.9.9").bytes()) == []
    assert fab.drops("NO_ROUTE") == 1
    assert fab.send(1, replace(Frame(), dmac="00:00:00:00:99:99").bytes()) == []
    assert fab.drops("NOT_ROUTER_MAC") == 1
    bad = bytearray(Frame().bytes())
    bad[24] ^= 0xFF  # corrupt the IPv4 header checksum
    assert fab.send(1, bytes(bad)) == []
    assert fab.drops("IPV4_CHECKSUM") == 1
    fab.add_route("10.0.3.0/24", 9)  # a route to a group that does not exist
    assert fab.send(1, Frame(dst="10.0.3.1").bytes()) == []
    assert fab.drops("GROUP_MISS") == 1
    fab.add_route_action("10.0.4.0/24", "drop_route")
    assert fab.send(1, Frame(dst="10.0.4.1").bytes()) == []
    assert fab.drops("ROUTE_BLACKHOLE") == 1
    drops = fab.extern("drop_counter")
    assert sum(drops.packets) == 5
    rx = fab.extern("ingress_port_counter")
    assert rx.packets[1] == 5 and rx.bytes[1] == 5 * len(Frame().bytes())


def test_vlan_tag_from_a_host_is_removed(fab: Fabric) -> None:
    pkt = Frame()
    raw = pkt.bytes()
    tagged = raw[:12] + struct.pack("!HH", ETH_VLAN, 10) + raw[12:]
    assert fab.send(1, tagged) == [(2, route(pkt, ROUTER, NH).bytes())]


def test_tx_counters(fab: Fabric) -> None:
    for _ in range(3):
        fab.send(1, Frame().bytes())
    tx = fab.extern("egress_port_counter")
    assert tx.packets[2] == 3


# ------------------------------------------------------------------ ARP
def arp_request(target: str) -> bytes:
    body = arp(1, "00:00:00:00:01:01", "10.0.1.1", "00:00:00:00:00:00", target)
    return ethernet("ff:ff:ff:ff:ff:ff", "00:00:00:00:01:01", ETH_ARP) + body


def test_arp_request_is_answered_from_the_table(fab: Fabric) -> None:
    fab.add_arp_reply("10.0.1.254", ROUTER)
    out = fab.send(1, arp_request("10.0.1.254"))
    reply = ethernet("00:00:00:00:01:01", ROUTER, ETH_ARP) + arp(
        2, ROUTER, "10.0.1.254", "00:00:00:00:01:01", "10.0.1.1"
    )
    assert out == [(1, reply)]


def test_unknown_arp_is_punted_with_packet_in(fab: Fabric) -> None:
    req = arp_request("10.0.1.77")
    cpu = fab.c["CPU_PORT"]
    # packet_in: ingress_port (9 bits) and 7 bits of padding
    assert fab.send(3, req) == [(cpu, struct.pack("!H", 3 << 7) + req)]


def test_packet_out_goes_where_its_header_says(fab: Fabric) -> None:
    inner = Frame(dst="10.9.9.9", ttl=1).bytes()  # unroutable and expiring: untouched anyway
    cpu = fab.c["CPU_PORT"]
    assert fab.send(cpu, struct.pack("!H", 7 << 7) + inner) == [(7, inner)]


def test_route_to_cpu_punts(fab: Fabric) -> None:
    fab.add_route_action("10.0.1.254/32", "punt_to_cpu")
    pkt = Frame(dst="10.0.1.254").bytes()
    cpu = fab.c["CPU_PORT"]
    out = fab.send(1, pkt)
    assert out == [(cpu, struct.pack("!H", 1 << 7) + pkt)]


def test_ipv4_options_are_dropped(fab: Fabric) -> None:
    opts = ipv4("10.0.1.1", "10.0.2.1", 17, 12, ihl=6)
    hdr = opts[:20] + b"\x01\x01\x01\x01"
    hdr = hdr[:10] + struct.pack("!H", 0) + hdr[12:]
    hdr = hdr[:10] + struct.pack("!H", csum16(hdr)) + hdr[12:]
    frame = ethernet(ROUTER, "00:00:00:00:01:01", ETH_IPV4) + hdr + bytes(8)
    assert fab.send(1, frame) == []
    assert fab.drops("IPV4_OPTIONS") == 1
