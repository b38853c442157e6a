"""How a topology becomes softswitch processes on one machine, without root.

Every cable is a pair of UDP sockets on loopback (`softswitch -i PORT@udp:LOCAL,REMOTE`,
one Ethernet frame per datagram): a switch-to-switch link gets one local UDP port per end;
a host's access link gets one on the switch and one for the host, which anything that binds
it (a test, a traffic generator, `HostEndpoint`) can use to send and receive frames as that
host. Every switch also gets a port to the INT collector (`COLLECTOR_PORT`) whose far end is
the collector's UDP socket, and its P4Runtime server a loopback TCP port (the topology's
`grpc` address when it names one, else a free port).

`plan_wiring(topology)` reserves all those ports (bound to port 0 by the kernel, then
released: free a moment ago, like any ephemeral-port allocation) and gives per switch the
`-i` arguments. Taking a link down or up is the controller's business (routes and
live-member bitmaps), not the wiring's: the sockets stay.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["COLLECTOR_PORT", "CPU_PORT", "HostEndpoint", "SwitchWiring", "Wiring", "plan_wiring"]

CPU_PORT = 255
COLLECTOR_PORT = 510  # the highest data port (511 is the drop port), unless the topology uses it
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class SwitchWiring:
    name: str
    device_id: int
    grpc_addr: str
    ports: tuple[tuple[int, str], ...]  # (switch port, udp:LOCAL,REMOTE spec)
    collector_port: int  # the port whose far end is the INT collector

    def interface_args(self) -> list[str]:
        """`-i PORT@udp:...` for every port."""
        out: list[str] = []
        for port, spec in self.ports:
            out += ["-i", f"{port}@{spec}"]
        return out


@dataclass(frozen=True, slots=True)
class HostEndpoint:
    """A host's end of its access link: bind `address`, send frames to `switch_address`."""

    name: str
    address: tuple[str, int]
    switch_address: tuple[str, int]


@dataclass(frozen=True, slots=True)
class Wiring:
    switches: dict[str, SwitchWiring]
    hosts: dict[str, HostEndpoint]
    collector: tuple[str, int]  # where every switch's COLLECTOR_PORT sends


def _free_ports(kind: int, n: int) -> list[int]:
    socks = [socket.socket(socket.AF_INET, kind) for _ in range(n)]
    try:
        for s in socks:
            s.bind((LOOPBACK, 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def _spec(local: int, remote: tuple[str, int]) -> str:
    return f"udp:{LOOPBACK}:{local},{remote[0]}:{remote[1]}"


def plan_wiring(
    switches: Iterable[tuple[str, int, str | None]],
    links: Iterable[tuple[str, int, str, int]],
    hosts: Iterable[tuple[str, str, int]],
    collector: tuple[str, int] | None = None,
) -> Wiring:
    """Switches as (name, device id, gRPC address or None), links as (a, a_port, b,
    b_port), hosts as (name, switch, port); the collector's UDP address (None: reserve one)."""
    switches = list(switches)
    links = list(links)
    hosts = list(hosts)
    n_udp = 2 * len(links) + 2 * len(hosts) + len(switches) + (collector is None)
    udp = iter(_free_ports(socket.SOCK_DGRAM, n_udp))
    tcp = iter(_free_ports(socket.SOCK_STREAM, sum(1 for s in switches if not s[2])))
    if collector is None:
        collector = (LOOPBACK, next(udp))
    ends: dict[tuple[str, int], int] = {}
    for a, ap, b, bp in links:
        ends[(a, ap)] = next(udp)
        ends[(b, bp)] = next(udp)
    ports: dict[str, list[tuple[int, str]]] = {s[0]: [] for s in switches}
    for a, ap, b, bp in links:
        ports[a].append((ap, _spec(ends[(a, ap)], (LOOPBACK, ends[(b, bp)]))))
        ports[b].append((bp, _spec(ends[(b, bp)], (LOOPBACK, ends[(a, ap)]))))
    host_eps: dict[str, HostEndpoint] = {}
    for name, sw, port in hosts:
        mine, theirs = next(udp), next(udp)
        ports[sw].append((port, _spec(theirs, (LOOPBACK, mine))))
        host_eps[name] = HostEndpoint(name, (LOOPBACK, mine), (LOOPBACK, theirs))
    out: dict[str, SwitchWiring] = {}
    for name, device_id, grpc in switches:
        used = {p for p, _ in ports[name]}
        cport = next(p for p in range(COLLECTOR_PORT, 0, -1) if p not in used and p != CPU_PORT)
        ports[name].append((cport, _spec(next(udp), collector)))
        addr = grpc or f"{LOOPBACK}:{next(tcp)}"
        out[name] = SwitchWiring(name, device_id, addr, tuple(sorted(ports[name])), cport)
    return Wiring(out, host_eps, collector)
