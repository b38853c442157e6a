"""Computed routes + topology -> what each switch must do (`controller.lb.SwitchIntent`).

Route computation is `controller.routing`; this only names ports and MACs: a next hop
that is a switch is reached by the port facing it, with that switch's router MAC as the
destination; a host /32 by the host's port and MAC.
"""

from __future__ import annotations

from typing import Any

from controller.lb import NextHop, PortRole, RouteGroup, SwitchIntent

__all__ = ["switch_intents"]


def switch_intents(topo: Any, routes: Any) -> dict[str, SwitchIntent]:
    out: dict[str, SwitchIntent] = {}
    failed = routes.failed
    for sw in topo.switches:
        if sw.name in failed:
            continue
        sr = routes.switch_routes(sw.name)
        by_group: dict[int, list[str]] = {}
        for prefix, gid in sr.routes.items():
            by_group.setdefault(gid, []).append(prefix)
        groups = []
        for gid, nh in enumerate(sr.groups):
            prefixes = by_group.get(gid)
            if not prefixes:
                continue
            hops = tuple(NextHop(topo.port_to(sw.name, n), _mac_of(topo, n)) for n in nh.neighbours)
            weights = None if len(set(nh.weights)) <= 1 else tuple(nh.weights)
            groups.append(RouteGroup(gid + 1, tuple(sorted(prefixes)), hops, weights))
        ports = [PortRole(h.port, "host") for h in topo.hosts_of(sw.name)]
        for link in topo.links:
            if sw.name in (link.a, link.b):
                ports.append(PortRole(link.port_of(sw.name), "fabric"))
        out[sw.name] = SwitchIntent(
            sw.name,
            sw.router_mac,
            tuple(sorted(ports, key=lambda p: p.port)),
            tuple(groups),
            tuple((h.ip, sw.router_mac) for h in topo.hosts_of(sw.name)),
            switch_id=sw.device_id,
        )
    return out


def _mac_of(topo: Any, node: str) -> str:
    return topo.switch(node).router_mac if topo.is_switch(node) else topo.host(node).mac
