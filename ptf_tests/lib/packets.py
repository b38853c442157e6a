"""Packets for the suite: scapy builders with explicit MAC addresses (an `Ether()` without
`dst` makes scapy ARP on the host network), and the named transformations a switch applies,
so a test states only what should change:

    exp = mark_ce(route(pkt, ROUTER_MAC, NEXT_HOP_MAC))

Transformations return new packets (the input is never changed) with the checksums that
depend on what changed left for scapy to recompute.
"""

from __future__ import annotations

import struct

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Packet, Raw

__all__ = [
    "BTH_RC_SEND_ONLY",
    "HOST_MAC",
    "ROCE_PORT",
    "ROUTER_MAC",
    "arp_reply",
    "arp_request",
    "bth",
    "cnp_for",
    "dec_ttl",
    "ecn_of",
    "mark_ce",
    "roce_packet",
    "route",
    "set_dscp",
    "tcp_packet",
    "trim",
    "udp_packet",
    "with_vlan",
]

ROUTER_MAC = "00:00:00:00:aa:01"
HOST_MAC = "00:00:00:00:01:01"
ROCE_PORT = 4791
BTH_RC_SEND_ONLY = 0x04
BTH_CNP = 0x81
BTH_BYTES = 12
CNP_PAYLOAD_BYTES = 20  # 16 reserved bytes and the ICRC
PAYLOAD = bytes(range(32))


def _l3(src: str, dst: str, ttl: int, dscp: int, ecn: int, ident: int) -> Packet:
    if ":" in src:
        return IPv6(src=src, dst=dst, hlim=ttl, tc=(dscp << 2) | ecn)
    return IP(src=src, dst=dst, ttl=ttl, tos=(dscp << 2) | ecn, id=ident, flags=0)


def udp_packet(
    src: str = "10.0.1.1",
    dst: str = "10.0.2.1",
    *,
    smac: str = HOST_MAC,
    dmac: str = ROUTER_MAC,
    sport: int = 1234,
    dport: int = 80,
    ttl: int = 64,
    dscp: int = 0,
    ecn: int = 0,
    ident: int = 0,
    payload: bytes = PAYLOAD,
) -> Packet:
    """Ethernet / IPv4 or IPv6 (by the address) / UDP / payload."""
    return (
        Ether(dst=dmac, src=smac)
        / _l3(src, dst, ttl, dscp, ecn, ident)
        / UDP(sport=sport, dport=dport)
        / Raw(payload)
    )


def tcp_packet(
    src: str = "10.0.1.1",
    dst: str = "10.0.2.1",
    *,
    smac: str = HOST_MAC,
    dmac: str = ROUTER_MAC,
    sport: int = 1234,
    dport: int = 80,
    ttl: int = 64,
    dscp: int = 0,
    ecn: int = 0,
    payload: bytes = PAYLOAD,
) -> Packet:
    return (
        Ether(dst=dmac, src=smac)
        / _l3(src, dst, ttl, dscp, ecn, 0)
        / TCP(sport=sport, dport=dport, flags="A", seq=1, window=1024)
        / Raw(payload)
    )


def bth(opcode: int, qp: int, psn: int = 0, pkey: int = 0xFFFF, becn: int = 0) -> bytes:
    """An InfiniBand Base Transport Header (IBTA Annex A17): 12 bytes."""
    return struct.pack("!BBHII", opcode, 0, pkey, (becn << 30) | qp, psn & 0xFFFFFF)


def roce_packet(
    src: str = "10.0.1.1",
    dst: str = "10.0.2.1",
    *,
    smac: str = HOST_MAC,
    dmac: str = ROUTER_MAC,
    sport: int = 1234,
    qp: int = 0x12,
    psn: int = 0,
    ttl: int = 64,
    dscp: int = 0,
    ecn: int = 0,
    ident: int = 0,
    payload: bytes = PAYLOAD,
    udp_checksum: int | None = 0,
) -> Packet:
    """A RoCEv2 packet: UDP to 4791, a BTH (RC SEND only), payload. RoCEv2 senders leave
    the UDP checksum 0 (the ICRC protects the packet)."""
    return (
        Ether(dst=dmac, src=smac)
        / _l3(src, dst, ttl, dscp, ecn, ident)
        / UDP(sport=sport, dport=ROCE_PORT, chksum=udp_checksum)
        / Raw(bth(BTH_RC_SEND_ONLY, qp, psn) + payload)
    )


