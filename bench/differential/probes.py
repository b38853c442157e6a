"""Packets for programs that have no STF test of their own: a few common frames (IPv4 with
TCP and UDP, IPv6, a VLAN tag, ARP, an unknown EtherType, random bytes, a bare Ethernet
header) on ports 0 to 7, seeded by the program's name. Every port 0..7 then counts as
observed, so whatever the program sends to any of them is compared. With no table
entries, the tables run their default actions: parsers, deparsers, checksums, header
operations and externs are what such a run compares."""

from __future__ import annotations

import random
import re

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from softswitch.stf import parser as P

__all__ = ["PORTS", "probe_commands", "uses_random"]

PORTS = range(8)
_DST, _SRC = "00:00:00:00:00:02", "00:00:00:00:00:01"


def _frames(rng: random.Random) -> list[bytes]:
    eth = Ether(dst=_DST, src=_SRC)
    frames = [
        eth
        / IP(src="10.0.0.1", dst="10.0.0.2", ttl=64)
        / TCP(sport=1234, dport=80)
        / Raw(b"x" * 20),
        eth / IP(src="192.168.1.1", dst="10.1.2.3") / UDP(sport=53, dport=4791) / Raw(b"\1" * 30),
        eth / IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=1, dport=2) / Raw(b"y" * 10),
        eth / Dot1Q(vlan=5) / IP(src="10.9.9.9", dst="1.2.3.4") / ICMP(),
        Ether(dst="ff:ff:ff:ff:ff:ff", src=_SRC) / ARP(psrc="10.0.0.1", pdst="10.0.0.9"),
        Ether(dst=_DST, src=_SRC, type=0x1234) / Raw(bytes(range(64))),
    ]
    return [bytes(f) for f in frames] + [rng.randbytes(60), rng.randbytes(14)]


def probe_commands(name: str, seed: int = 1) -> tuple[P.Command, ...]:
    """The packets for program `name`: the first port gets every frame, the others a
    seeded share of them (at least one frame each, so that each is observed)."""
    rng = random.Random(f"{seed}:{name}")
    frames = _frames(rng)
    out: list[P.Command] = []
    for port in PORTS:
        chosen = [f for f in frames if port == 0 or rng.random() < 0.4] or [rng.choice(frames)]
        out.extend(P.Packet(port, f.hex()) for f in chosen)
    return tuple(out)


def uses_random(source: str) -> bool:
    """Does the program call v1model's `random` (whose values no two targets share: their
    outputs would differ by design)? Comments are not looked at."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
    return re.search(r"\brandom\s*(<|\()", code) is not None
