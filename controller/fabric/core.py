"""One controller core for live fabrics and the simulator: what every switch should hold,
and the ordered updates that get it there, with no I/O.

    core = FabricCore(topo, encoders, policy, reports)
    writes = core.install()                  # switch -> phases of updates
    write_all(southbound, writes)            # through gRPC sessions or in-process stores
    write_all(southbound, core.port_down("leaf1", "spine1"))   # fast local repair
    write_all(southbound, core.reroute("leaf1", "spine1"))     # routes without the link

The desired state (`desired_state`): routes over the topology minus the links that are
down (`controller.routing`), each switch's intent from them (`controller.lb.from_topology`),
the policy's entities for that intent (`controller.lb.FabricEncoder`), with the live bits of
dead ports cleared. Group ids come from a `DesiredCache` kept for the fabric's life: one
`GroupIds` allocator, so a next-hop set keeps its id across recomputations and a link
failure rewrites only the routes and groups whose next hops changed; a switch whose inputs
did not change gets the very same entity list back (not encoded again). `sprayfabric up`
(desired.py) and fabricsim both compute their switches' entities here.

The updates (`difference`): the controller's record of what a switch holds against its new
desired state, as make-before-break phases (`reconcile.Plan.phases`: members and groups
before the routes naming them, deletes last). `FabricCore` keeps that record itself
(`installed`, by reconcile identity); a live fabric keeps it per session
(`ManagedSwitch.written`, which a new session forgets) and writes the same `difference`
when its policy or links change (`FabricSessions.update_all`).
A link failure is handled in two steps, as a fabric controller does: the switches at its
ends clear the dead port's bit in the live-member bitmap of every group that uses it
(`port_down`: MODIFYs, traffic moves to the remaining members at once), then the routes are
recomputed without the link and only the entries that changed are written (`reroute`).
`isolate` is the same fast repair computed from a switch's written entities instead of its
intent (a live fabric's written state may carry a fault's overlay the intent does not know).

Each operation returns `Writes` (switch -> phases, each phase a list of updates a switch may
apply in any order, every phase depending only on the ones before it) and records them as
installed; `write_all` hands them to a `Southbound` (southbound.py) in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..entities import Entity, TableEntry, Update
from ..lb import FabricConstants, FabricEncoder, Policy, SwitchIntent
from ..lb.from_topology import switch_intent
from ..routing import GroupIds, NextHops, compute_routes
from ..topology import Topology
from .reconcile import identity, plan

__all__ = [
    "TABLE_ORDER",
    "DesiredCache",
    "FabricCore",
    "ReportRoute",
    "Southbound",
    "Writes",
    "desired_state",
    "difference",
    "first_write",
    "isolate",
    "write_all",
]

# tables whose entries the routes name by value: written first, deleted last
TABLE_ORDER = ("next_hop_member", "next_hop_group")

Writes = dict[str, list[list[Update]]]  # switch -> phases, in write order


class Southbound(Protocol):
    """Where a controller's updates go and what it reads back: P4Runtime Write and Read of
    one switch. `write` applies `updates` in their order (as one Write, or one by one)."""

    def write(self, switch: str, updates: Sequence[Update]) -> None: ...

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]: ...


def write_all(southbound: Southbound, writes: Mapping[str, Sequence[Sequence[Update]]]) -> int:
    """Write every switch's phases in order through `southbound`; the number of updates."""
    n = 0
    for switch, phases in writes.items():
        for phase in phases:
            if phase:
                southbound.write(switch, phase)
            n += len(phase)
    return n


@dataclass(frozen=True, slots=True)
class ReportRoute:
    """How one switch's INT reports leave it: their source address, the port and next-hop
    MAC toward the collector (None: not known; the switch then sends no reports)."""

    report_ip: str | None = None
    collector_port: int | None = None
    collector_next_hop_mac: str | None = None


ReportRoutes = Callable[[str], ReportRoute]


@dataclass(slots=True)
class DesiredCache:
    """What a fabric keeps between desired-state computations: the group-id allocator, and
    per switch the inputs its last entities were made from, with those entities and the
    intent they encode."""

    group_ids: GroupIds[NextHops] = field(default_factory=GroupIds)
    last: dict[str, tuple[Any, list[Entity]]] = field(default_factory=dict)
    intents: dict[str, SwitchIntent] = field(default_factory=dict)
    # one encoder per schema (its memo of entries serves every computation)
    encoders: dict[int, tuple[Any, FabricEncoder]] = field(default_factory=dict)
    # the program's constants (a TNA target numbers its mirror sessions its own way);
    # None: fabric.p4's (v1model)
    constants: FabricConstants | None = None

    def encoder(self, schema: Any) -> FabricEncoder:
        got = self.encoders.get(id(schema))
        if got is None or got[0] is not schema:
            got = self.encoders[id(schema)] = (schema, FabricEncoder(schema, self.constants))
        return got[1]

    def release(self, switches: Iterable[str] | None = None) -> None:
        """The switches named (None: all) hold their last desired state now: the group ids
        it stopped using may go to other next-hop sets."""
        if switches is None:
            self.group_ids.release_all()
        else:
            for name in switches:
                self.group_ids.release(name)


