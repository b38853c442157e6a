"""The controller side of a simulation, through P4Runtime semantics, in process.

Routes come from `controller.routing.compute_routes`, the entities from the one encoder
of fabric.p4's knobs (`controller.lb.FabricEncoder`); each entity is encoded to a
`p4.v1.Entity` by `controller.codec` and applied by softswitch's P4Runtime entity store
(`softswitch.p4runtime.entities.EntityStore`), exactly what a Write RPC does, without a
socket. Counters are read back the same way.

A link failure is handled in two steps, as a fabric controller does: the switches at its
ends clear the dead port's bit in the live-member bitmap of every group that uses it
(`port_down`, the encoder's MODIFYs: traffic moves to the remaining members at once), then
the routes are recomputed without the link and only the entries that changed are written
(`reroute`). Group ids come from one `GroupIds` allocator kept for the simulation's life,
so a next-hop set keeps its id and the difference is only the groups and routes whose
next hops changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from controller.codec import decode_entity, encode_entity
from controller.entities import CounterEntry, Entity, TableEntry, Update
from controller.fabric.reconcile import identity, plan
from controller.lb import FabricEncoder, Policy, SwitchIntent
from controller.lb.from_topology import switch_intent
from controller.p4info import P4Schema
from controller.routing import GroupIds, NextHops, compute_routes
from p4rt_proto import p4runtime_pb2 as p4r
from softswitch.p4info import p4info_for
from softswitch.p4runtime.entities import EntityStore

__all__ = ["FabricControl"]

# tables whose entries the routes name by value: written first, deleted last
TABLE_ORDER = ("next_hop_member", "next_hop_group")


class FabricControl:
    """One entity store per simulated switch, programmed from the topology and policy."""

    def __init__(
        self,
        topo: Any,
        switches: dict[str, Any],
        program: Any,
        policy: Policy,
        collector_port: int | None = None,
    ) -> None:
        self.topo = topo
        self.policy = policy
        self.collector_port = collector_port  # each leaf's port toward the INT collector
        p4info = p4info_for(program)
        self.schema = P4Schema(p4info)
        self.encoder = FabricEncoder(self.schema)
        self.table_order = [self.schema.table(t).name for t in TABLE_ORDER]
        self.stores = {name: EntityStore(node.sw, p4info) for name, node in switches.items()}
        self.installed: dict[str, dict[tuple[Any, ...], Entity]] = {}  # by reconcile identity
        self.intents: dict[str, SwitchIntent] = {}
        self.failed_links: list[tuple[str, str]] = []
        self.dead_ports: dict[str, set[int]] = {}
        self.group_ids: GroupIds[NextHops] = GroupIds()
        self.writes = 0

    # ------------------------------------------------------------ programming
    def desired(self) -> dict[str, list[Entity]]:
        routes = compute_routes(self.topo, failed_links=self.failed_links)
        out = {}
        for name in routes.switches:
            if name in routes.failed:
                continue
            sr = routes.switch_routes(name, self.group_ids)
            intent = switch_intent(self.topo, sr, **self._int_args(name))
            self.intents[name] = intent
            dead = self.dead_ports.get(name, ())
            out[name] = self.encoder.switch_entities(intent, self.policy, dead)
        return out

    def _int_args(self, name: str) -> dict[str, Any]:
        col = self.policy.int_md.collector if self.policy.int_md is not None else None
        if col is None or self.collector_port is None or not self.topo.hosts_of(name):
            return {}
        dev = self.topo.switch(name).device_id
        return {
            "report_ip": f"10.254.{dev >> 8 & 255}.{dev & 255}",
            "collector_port": self.collector_port,
            "collector_next_hop_mac": col.mac,
        }

    def install(self) -> None:
        """Write every switch's entities (INSERT; a table's default entry, MODIFY), as a
        controller's first sync does."""
        for name, ents in self.desired().items():
            self._write(
                name,
                [
                    Update.modify(e)
                    if isinstance(e, TableEntry) and e.is_default
                    else Update.insert(e)
                    for e in ents
                ],
            )
            self.installed[name] = {identity(e): e for e in ents}
            self.group_ids.release(name)

    def port_down(self, a: str, b: str) -> int:
        """The a-b link is down: clear its ports in the live bitmaps of the groups at both
        ends; return the number of updates."""
        n = 0
        for sw, peer in ((a, b), (b, a)):
            if sw not in self.intents:
                continue
            dead = self.dead_ports.setdefault(sw, set())
            dead.add(self.topo.port_to(sw, peer))
            ups = self.encoder.ports_down(self.intents[sw], self.policy, dead)
            self._write(sw, [Update.modify(e) for e in ups])
            for e in ups:
                self.installed[sw][identity(e)] = e
            n += len(ups)
        return n

    def port_up(self, a: str, b: str) -> int:
        """The a-b link is back: set its ports' live bits again at both ends."""
        n = 0
        for sw, peer in ((a, b), (b, a)):
            if sw not in self.intents:
                continue
            port = self.topo.port_to(sw, peer)
            dead = self.dead_ports.setdefault(sw, set())
            if port not in dead:
                continue
            dead.discard(port)
            ups = self.encoder.ports_up(self.intents[sw], self.policy, [port], dead)
            self._write(sw, [Update.modify(e) for e in ups])
            for e in ups:
                self.installed[sw][identity(e)] = e
            n += len(ups)
        return n

    def skew(self, switch: str, toward: str, weight: int) -> int:
        """A bad WCMP entry, as a faulty controller would write it: every group of
        `switch` with a member toward `toward` rewritten with that member at `weight` and
        the others at 1 (the group entry MODIFYed to its new size, members written after
        it); return the updates."""
        port = self.topo.port_to(switch, toward)
        intent = self.intents[switch]
        groups = []
        for g in intent.groups:
            if len(g.next_hops) > 1 and any(nh.port == port for nh in g.next_hops):
                w = tuple(weight if nh.port == port else 1 for nh in g.next_hops)
                groups.append(replace(g, weights=w))
        by_id = {g.group_id: g for g in groups}
        intent = replace(intent, groups=tuple(by_id.get(g.group_id, g) for g in intent.groups))
        self.intents[switch] = intent
        have = self.installed.setdefault(switch, {})
        dead = self.dead_ports.get(switch, ())
        n = 0
        for g in groups:
            ents = self.encoder.group_entities(
                g, self.policy.group_mode(g.group_id), intent.router_mac, dead
            )
            ups = [Update.modify(e) if identity(e) in have else Update.insert(e) for e in ents]
            self._write(switch, ups)
            for e in ents:
                have[identity(e)] = e
            n += len(ups)
        return n

    def reroute(self, a: str, b: str) -> int:
        """Recompute without the a-b link and write the difference; return the updates."""
        self.failed_links.append((a, b))
        return self._rewrite()

    def restore(self, a: str, b: str) -> int:
        """The a-b link is up again: its ports live again at both ends, routes recomputed
        with it and the difference written; return the updates."""
        key = {a, b}
        self.failed_links = [lk for lk in self.failed_links if set(lk) != key]
        for sw, peer in ((a, b), (b, a)):
            self.dead_ports.get(sw, set()).discard(self.topo.port_to(sw, peer))
        return self._rewrite()

    def _rewrite(self) -> int:
        n = 0
        for name, ents in self.desired().items():
            diff = plan(ents, self.installed.get(name, {}).values())
            # members and groups before the routes that use them; routes go first on delete
            for phase in diff.phases(self.table_order):
                self._write(name, phase)
            self.installed[name] = {identity(e): e for e in ents}
            self.group_ids.release(name)  # the groups it dropped are deleted now
            n += len(diff)
        return n

    def blackhole(self, switch: str, prefix: str) -> None:
        """A bad entry, as a faulty controller would write it: `prefix` routed to drop on
        `switch` (MODIFY of the route if there is one, else INSERT)."""
        ent = self.encoder.route_drop(prefix)
        key = identity(ent)
        have = self.installed.setdefault(switch, {})
        self._write(switch, [Update.modify(ent) if key in have else Update.insert(ent)])
        have[key] = ent

    def _write(self, switch: str, updates: Iterable[Update]) -> None:
        store = self.stores[switch]
        for u in updates:
            up = p4r.Update(type=u.type.value)
            up.entity.CopyFrom(encode_entity(self.schema, u.entity))
            store.write(up)
            self.writes += 1

    # ------------------------------------------------------------ reading
    def counter(self, switch: str, name: str) -> dict[int, tuple[int, int]]:
        """The cells of counter `name` on `switch` that counted something: index ->
        (packets, bytes)."""
        ent = encode_entity(self.schema, CounterEntry(self._full(name)))
        out: dict[int, tuple[int, int]] = {}
        for got in self.stores[switch].read(ent):
            data = got.counter_entry.data
            if not (data.packet_count or data.byte_count):
                continue  # most cells are zero: not decoded
            ce = decode_entity(self.schema, got)
            # a counter's cells, each with the data tested above
            assert isinstance(ce, CounterEntry) and ce.index is not None and ce.data is not None
            out[ce.index] = (ce.data.packets, ce.data.bytes)
        return out

    def _full(self, short: str) -> str:
        for c in self.schema.p4info.counters:
            if c.preamble.name.split(".")[-1] == short:
                return c.preamble.name
        raise KeyError(f"no counter {short}")
