"""Host discovery from packet-ins: fabric.p4 punts ARP it cannot answer (docs/fabric.md,
"Forwarding"), so the sender of each punted ARP is a host on that switch port.

`HostTracker.packet_in(switch, pkt)` learns (IP, MAC) at (switch, ingress port) from an ARP
packet-in and compares it with what the topology says is there:

| verdict | meaning |
| --- | --- |
| `expected` | the topology's host at that port, with its IP and MAC |
| `wrong_mac` | the topology's IP at that port, another MAC |
| `moved` | a known host seen at another port or switch |
| `unknown` | an IP the topology does not have |

Each new or changed sighting is logged (warnings for anything but `expected`) and kept in
`hosts`, the latest sighting per IP.
"""

from __future__ import annotations

import ipaddress
import logging
import struct
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from ..entities import PacketIn

__all__ = ["ExpectedHost", "HostSighting", "HostTracker", "parse_arp"]

log = logging.getLogger("controller.fabric.hosts")

ETH_ARP = 0x0806
ETH_VLAN = 0x8100


@dataclass(frozen=True, slots=True)
class ExpectedHost:
    name: str
    ip: str
    mac: str
    switch: str
    port: int


@dataclass(frozen=True, slots=True)
class HostSighting:
    ip: str
    mac: str
    switch: str
    port: int
    verdict: str  # expected | wrong_mac | moved | unknown
    host: str | None  # the topology's name for the IP, if any


def parse_arp(frame: bytes) -> tuple[int, str, str, str] | None:
    """(operation, sender MAC, sender IP, target IP) of an Ethernet/ARP (IPv4) frame, else
    None."""
    if len(frame) < 14:
        return None
    off = 12
    (ethertype,) = struct.unpack_from("!H", frame, off)
    if ethertype == ETH_VLAN and len(frame) >= 18:
        (ethertype,) = struct.unpack_from("!H", frame, off + 4)
        off += 4
    off += 2
    if ethertype != ETH_ARP or len(frame) < off + 28:
        return None
    htype, ptype, hlen, plen, oper = struct.unpack_from("!HHBBH", frame, off)
    if (htype, ptype, hlen, plen) != (1, 0x0800, 6, 4):
        return None
    sha = frame[off + 8 : off + 14].hex(":")
    spa = str(ipaddress.IPv4Address(frame[off + 14 : off + 18]))
    tpa = str(ipaddress.IPv4Address(frame[off + 24 : off + 28]))
    return oper, sha, spa, tpa


class HostTracker:
    def __init__(self, expected: Iterable[ExpectedHost] = ()) -> None:
        self.by_ip = {h.ip: h for h in expected}
        self.hosts: dict[str, HostSighting] = {}
        self._lock = threading.Lock()

    def packet_in(self, switch: str, pkt: PacketIn) -> HostSighting | None:
        """Learn from one packet-in (None if it is not an ARP with a sender address)."""
        arp = parse_arp(pkt.payload)
        port = int(pkt.metadata.get("ingress_port", -1))
        if arp is None or arp[2] == "0.0.0.0":
            return None
        _oper, mac, ip, _target = arp
        want = self.by_ip.get(ip)
        if want is None:
            verdict = "unknown"
        elif (want.switch, want.port) != (switch, port):
            verdict = "moved"
        elif want.mac.lower() != mac:
            verdict = "wrong_mac"
        else:
            verdict = "expected"
        seen = HostSighting(ip, mac, switch, port, verdict, want.name if want else None)
        with self._lock:
            changed = self.hosts.get(ip) != seen
            self.hosts[ip] = seen
        if changed:
            where = f"{switch} port {port}"
            if verdict == "expected":
                log.info("host %s (%s, %s) at %s", seen.host, ip, mac, where)
            elif verdict == "unknown":
                log.warning("unknown host %s (%s) at %s", ip, mac, where)
            elif verdict == "moved":
                assert want is not None
                log.warning(
                    "host %s (%s) seen at %s; the topology has it at %s port %d",
                    want.name,
                    ip,
                    where,
                    want.switch,
                    want.port,
                )
            else:
                assert want is not None
                log.warning(
                    "host %s (%s) at %s has MAC %s; the topology says %s",
                    want.name,
                    ip,
                    where,
                    mac,
                    want.mac,
                )
        return seen
