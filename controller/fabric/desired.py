"""A running fabric's desired state, computed by the controller core
(`core.desired_state`, which fabricsim runs too): routes over the topology minus the links
that are down, each switch's intent from them, and the policy's entities for that intent.

Group ids come from the run's `DesiredCache` (`run.desired_cache`): one `GroupIds`
allocator kept for the run's life, so a next-hop set keeps its id across recomputations
and a link failure rewrites only the routes and groups whose next hops changed. The
cache also keeps each switch's entities with the routes and policy they were made from;
a switch whose routes did not change gets the very same list back (not encoded again).

INT reports: every switch's collector port (wiring.py) leads to the fabric's INT collector,
so a policy with INT gets a collector whose next hop is that port on every switch (the
report's addresses are loopback ones; the cable delivers the frame whatever they say).
That collector also turns on fabric.p4's drop and queue reports (docs/fabric.md): every
switch reports the packets its ingress drops, one per reason every REPORT_GAP_US, and a
packet that waited behind QUEUE_REPORT_THRESHOLD packets or more, one per port every
REPORT_GAP_US, as fabricsim's `--reports` does; a policy without INT gets the collector
for them alone. A policy whose INT names a collector of its own is kept as it is (its
`drop_report_gap_us` and `queue_report_threshold` say whether there are reports).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..entities import Entity
from ..lb import FabricEncoder, IntCollector, IntPolicy, Policy
from .core import DesiredCache, ReportRoute, desired_state
from .reconcile import identity

__all__ = [
    "COLLECTOR_IP",
    "COLLECTOR_MAC",
    "DesiredCache",
    "QUEUE_REPORT_THRESHOLD",
    "REPORT_GAP_US",
    "fabric_collector",
    "fabric_desired_state",
    "fabric_desired_state_with_arp",
    "with_collector",
]

COLLECTOR_IP = "127.0.0.1"
COLLECTOR_MAC = "02:00:00:00:fc:01"
# drop and queue reports: one per drop reason, and one per port, every millisecond at most
# (a probe run of 20 rounds of 50 ms: up to a thousand per reason), a queue report for a
# packet behind 8 or more (fabricsim's threshold)
REPORT_GAP_US = 1000
QUEUE_REPORT_THRESHOLD = 8


def with_collector(policy: Policy, udp_port: int) -> Policy:
    """`policy` with INT, drop and queue reports sent to the fabric's collector (when its
    INT names no collector of its own; a policy without INT gets the collector for the
    drop and queue reports)."""
    int_md = policy.int_md if policy.int_md is not None else IntPolicy()
    if int_md.collector is not None:
        return policy
    col = IntCollector(
        COLLECTOR_IP,
        COLLECTOR_MAC,
        udp_port=udp_port,
        drop_report_gap_us=REPORT_GAP_US,
        queue_report_threshold=QUEUE_REPORT_THRESHOLD,
        queue_report_gap_us=REPORT_GAP_US,
    )
    return replace(policy, int_md=replace(int_md, collector=col))


def fabric_collector(run: Any) -> IntCollector | None:
    """The collector settings a `FabricRun`'s desired state uses (None: no wiring, so no
    collector port)."""
    if run.wiring is None:
        return None
    int_md = with_collector(run.policy or Policy(), run.wiring.collector[1]).int_md
    return int_md.collector if int_md is not None else None


def fabric_desired_state(run: Any) -> dict[str, list[Entity]]:
    """The entities of every switch of a `FabricRun`: its routes (with `run.failed_links()`
    down) under `run.policy`, group ids from `run.desired_cache` (a fresh cache, so ids
    from 0 in route order, when the run has none)."""
    topo = run.topology
    cache = getattr(run, "desired_cache", None)
    if cache is None:
        cache = DesiredCache()
    policy: Policy = run.policy or Policy()
    wiring = run.wiring
    if wiring is not None:
        policy = with_collector(policy, wiring.collector[1])
    assert run.sessions is not None
    sessions = run.sessions

    def reports(name: str) -> ReportRoute:
        dev = topo.switch(name).device_id
        w = wiring.switches[name] if wiring is not None else None
        return ReportRoute(
            f"127.0.{dev >> 8 & 255}.{dev & 255}",
            w.collector_port if w is not None else None,
            COLLECTOR_MAC,
        )

    return desired_state(
        topo,
        policy,
        run.failed_links(),
        cache,
        lambda name: cache.encoder(sessions[name].schema),
        reports,
    )


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
