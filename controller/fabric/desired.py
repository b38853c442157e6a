"""A running fabric's desired state: routes over the topology minus the links that are
down (`controller.routing`), each switch's intent from them (`controller.lb.from_topology`),
and the policy's entities for that intent (`controller.lb.FabricEncoder`).

Group ids come from the run's `DesiredCache` (`run.desired_cache`): one `GroupIds`
allocator kept for the run's life, so a next-hop set keeps its id across recomputations
and a link failure rewrites only the routes and groups whose next hops changed. The
cache also keeps each switch's entities with the routes and policy they were made from;
a switch whose routes did not change gets the very same list back (not encoded again).

INT reports: every switch's collector port (wiring.py) leads to the fabric's INT collector,
so a policy with INT gets a collector whose next hop is that port on every switch (the
report's addresses are loopback ones; the cable delivers the frame whatever they say).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..entities import Entity
from ..lb import FabricEncoder, IntCollector, Policy
from ..lb.from_topology import switch_intent
from ..routing import GroupIds, NextHops, compute_routes
from .reconcile import identity

__all__ = [
    "COLLECTOR_IP",
    "COLLECTOR_MAC",
    "DesiredCache",
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


@dataclass(slots=True)
class DesiredCache:
    """What a run keeps between desired-state computations: the group-id allocator, and
    per switch the inputs its last entities were made from, with those entities."""

    group_ids: GroupIds[NextHops] = field(default_factory=GroupIds)
    last: dict[str, tuple[Any, list[Entity]]] = field(default_factory=dict)
    # one encoder per schema (its memo of entries serves every computation)
    encoders: dict[int, tuple[Any, FabricEncoder]] = field(default_factory=dict)

    def encoder(self, schema: Any) -> FabricEncoder:
        got = self.encoders.get(id(schema))
        if got is None or got[0] is not schema:
            got = self.encoders[id(schema)] = (schema, FabricEncoder(schema))
        return got[1]

    def release(self, switches: Iterable[str] | None = None) -> None:
        """The switches named (None: all) hold their last desired state now: the group ids
        it stopped using may go to other next-hop sets."""
        if switches is None:
            self.group_ids.release_all()
        else:
            for name in switches:
                self.group_ids.release(name)


def fabric_desired_state(run: Any) -> dict[str, list[Entity]]:
    """The entities of every switch of a `FabricRun`: its routes (with `run.failed_links()`
    down) under `run.policy`, group ids from `run.desired_cache` (a fresh cache, so ids
    from 0 in route order, when the run has none)."""
    topo = run.topology
    cache = getattr(run, "desired_cache", None)
    if cache is None:
        cache = DesiredCache()
    routes = compute_routes(topo, failed_links=run.failed_links())
    policy: Policy = run.policy or Policy()
    wiring = run.wiring
    if wiring is not None:
        policy = with_collector(policy, wiring.collector[1])
    assert run.sessions is not None
    out: dict[str, list[Entity]] = {}
    for sw in topo.switches:
        schema = run.sessions[sw.name].schema
        w = wiring.switches[sw.name] if wiring is not None else None
        sr = routes.switch_routes(sw.name, cache.group_ids)
        key = (id(schema), sr, policy, w.collector_port if w is not None else None)
        last = cache.last.get(sw.name)
        if last is not None and last[0] == key:
            out[sw.name] = last[1]
            continue
        enc = cache.encoder(schema)
        intent = switch_intent(
            topo,
            sr,
            report_ip=f"127.0.{sw.device_id >> 8 & 255}.{sw.device_id & 255}",
            collector_port=w.collector_port if w is not None else None,
            collector_next_hop_mac=COLLECTOR_MAC,
        )
        out[sw.name] = enc.switch_entities(intent, policy)
        cache.last[sw.name] = (key, out[sw.name])
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