def desired_state(
    topo: Topology,
    policy: Policy,
    failed_links: Iterable[tuple[str, str]],
    cache: DesiredCache,
    encoder_of: Callable[[str], FabricEncoder],
    reports: ReportRoutes,
    dead_ports: Mapping[str, Collection[int]] | None = None,
) -> dict[str, list[Entity]]:
    """Every switch's entities (see the module docstring): routes without `failed_links`,
    group ids from `cache`, INT reports as `reports(switch)` says, the live bits of
    `dead_ports[switch]` cleared. Switches the routing finds failed are left out."""
    routes = compute_routes(topo, failed_links=list(failed_links))
    out: dict[str, list[Entity]] = {}
    for name in routes.switches:
        if name in routes.failed:
            continue
        sr = routes.switch_routes(name, cache.group_ids)
        enc = encoder_of(name)
        rep = reports(name)
        dead = frozenset(dead_ports.get(name, ())) if dead_ports else frozenset()
        key = (id(enc), sr, policy, rep, dead)
        last = cache.last.get(name)
        if last is not None and last[0] == key:
            out[name] = last[1]
            continue
        intent = switch_intent(
            topo,
            sr,
            report_ip=rep.report_ip,
            collector_port=rep.collector_port,
            collector_next_hop_mac=rep.collector_next_hop_mac,
        )
        cache.intents[name] = intent
        out[name] = enc.switch_entities(intent, policy, dead)
        cache.last[name] = (key, out[name])
    return out


def first_write(entities: Iterable[Entity]) -> list[Update]:
    """A switch's entities as a controller's first sync writes them to an empty switch, in
    their order: INSERT each (a table's default entry: MODIFY)."""
    return [
        Update.modify(e) if isinstance(e, TableEntry) and e.is_default else Update.insert(e)
        for e in entities
    ]


def difference(
    desired: Sequence[Entity], written: Iterable[Entity], table_order: Sequence[str]
) -> list[list[Update]]:
    """The updates that make a switch holding `written` (what the controller last wrote
    there, not read back) hold `desired`, in make-before-break phases (`reconcile.Plan.phases`
    with `table_order`, the P4Info names of `TABLE_ORDER`'s tables): inserts and modifies of
    members, groups, then routes; then deletes of routes, groups, members. An entity object
    both lists hold is unchanged and not compared (a desired state made from a memo shares
    nearly all of them with the one before it). `FabricCore.rewrite` and a live fabric's
    reprogram (`FabricSessions.update_all`) both write this."""
    new = {id(e) for e in desired}
    before = list(written)
    shared = {id(e) for e in before if id(e) in new}
    diff = plan(
        [e for e in desired if id(e) not in shared],
        [e for e in before if id(e) not in shared],
    )
    return diff.phases(table_order)


def isolate(encoder: FabricEncoder, written: Iterable[Entity], dead: Iterable[int]) -> list[Update]:
    """Fast local repair from what a switch holds: MODIFYs of its groups with a member on a
    port of `dead`, that member's live bit cleared (`FabricEncoder.live_members_update`)."""
    return [Update.modify(e) for e in encoder.live_members_update(written, dead)]


