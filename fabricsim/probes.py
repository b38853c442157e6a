"""A Pingmesh-style prober: hosts send small UDP probes to other hosts during a run.

Every `probe_interval_ns` each host sends one probe to each of its peers (all other hosts
on small fabrics, a seeded subset on larger ones) from each of `SPORTS` UDP source ports
(twice as many on larger fabrics),
so the switches' hash spreads them over the fabric's paths. A probe is an IPv4/UDP frame
to port 4791 carrying a BTH of opcode `OP_PROBE`; its IPv4 identification field numbers it
per sender, which is how the wires recognise it.

The path a probe took is recorded in the simulator: each wire reports the probes put onto
it, so a probe's hops are the nodes it crossed (on a live fabric this would come from INT
or from a traceroute with the probe's 5-tuple). Under hash-based forwarding all probes of
one (src, dst, sport) take one path, so a lost probe's path is that of its tuple's
delivered probes (what a traceroute would show); when none got through, the hops it made
before it was lost (marked partial).

Latency is one-way (the simulator has one clock; Pingmesh measures round trips).
"""

from __future__ import annotations

import ipaddress
import random
import struct
from typing import Any

from controller.telemetry.probe_matrix import ProbeMatrix

from .frames import OP_PROBE, ROCE_PORT, ip_checksum

__all__ = ["OP_PROBE", "SPORTS", "Prober"]


SPORTS = 4
PROBE_BYTES = 128  # frame length
MAX_PEERS = 6  # per host on fabrics with more hosts than MAX_PEERS + 1
GRACE_NS = 200_000  # probes sent later than this before the end are not judged


def _mac(text: str) -> bytes:
    return bytes(int(x, 16) for x in text.split(":"))


class Prober:
    def __init__(self, net: Any, topo: Any, seed: int, interval_ns: int, end_ns: int) -> None:
        self.net, self.interval, self.end = net, interval_ns, end_ns
        hosts = list(topo.hosts)
        self.rng = rng = random.Random(seed * 7919 + 17)
        self.peers: dict[str, list[Any]] = {}
        # fewer peers per host on larger fabrics: more source ports to cover their paths
        self.sports = SPORTS if len(hosts) <= MAX_PEERS + 1 else 2 * SPORTS
        for h in hosts:
            others = [o for o in hosts if o.name != h.name]
            if len(others) > MAX_PEERS:
                far = [o for o in others if o.switch != h.switch]
                near = [o for o in others if o.switch == h.switch]
                others = sorted(rng.sample(far, min(MAX_PEERS - 1, len(far))), key=hosts.index)
                others += near[:1]
            self.peers[h.name] = others
        gw = {s.name: s.router_mac for s in topo.switches}
        self.hosts = {h.name: h for h in hosts}
        self.gw = {h.name: gw[h.switch] for h in hosts}
        self.ip_of = {ipaddress.IPv4Address(h.ip).packed: h.name for h in hosts}
        self.seq = dict.fromkeys(self.hosts, 0)
        # (src ip, ip id) -> [src, dst, sport, sent_ns, received_ns | None, hops]
        self.live: dict[tuple[bytes, bytes], list[Any]] = {}
        self.done: list[list[Any]] = []
        for w in net.wires.values():
            w.tap = self._tap
        for node in net.hosts.values():
            node.on_probe = self._received
        net.loop.at(0, self._round, None)

    def _frame(self, src: Any, dst: Any, sport: int, ident: int) -> bytes:
        udp_len = PROBE_BYTES - 14 - 20
        ip = struct.pack(
            "!BBHHHBBH4s4s",
            0x45,
            26 << 2,
            20 + udp_len,
            ident,
            0x4000,
            64,
            17,
            0,
            ipaddress.IPv4Address(src.ip).packed,
            ipaddress.IPv4Address(dst.ip).packed,
        )
        ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
        eth = _mac(self.gw[src.name]) + _mac(src.mac) + b"\x08\x00"
        bth = struct.pack("!BBHII", OP_PROBE, 0, 0xFFFF, 0, ident)
        udp = struct.pack("!HHHH", sport, ROCE_PORT, udp_len, 0)
        return eth + ip + udp + bth + bytes(udp_len - 8 - 12)

    def _round(self, _: Any) -> None:
        """One round: each host's probes paced evenly over the interval (as Pingmesh
        agents pace theirs), each at a seeded random moment of its slot, so that a probe does
        not meet the same other packet every round."""
        loop = self.net.loop
        now = loop.now()
        for name, peers in self.peers.items():
            n = len(peers) * self.sports
            for i, dst in enumerate(peers):
                for k in range(self.sports):
                    j = i * self.sports + k
                    sport = 0xD000 | (j * 2654435761 >> 8 & 0xFFF)
                    slot = self.interval // n
                    at = now + j * slot + self.rng.randrange(max(1, slot))  # seeded jitter
                    loop.at(at, self._send, (name, dst, sport))
        if now + self.interval <= self.end - GRACE_NS:
            loop.at(now + self.interval, self._round, None)

    def _send(self, arg: tuple[str, Any, int]) -> None:
        name, dst, sport = arg
        self.seq[name] = seq = self.seq[name] % 0xFFFF + 1
        frame = self._frame(self.hosts[name], dst, sport, seq)
        key = (frame[26:30], frame[18:20])
        old = self.live.pop(key, None)
        if old is not None:
            self.done.append(old)
        self.live[key] = [name, dst.name, sport, self.net.loop.now(), None, [name]]
        node = self.net.hosts[name]
        node.ctrl.append(frame)
        node._kick()

    def _tap(self, wire: Any, data: bytes) -> None:
        if data[18:20] == b"\0\0":
            return
        rec = self.live.get((data[26:30], data[18:20]))
        # a copy of the probe elsewhere (a mirror, a flood) is not its path: hops chain
        if rec is not None and rec[4] is None and rec[5][-1] == wire.a:
            rec[5].append(wire.b)

    def _received(self, data: bytes, now: int) -> None:
        rec = self.live.get((data[26:30], data[18:20]))
        if rec is not None and rec[4] is None:
            rec[4] = now

    def summary(self, end_ns: int, ran_dry: bool) -> list[dict[str, Any]]:
        """Probes aggregated per (src, dst, path): sent, received, latency figures. When
        the run stopped at its time limit (not `ran_dry` of events), probes sent in its
        last GRACE_NS are left out: they may still have been in flight."""
        cut = end_ns if ran_dry else end_ns - GRACE_NS
        judged = [r for r in (*self.done, *self.live.values()) if r[3] <= cut]
        full: dict[tuple[str, str, int], list[str]] = {}
        for r in judged:
            if r[4] is not None:
                full.setdefault((r[0], r[1], r[2]), r[5])
        matrix = ProbeMatrix()
        for src, dst, sport, sent, got, hops in judged:
            path = full.get((src, dst, sport))
            latency = None if got is None else got - sent
            matrix.add(src, dst, hops if path is None else path, path is None, sport, latency)
        return matrix.rows()
