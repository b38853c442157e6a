"""The controller of a simulation: the controller's own core (`controller.fabric.core`,
what `sprayfabric up` runs) writing through the in-process southbound, one softswitch
P4Runtime entity store per simulated switch (`controller.fabric.southbound.StoreSouthbound`).

What is the simulator's own here: the stores, and where each leaf's INT reports go (its
port toward the collector; the source address 10.254.X.Y from its device id); with drop
or queue reports on, every switch has such a port.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.fabric.core import TABLE_ORDER, FabricCore, ReportRoute
from controller.fabric.southbound import FabricController, StoreSouthbound
from controller.lb import FabricEncoder, Policy
from controller.p4info import P4Schema
from controller.topology import Topology
from softswitch.codegen.program import CompiledProgram
from softswitch.p4info import p4info_for
from softswitch.p4runtime.entities import EntityStore

from .switchnode import SwitchNode

__all__ = ["fabric_controller"]


def fabric_controller(
    topo: Topology,
    switches: Mapping[str, SwitchNode],
    program: CompiledProgram,
    policy: Policy,
    collector_port: int | None = None,
) -> FabricController:
    """The controller of `switches` (name -> simulated switch node, `node.sw` its
    softswitch), programming them from `topo` and `policy`; `collector_port`: each leaf's
    port toward the INT collector."""
    p4info = p4info_for(program)
    schema = P4Schema(p4info)
    encoder = FabricEncoder(schema)
    stores = {name: EntityStore(node.sw, p4info) for name, node in switches.items()}

    def reports(name: str) -> ReportRoute:
        col = policy.int_md.collector if policy.int_md is not None else None
        if col is None or collector_port is None:
            return ReportRoute()
        # INT reports leave the sinks (the leaves); drop and queue reports every switch,
        # each with its own (unwired) port toward the collector
        alerts = col.drop_report_gap_us or col.queue_report_threshold
        if not topo.hosts_of(name) and not alerts:
            return ReportRoute()
        dev = topo.switch(name).device_id
        return ReportRoute(f"10.254.{dev >> 8 & 255}.{dev & 255}", collector_port, col.mac)

    core = FabricCore(
        topo,
        {name: encoder for name in topo.switch_names()},
        policy,
        reports,
        [schema.table(t).name for t in TABLE_ORDER],
    )
    return FabricController(core, StoreSouthbound(schema, stores), schema)