class FabricCore:
    """The controller's state for one fabric (policy, links down, dead ports, group ids,
    what each switch holds) and the ordered updates each change asks for. Pure: it writes
    nothing; the caller writes the `Writes` returned (`write_all`)."""

    def __init__(
        self,
        topo: Topology,
        encoders: Mapping[str, FabricEncoder],
        policy: Policy,
        reports: ReportRoutes = lambda _name: ReportRoute(),
        table_order: Sequence[str] = TABLE_ORDER,
    ) -> None:
        self.topo = topo
        self.encoders = encoders
        self.policy = policy
        self.reports = reports
        self.table_order = list(table_order)  # the P4Info names of TABLE_ORDER's tables
        self.cache = DesiredCache()
        self.installed: dict[str, dict[tuple[Any, ...], Entity]] = {}  # by reconcile identity
        self.intents: dict[str, SwitchIntent] = {}
        self.failed_links: list[tuple[str, str]] = []
        self.dead_ports: dict[str, set[int]] = {}

    @property
    def group_ids(self) -> GroupIds[NextHops]:
        return self.cache.group_ids

    # ------------------------------------------------------------ programming
    def desired(self) -> dict[str, list[Entity]]:
        """Every switch's entities now (`desired_state`); their intents in `intents`."""
        out = desired_state(
            self.topo,
            self.policy,
            self.failed_links,
            self.cache,
            self.encoders.__getitem__,
            self.reports,
            self.dead_ports,
        )
        for name in out:
            self.intents[name] = self.cache.intents[name]
        return out

    def install(self) -> Writes:
        """Every switch's entities for empty switches (`first_write`)."""
        out: Writes = {}
        for name, ents in self.desired().items():
            out[name] = [first_write(ents)]
            self.installed[name] = {identity(e): e for e in ents}
            self.cache.release([name])
        return out

    def port_down(self, a: str, b: str) -> Writes:
        """The a-b link is down: its ports cleared in the live bitmaps of the groups at both
        ends (the full dead set of each: a group keeps earlier dead ports cleared)."""
        out: Writes = {}
        for sw, peer in ((a, b), (b, a)):
            if sw not in self.intents:
                continue
            dead = self.dead_ports.setdefault(sw, set())
            dead.add(self.topo.port_to(sw, peer))
            ups = self.encoders[sw].ports_down(self.intents[sw], self.policy, dead)
            out.setdefault(sw, []).append(self._modified(sw, ups))
        return out

    def port_up(self, a: str, b: str) -> Writes:
        """The a-b link is back: its ports' live bits set again at both ends."""
        out: Writes = {}
        for sw, peer in ((a, b), (b, a)):
            if sw not in self.intents:
                continue
            port = self.topo.port_to(sw, peer)
            dead = self.dead_ports.setdefault(sw, set())
            if port not in dead:
                continue
            dead.discard(port)
            ups = self.encoders[sw].ports_up(self.intents[sw], self.policy, [port], dead)
            out.setdefault(sw, []).append(self._modified(sw, ups))
        return out

    def _modified(self, switch: str, entities: Iterable[Entity]) -> list[Update]:
        have = self.installed[switch]
        ups = [Update.modify(e) for e in entities]
        for u in ups:
            have[identity(u.entity)] = u.entity
        return ups

    def _upserted(self, switch: str, entities: Iterable[Entity]) -> list[Update]:
        """MODIFY of what the switch holds, INSERT of the rest; recorded as installed."""
        have = self.installed.setdefault(switch, {})
        ups = []
        for e in entities:
            key = identity(e)
            ups.append(Update.modify(e) if key in have else Update.insert(e))
            have[key] = e
        return ups

    def reroute(self, a: str, b: str) -> Writes:
        """Routes recomputed without the a-b link; the difference."""
        self.failed_links.append((a, b))
        return self.rewrite()

    def restore(self, a: str, b: str) -> Writes:
        """The a-b link is up again: its ports live again at both ends, routes recomputed
        with it; the difference."""
        key = {a, b}
        self.failed_links = [lk for lk in self.failed_links if set(lk) != key]
        for sw, peer in ((a, b), (b, a)):
            self.dead_ports.get(sw, set()).discard(self.topo.port_to(sw, peer))
        return self.rewrite()

    def rewrite(self) -> Writes:
        """The desired state recomputed; per switch, the difference from what it holds in
        make-before-break phases (members and groups before the routes that use them;
        routes go first on delete)."""
        out: Writes = {}
        for name, ents in self.desired().items():
            out[name] = difference(ents, self.installed.get(name, {}).values(), self.table_order)
            self.installed[name] = {identity(e): e for e in ents}
            self.cache.release([name])  # the groups it dropped are deleted now
        return out

    # ------------------------------------------------------------ bad entries
    def skew(self, switch: str, toward: str, weight: int) -> Writes:
        """A bad WCMP entry, as a faulty controller would write it: every group of
        `switch` with a member toward `toward` rewritten with that member at `weight` and
        the others at 1 (the group entry MODIFYed to its new size, members after it)."""
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
        dead = self.dead_ports.get(switch, ())
        enc = self.encoders[switch]
        phases = []
        for g in groups:
            ents = enc.group_entities(
                g, self.policy.group_mode(g.group_id), intent.router_mac, dead
            )
            phases.append(self._upserted(switch, ents))
        return {switch: phases}

    def blackhole(self, switch: str, prefix: str) -> Writes:
        """A bad entry, as a faulty controller would write it: `prefix` routed to drop on
        `switch` (MODIFY of the route if there is one, else INSERT)."""
        return {switch: [self._upserted(switch, [self.encoders[switch].route_drop(prefix)])]}
