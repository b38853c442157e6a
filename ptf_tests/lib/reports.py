"""What the collector receives from fabric.p4: a Telemetry Report v2.0 inside the
Ethernet/IPv4/UDP encapsulation the tests configure (`REPORT`), as a PTF mask with the
sequence number left out. Shared by the INT, drop-report and queue-report tests."""

from __future__ import annotations

import struct

from ptf.mask import Mask
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from ptf_tests.lib.packets import ROUTER_MAC

COLLECTOR_MAC = "00:00:00:00:cc:cc"
REPORT = {
    "src_mac": ROUTER_MAC,
    "dst_mac": COLLECTOR_MAC,
    "src_ip": "10.0.0.1",
    "dst_ip": "10.0.0.100",
    "src_port": 40000,
    "dst_port": 32766,
}
ETH_IP_UDP = 14 + 20 + 8


def report_mask(node_id: int, individual: bytes) -> Mask:
    """The frame carrying a report from `node_id` whose individual report (header, main
    contents, metadata, inner packet) is `individual`; sequence number masked."""
    body = struct.pack("!II", 2 << 28, node_id) + individual  # version 2, hw id 0
    r = (
        Ether(dst=COLLECTOR_MAC, src=ROUTER_MAC)
        / IP(src=REPORT["src_ip"], dst=REPORT["dst_ip"], ttl=64, id=0, flags=0)
        / UDP(sport=REPORT["src_port"], dport=REPORT["dst_port"], chksum=0)
        / Raw(body)
    )
    mask = Mask(bytes(r))
    mask.set_do_not_care(ETH_IP_UDP * 8 + 10, 22)
    return mask


def report_seq(frame: bytes) -> int:
    return struct.unpack("!I", frame[ETH_IP_UDP : ETH_IP_UDP + 4])[0] & 0x3FFFFF
