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

__all__ = ["COLLECTOR_IP", "COLLECTOR_MAC", "fabric_desired_state", "with_collector"]

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