def arp_request(target_ip: str, sender_ip: str = "10.0.1.1", sender_mac: str = HOST_MAC) -> Packet:
    return Ether(dst="ff:ff:ff:ff:ff:ff", src=sender_mac, type=0x0806) / ARP(
        op=1, hwsrc=sender_mac, psrc=sender_ip, hwdst="00:00:00:00:00:00", pdst=target_ip
    )


def arp_reply(request: Packet, mac: str) -> Packet:
    """The answer to an ARP `request` from the owner of its target address."""
    req = request[ARP]
    return Ether(dst=req.hwsrc, src=mac, type=0x0806) / ARP(
        op=2, hwsrc=mac, psrc=req.pdst, hwdst=req.hwsrc, pdst=req.psrc
    )


# ------------------------------------------------------------------ transformations
def _fresh(pkt: Packet) -> Packet:
    """A copy whose IPv4 header checksum scapy recomputes."""
    p = pkt.copy()
    if IP in p:
        del p[IP].chksum
    return p


def dec_ttl(pkt: Packet, hops: int = 1) -> Packet:
    p = _fresh(pkt)
    if IP in p:
        p[IP].ttl -= hops
    elif IPv6 in p:
        p[IPv6].hlim -= hops
    return p


def route(pkt: Packet, smac: str, dmac: str, hops: int = 1) -> Packet:
    """What a router makes of `pkt`: its MACs, TTL (hop limit) down by one per hop."""
    p = dec_ttl(pkt, hops)
    p[Ether].src = smac
    p[Ether].dst = dmac
    return p


def mark_ce(pkt: Packet) -> Packet:
    """ECN set to Congestion Experienced."""
    p = _fresh(pkt)
    if IP in p:
        p[IP].tos |= 3
    else:
        p[IPv6].tc |= 3
    return p


def set_dscp(pkt: Packet, dscp: int) -> Packet:
    p = _fresh(pkt)
    if IP in p:
        p[IP].tos = (dscp << 2) | (p[IP].tos & 3)
    else:
        p[IPv6].tc = (dscp << 2) | (p[IPv6].tc & 3)
    return p


def trim(pkt: Packet, dscp: int) -> Packet:
    """Packet trimming: cut after the L4 header (and the BTH of RoCEv2), lengths to
    match, DSCP set, the UDP checksum of IPv4 zeroed; TCP and IPv6 UDP checksums are left
    as they were (stale)."""
    sent = Ether(bytes(pkt))  # every field explicit, checksums computed
    p = set_dscp(pkt, dscp)
    if TCP in p:
        p[TCP].chksum = sent[TCP].chksum
        p[TCP].remove_payload()
    else:
        udp = p[UDP]
        keep = bytes(udp.payload)[:BTH_BYTES] if udp.dport == ROCE_PORT else b""
        udp.remove_payload()
        udp.len = None
        udp.chksum = 0 if IP in p else sent[UDP].chksum
        if keep:
            udp.add_payload(Raw(keep))
    if IP in p:
        p[IP].len = None
    else:
        p[IPv6].plen = None
    return p


def cnp_for(data: Packet, dscp: int) -> Packet:
    """The CNP a switch sends back for RoCEv2 `data` (IBTA Annex A17): addresses swapped,
    TTL 64, `dscp`, not-ECT, UDP 4791 from the data's source port, BTH opcode 0x81 with
    BECN to the data's destination QP and P_Key, 16 reserved bytes and a zero ICRC."""
    ip, udp = data[IP], data[UDP]
    dqpn = int.from_bytes(bytes(udp.payload)[5:8], "big")
    pkey = int.from_bytes(bytes(udp.payload)[2:4], "big")
    return (
        Ether(dst=data[Ether].src, src=data[Ether].dst)
        / IP(src=ip.dst, dst=ip.src, ttl=64, tos=dscp << 2, id=ip.id, flags=0)
        / UDP(sport=udp.sport, dport=ROCE_PORT, chksum=0)
        / Raw(bth(BTH_CNP, dqpn, 0, pkey, becn=1) + bytes(CNP_PAYLOAD_BYTES))
    )


def with_vlan(pkt: Packet, vid: int) -> Packet:
    """`pkt` with an 802.1Q tag after its MAC addresses."""
    eth = pkt[Ether]
    return Ether(dst=eth.dst, src=eth.src) / Dot1Q(vlan=vid) / pkt[Ether].payload.copy()


def ecn_of(frame: bytes) -> int:
    """The ECN bits of an IPv4/IPv6 frame (no VLAN tag)."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if ethertype == 0x86DD:
        return (struct.unpack("!I", frame[14:18])[0] >> 20) & 3
    return frame[15] & 3
