"""Hosts of a running fabric as UDP endpoints in the test process: every host binds its end
of its access cable, sends Ethernet/IPv4/UDP frames to its leaf and collects what arrives."""

from __future__ import annotations

import select
import socket
import struct
import time
from dataclasses import dataclass

from controller.fabric.wiring import HostEndpoint
from tests.fabric.packets import Frame


@dataclass(frozen=True, slots=True)
class Sent:
    src: str
    dst: str
    tag: int


class Hosts:
    def __init__(self, endpoints: dict[str, HostEndpoint], topology) -> None:  # type: ignore[no-untyped-def]
        self.topology = topology
        self.endpoints = endpoints
        self.socks: dict[str, socket.socket] = {}
        for name, ep in endpoints.items():
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.bind(ep.address)
            self.socks[name] = s
        self._by_fd = {s.fileno(): n for n, s in self.socks.items()}

    def close(self) -> None:
        for s in self.socks.values():
            s.close()

    def frame(self, src: str, dst: str, tag: int) -> bytes:
        h, d = self.topology.host(src), self.topology.host(dst)
        router = self.topology.switch(h.switch).router_mac
        payload = struct.pack("!I", tag) + b"sprayfabric" + bytes(20)
        return Frame(
            src=h.ip,
            dst=d.ip,
            smac=h.mac,
            dmac=router,
            sport=10000 + tag % 50000,
            dport=7,
            payload=payload,
        ).bytes()

    def send(self, src: str, dst: str, tag: int) -> Sent:
        self.socks[src].sendto(self.frame(src, dst, tag), self.endpoints[src].switch_address)
        return Sent(src, dst, tag)

    def drain(self) -> None:
        self.collect(0.2)

    def collect(
        self, quiet: float, deadline: float = 30.0, want: int | None = None
    ) -> list[tuple[str, bytes]]:
        """Frames received by any host until `quiet` s pass with none (or `want` arrived)."""
        out: list[tuple[str, bytes]] = []
        end = time.monotonic() + deadline
        while time.monotonic() < end and (want is None or len(out) < want):
            ready, _, _ = select.select(list(self.socks.values()), [], [], quiet)
            if not ready:
                break
            for s in ready:
                out.append((self._by_fd[s.fileno()], s.recv(65535)))
        return out

    def all_pairs(self, rounds: int = 1) -> tuple[list[Sent], dict[Sent, list[tuple[str, bytes]]]]:
        """Send from every host to every other host; return what was sent and, per sent
        frame, where it arrived (host, frame)."""
        sent: list[Sent] = []
        names = sorted(self.socks)
        n = 0
        for _round in range(rounds):
            for a in names:
                for b in names:
                    if a != b:
                        sent.append(self.send(a, b, n))
                        n += 1
                        if n % 64 == 0:
                            time.sleep(0.01)  # let the switches keep up with the socket buffers
        got = self.collect(quiet=2.0, want=len(sent))
        by_tag = {s.tag: s for s in sent}
        arrived: dict[Sent, list[tuple[str, bytes]]] = {s: [] for s in sent}
        for host, data in got:
            tag = struct.unpack_from("!I", data, 14 + 20 + 8)[0]
            if tag in by_tag:
                arrived[by_tag[tag]].append((host, data))
        return sent, arrived
