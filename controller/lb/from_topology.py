"""A `SwitchIntent` from a topology and its computed routes (controller.topology,
controller.routing): the one mapping of routing results onto the encoder's input.

Group ids are the routing result's per-switch group ids (stable ones when the routes came
from `Routes.switch_routes(name, ids)`); each group's prefixes are the routes that use it. A next hop toward a switch gets that switch's router MAC as Ethernet
destination, toward a host the host's MAC. Ports facing hosts are `host` ports, the others
`fabric` ports. A switch's tier is its distance from the nearest host (1 for a leaf or
edge switch); tier t rotates the ECMP hash by 8(t-1) bits, modulo 32.
"""

from __future__ import annotations

from collections import defaultdict

from ..routing import SwitchRoutes
from ..topology.model import Topology
from .intent import NextHop, PortRole, RouteGroup, SwitchIntent

__all__ = ["ecmp_hash_rotation", "switch_intent", "tier"]


def _mac_of(topo: Topology, node: str) -> str:
    return topo.switch(node).router_mac if topo.is_switch(node) else topo.host(node).mac


def tier(topo: Topology, switch: str) -> int:
    """Hops from `switch` to its nearest host (1 for a switch hosts attach to; 0 when no
    host can be reached)."""
    seen = {switch}
    frontier = [switch]
    hops = 0
    while frontier:
        hops += 1
        nxt = []
        for node in frontier:
            for n in topo.neighbours(node):
                if topo.is_host(n):
                    return hops
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return 0


def ecmp_hash_rotation(topo: Topology, switch: str) -> int:
    """The bits fabric.p4 rotates the flow hash by at `switch` (8 per tier above the
    first, modulo 32)."""
    return 8 * max(0, tier(topo, switch) - 1) % 32


def switch_intent(
    topo: Topology,
    routes: SwitchRoutes,
    *,
    arp: tuple[tuple[str, str], ...] = (),
    report_ip: str | None = None,
    collector_port: int | None = None,
    collector_next_hop_mac: str | None = None,
) -> SwitchIntent:
    """What switch `routes.switch` must do; the INT switch id is its device id."""
    name = routes.switch
    sw = topo.switch(name)
    ports = tuple(
        PortRole(topo.port_to(name, n), "host" if topo.is_host(n) else "fabric")
        for n in topo.neighbours(name)
    )
    prefixes: dict[int, list[str]] = defaultdict(list)
    for prefix, gid in routes.routes.items():
        prefixes[gid].append(prefix)
    groups = []
    for gid, nh in sorted(routes.groups.items()):
        if not prefixes.get(gid):
            continue  # a group no route uses is not written
        hops = tuple(NextHop(topo.port_to(name, n), _mac_of(topo, n)) for n in nh.neighbours)
        weights = None if len(set(nh.weights)) <= 1 else tuple(nh.weights)
        groups.append(RouteGroup(gid, tuple(sorted(prefixes[gid])), hops, weights))
    return SwitchIntent(
        name=name,
        router_mac=sw.router_mac,
        ports=tuple(sorted(ports, key=lambda p: p.port)),
        groups=tuple(groups),
        arp=arp,
        switch_id=sw.device_id,
        report_ip=report_ip,
        collector_port=collector_port,
        collector_next_hop_mac=collector_next_hop_mac,
        ecmp_hash_rotation=ecmp_hash_rotation(topo, name),
    )
