"""A running fabric's desired state: routes over the topology minus the links that are
down (`controller.routing`), each switch's intent from them (`controller.lb.from_topology`),
and the policy's entities for that intent (`controller.lb.FabricEncoder`).

INT reports: every switch's collector port (wiring.py) leads to the fabric's INT collector,
so a policy with INT gets a collector whose next hop is that port on every switch (the
report's addresses are loopback ones; the cable delivers the frame whatever they say).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..entities import Entity
from ..lb import FabricEncoder, IntCollector, Policy
from ..lb.from_topology import switch_intent
from ..routing import compute_routes
from .reconcile import identity

__all__ = [
    "COLLECTOR_IP",
    "COLLECTOR_MAC",
    "fabric_desired_state",
    "fabric_desired_state_with_arp",
    "with_collector",
]

COLLECTOR_IP = "127.0.0.1"
COLLECTOR_MAC = "02:00:00:00:fc:01"


def with_collector(policy: Policy, udp_port: int) -> Policy:
    """`policy` with INT reports sent to the fabric's collector (when it has INT and no
    collector of its own)."""
    if policy.int_md is None or policy.int_md.collector is not None:
        return policy
    col = IntCollector(COLLECTOR_IP, COLLECTOR_MAC, udp_port=udp_port)
    return replace(policy, int_md=replace(policy.int_md, collector=col))


def fabric_desired_state(run: Any) -> dict[str, list[Entity]]:
    """The entities of every switch of a `FabricRun`: its routes (with `run.failed_links()`
    down) under `run.policy`."""
    topo = run.topology
    routes = compute_routes(topo, failed_links=run.failed_links())
    policy: Policy = run.policy or Policy()
    wiring = run.wiring
    if wiring is not None:
        policy = with_collector(policy, wiring.collector[1])
    assert run.sessions is not None
    out: dict[str, list[Entity]] = {}
    encoders: dict[int, FabricEncoder] = {}
    for sw in topo.switches:
        schema = run.sessions[sw.name].schema
        enc = encoders.setdefault(id(schema), FabricEncoder(schema))
        w = wiring.switches[sw.name] if wiring is not None else None
        intent = switch_intent(
            topo,
            routes.switch_routes(sw.name),
            report_ip=f"127.0.{sw.device_id >> 8 & 255}.{sw.device_id & 255}",
            collector_port=w.collector_port if w is not None else None,
            collector_next_hop_mac=COLLECTOR_MAC,
        )
        out[sw.name] = enc.switch_entities(intent, policy)
    return out


def fabric_desired_state_with_arp(run: Any) -> dict[str, list[Entity]]:
    """`fabric_desired_state`, plus ARP answers for hosts that are real network stacks
    (namespaces): every switch with hosts answers for every host address of its plane with
    its router MAC, so a host whose default route leads straight out of its link (it asks
    for every address by ARP) sends everything to its switch, which routes it."""
    desired = fabric_desired_state(run)
    topo = run.topology
    assert run.sessions is not None
    for sw in topo.switches:
        if not topo.hosts_of(sw.name):
            continue
        enc = FabricEncoder(run.sessions[sw.name].schema)
        have = {identity(e) for e in desired[sw.name]}
        extra = [
            e
            for e in (enc.arp_reply(h.ip, sw.router_mac) for h in topo.hosts if h.plane == sw.plane)
            if identity(e) not in have
        ]
        desired[sw.name] = [*desired[sw.name], *extra]
    return desired
