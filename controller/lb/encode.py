"""fabric.p4's run-time knobs as `controller.entities` objects: the one encoder of them.

    enc = FabricEncoder(P4Schema.load("fabric.p4info.txtpb"))
    entities = enc.switch_entities(intent, policy)      # everything one switch needs
    session.insert(*entities)
    session.modify(enc.group(7, GroupMode("spray"), size=4))   # flip a group's mode

Table, action and parameter names are looked up in the P4Info (a program without one of
them fails here, naming it, not on the switch); widths are checked against it; constants
(clone sessions, the CPU port) come from the P4 source (`constants.py`). docs/fabric.md
lists the tables; docs/policy.md the policy.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..codec import table_entry
from ..entities import Action, CloneSession, Entity, Exact, Lpm, Replica, TableEntry, Ternary
from ..p4info import P4InfoError, P4Schema
from .constants import DEPTH_REPORT_TRUNCATE, FabricConstants
from .intent import NextHop, RouteGroup, SwitchIntent
from .policy import Cnp, EcnRed, EcnStep, GroupMode, IntCollector, IntWatch, Policy, Trim
from .wcmp import slots

__all__ = ["FabricEncoder", "GroupLayout"]


@dataclass(slots=True, frozen=True)
class GroupLayout:
    """A group as written: the next hop of each member slot."""

    group_id: int
    slots: tuple[NextHop, ...]

    def live_mask(self, dead_ports: Iterable[int] = ()) -> int:
        """Bit i set when slot i's port is not dead."""
        dead = set(dead_ports)
        return sum(1 << i for i, nh in enumerate(self.slots) if nh.port not in dead)


class FabricEncoder:
    """Builds the entities of fabric.p4 by P4Info name (see the module docstring)."""

    def __init__(self, schema: P4Schema, constants: FabricConstants | None = None) -> None:
        self.schema = schema
        self.c = constants if constants is not None else FabricConstants.load()
        # the live bitmap's width bounds a group's member slots
        self.max_members = schema.action("use_ecmp").param("live_members").bitwidth
        # routes, groups and members made before, by their inputs: a fabric's switches ask
        # for the same entries again and again (every recomputation, every switch of a
        # tier), and entities are immutable values, so one object serves them all
        self._made: dict[tuple[object, ...], TableEntry] = {}

    _MADE_MAX = 1 << 18  # entries kept before the memo starts afresh

    def _memo(self, key: tuple[object, ...], make: Callable[[], TableEntry]) -> TableEntry:
        e = self._made.get(key)
        if e is None:
            if len(self._made) >= self._MADE_MAX:
                self._made.clear()
            e = self._made[key] = make()
        return e

    # ------------------------------------------------------------------ forwarding
    def my_station(self, router_mac: str) -> TableEntry:
        return table_entry(self.schema, "my_station", {"eth_dst": router_mac}, "set_routable")

    def ecmp_hash_bits(self, rotation: int) -> TableEntry:
        """The default entry of `ecmp_hash_bits`: rotate the flow hash by `rotation` bits
        (0, 8, 16 or 24) before ECMP picks a member."""
        if rotation not in (0, 8, 16, 24):
            raise ValueError(f"ECMP hash rotation {rotation}: one of 0, 8, 16, 24")
        return self._memo(
            ("ecmp_hash_bits", rotation),
            lambda: table_entry(
                self.schema, "ecmp_hash_bits", None, f"rotate_{rotation}", is_default=True
            ),
        )

    def arp_reply(self, ip: str, mac: str) -> TableEntry:
        return table_entry(
            self.schema, "arp_responder", {"target_ip": ip}, "reply_arp", {"target_mac": mac}
        )

    @staticmethod
    def _route_key(prefix: str) -> tuple[str, dict[str, Lpm]]:
        table, field, lpm = _parsed_route(prefix)
        return table, {field: lpm}

    def route(self, prefix: str, group_id: int) -> TableEntry:
        """`prefix` (IPv4 or IPv6) to next-hop group `group_id`."""

        def make() -> TableEntry:
            table, match = self._route_key(prefix)
            return table_entry(
                self.schema, table, match, "set_next_hop_group", {"group_id": group_id}
            )

        return self._memo(("route", prefix, group_id), make)

    def route_punt(self, prefix: str) -> TableEntry:
        table, match = self._route_key(prefix)
        return table_entry(self.schema, table, match, "punt_to_cpu")

    def route_drop(self, prefix: str) -> TableEntry:
        table, match = self._route_key(prefix)
        return table_entry(self.schema, table, match, "drop_route")

    # ------------------------------------------------------------------ groups
    def mode_action(self, mode: GroupMode) -> str:
        """The P4Info name of the next_hop_group action for `mode`."""
        table = self.schema.table("next_hop_group")
        try:
            return self.schema.table_action(table, f"use_{mode.label}").name
        except P4InfoError as e:
            raise P4InfoError(f"mode {mode.label}: {e}") from None

    def group(
        self, group_id: int, mode: GroupMode, size: int, live: int | None = None
    ) -> TableEntry:
        """The next_hop_group entry: mode action, `size` member slots, live-member bitmap
        (None: all slots live). INSERT it for a new group, MODIFY it to change mode or
        liveness (members are untouched)."""
        return self._memo(
            ("group", group_id, mode, size, live), lambda: self._group(group_id, mode, size, live)
        )

    def _group(self, group_id: int, mode: GroupMode, size: int, live: int | None) -> TableEntry:
        if not 1 <= size <= self.max_members:
            raise ValueError(f"group {group_id}: size {size} out of 1..{self.max_members}")
        full = (1 << size) - 1
        live = full if live is None else live
        if live & ~full:
            raise ValueError(
                f"group {group_id}: live bitmap {live:#x} has bits beyond {size} slots"
            )
        if mode.mode != "ecmp" and group_id >= self.c.max_groups_stateful:
            raise ValueError(
                f"group {group_id}: mode {mode.label} keeps per-group state only for group "
                f"ids below {self.c.max_groups_stateful}"
            )
        action = self.mode_action(mode)
        names = {p.name for p in self.schema.action(action).params}
        values = {"group_size": size, "live_members": live, "gap_us": mode.gap_us}
        unknown = names - values.keys()
        if unknown:
            raise P4InfoError(
                f"action {action}: parameters {sorted(unknown)} unknown to this encoder"
            )
        params = {n: values[n] for n in names}
        return table_entry(self.schema, "next_hop_group", {"group_id": group_id}, action, params)

    def member(self, group_id: int, index: int, nh: NextHop, router_mac: str) -> TableEntry:
        return self._memo(
            ("member", group_id, index, nh, router_mac),
            lambda: table_entry(
                self.schema,
                "next_hop_member",
                {"group_id": group_id, "member_index": index},
                "set_next_hop",
                {"port": nh.port, "smac": nh.smac or router_mac, "dmac": nh.dmac},
            ),
        )

    def layout(self, group: RouteGroup) -> GroupLayout:
        """Member slots of a group: one per next hop, or WCMP replication (wcmp.py).

        The slots depend only on the group's (next hop, weight) pairs, not on the order
        they are listed in: the next hops are taken in port order, so a group that keeps
        its next-hop set keeps every member entry (nothing to rewrite)."""
        hops = group.next_hops
        order = sorted(range(len(hops)), key=lambda i: (hops[i].port, hops[i].dmac))
        weights = None if group.weights is None else [group.weights[i] for i in order]
        idx = slots(weights, len(hops), self.max_members)
        return GroupLayout(group.group_id, tuple(hops[order[i]] for i in idx))

    def group_entities(
        self,
        group: RouteGroup,
        mode: GroupMode,
        router_mac: str,
        dead_ports: Iterable[int] = (),
    ) -> list[TableEntry]:
        """The group entry, then its members (the order a switch accepts them in)."""
        lay = self.layout(group)
        out = [self.group(group.group_id, mode, len(lay.slots), lay.live_mask(dead_ports))]
        out += [self.member(group.group_id, i, nh, router_mac) for i, nh in enumerate(lay.slots)]
        return out

    def set_mode(
        self, group: RouteGroup, mode: GroupMode, dead_ports: Iterable[int] = ()
    ) -> TableEntry:
        """The entry to MODIFY to switch `group` to `mode` (keeping its live bitmap)."""
        lay = self.layout(group)
        return self.group(group.group_id, mode, len(lay.slots), lay.live_mask(dead_ports))

    def ports_down(
        self, intent: SwitchIntent, policy: Policy, dead_ports: Iterable[int]
    ) -> list[TableEntry]:
        """MODIFYs for the groups that use any of `dead_ports` (the full dead set: a group
        keeps earlier dead ports cleared)."""
        dead = set(dead_ports)
        return [
            self.set_mode(g, policy.group_mode(g.group_id), dead)
            for g in intent.groups
            if any(nh.port in dead for nh in g.next_hops)
        ]

    def ports_up(
        self,
        intent: SwitchIntent,
        policy: Policy,
        came_back: Iterable[int],
        still_dead: Iterable[int] = (),
    ) -> list[TableEntry]:
        """MODIFYs for the groups that use any port of `came_back`, with only `still_dead`
        cleared."""
        back = set(came_back)
        dead = set(still_dead)
        return [
            self.set_mode(g, policy.group_mode(g.group_id), dead)
            for g in intent.groups
            if any(nh.port in back for nh in g.next_hops)
        ]

    def live_members_update(
        self, entities: Iterable[Entity], dead_ports: Iterable[int]
    ) -> list[TableEntry]:
        """Fast local repair from a switch's written entities (no routing needed): the
        `next_hop_group` entries, each with the live bit of every member slot whose port is
        in `dead_ports` cleared, for the groups where that changes a bit. MODIFY them and the
        data plane stops choosing those slots at once (a dead slot's flows move to the next
        live slot; a group with no live slot left drops, `NO_LIVE_MEMBER`)."""
        dead = set(dead_ports)
        group_t = self.schema.table("next_hop_group").name
        member_t = self.schema.table("next_hop_member").name
        entities = list(entities)
        dead_slots: dict[int, int] = {}  # group id -> bitmap of slots on a dead port
        for e in entities:
            if (
                isinstance(e, TableEntry)
                and e.table == member_t
                and isinstance(e.action, Action)
                and e.action.params.get("port") in dead
            ):
                gid, idx = _exact(e, "group_id"), _exact(e, "member_index")
                dead_slots[gid] = dead_slots.get(gid, 0) | (1 << idx)
        out: list[TableEntry] = []
        for e in entities:
            if not (isinstance(e, TableEntry) and e.table == group_t):
                continue
            clear = dead_slots.get(_exact(e, "group_id"), 0)
            act = e.action
            if not clear or not isinstance(act, Action) or "live_members" not in act.params:
                continue
            live = act.params["live_members"]
            if live & clear:
                params = {**act.params, "live_members": live & ~clear}
                out.append(replace(e, action=Action(act.name, params)))
        return out

    # ------------------------------------------------------------------ congestion
    def ecn(self, port: int, cfg: EcnStep | EcnRed) -> TableEntry:
        if isinstance(cfg, EcnStep):
            return table_entry(
                self.schema,
                "ecn_config",
                {"eg_port": port},
                "mark_ecn_step",
                {"threshold": cfg.threshold},
            )
        return table_entry(
            self.schema,
            "ecn_config",
            {"eg_port": port},
            "mark_ecn_red",
            {
                "min_threshold": cfg.min_threshold,
                "max_threshold": cfg.max_threshold,
                "max_probability": min(cfg.max_probability, 255),
            },
        )

    def trim(self, port: int, cfg: Trim) -> TableEntry:
        return table_entry(
            self.schema,
            "trim_config",
            {"eg_port": port},
            "trim_above",
            {"queue_threshold": cfg.queue_threshold, "dscp": cfg.dscp, "priority": cfg.priority},
        )

    def cnp(self, port: int, cfg: Cnp) -> TableEntry:
        return table_entry(
            self.schema,
            "cnp_config",
            {"eg_port": port},
            "notify_above",
            {
                "queue_threshold": cfg.queue_threshold,
                "interval_us": cfg.interval_us,
                "dscp": cfg.dscp,
            },
        )

    def cnp_session(self, port: int) -> CloneSession:
        """The clone session of CNPs for senders behind `port` (CNP_SESSION_BASE + port on
        v1model; the TNA numbering and truncation: FabricConstants.cnp_session)."""
        return CloneSession(
            self.c.cnp_session(port),
            (Replica(port),),
            packet_length_bytes=self.c.cnp_truncate_bytes,
        )

    def trim_session(self, port: int, cfg: Trim) -> CloneSession:
        """Tofino 1 only: the mirror session that sends packets trimmed on their way out of
        `port` (dropped and mirrored in ingress) out of it, cut after the kept headers, in
        the trim queue (`cfg.priority` as the copy's queue: FabricConstants.trim_session)."""
        return CloneSession(
            self.c.trim_session(port),
            (Replica(port),),
            class_of_service=cfg.priority,
            packet_length_bytes=self.c.trim_truncate_bytes,
        )

    def depth_report_session(self) -> CloneSession:
        """TNA only: the mirror session (DEPTH_REPORT_SESSION) that sends egress's queue-depth
        reports to the recirculation port ingress reads them on, cut short."""
        port = self.c.depth_report_port
        if port is None:
            raise ValueError("depth reports exist on the TNA pipeline only (target tofino/2)")
        return CloneSession(
            self.c["DEPTH_REPORT_SESSION"],
            (Replica(port),),
            packet_length_bytes=DEPTH_REPORT_TRUNCATE,
        )

    # ------------------------------------------------------------------ INT
    def int_watch(self, w: IntWatch, max_hops: int, instructions: int) -> TableEntry:
        t = self.schema.table("int_watchlist")
        match: dict[str, Ternary] = {}
        for name in ("ip_src", "ip_dst"):
            prefix = getattr(w, name)
            if prefix is not None:
                match[name] = _prefix_ternary(prefix, t.field(name).bitwidth)
        for name in ("ip_proto", "l4_sport", "l4_dport"):
            v = getattr(w, name)
            if v is not None:
                full = (1 << t.field(name).bitwidth) - 1
                mask = full
                if name == "l4_sport" and w.l4_sport_mask is not None:
                    mask = w.l4_sport_mask & full
                if mask:  # a zero mask matches anything: P4Runtime wants it left out
                    match[name] = Ternary(v, mask)
        return table_entry(
            self.schema,
            "int_watchlist",
            match,
            "mark_int_source",
            {"max_hops": max_hops, "instructions": instructions},
            priority=w.priority,
        )

    def int_sink(self, port: int) -> TableEntry:
        return table_entry(self.schema, "int_sink_ports", {"eg_port": port}, "mark_int_sink")

    def int_port(self, port: int, switch_id: int, mtu: int) -> TableEntry:
        return table_entry(
            self.schema,
            "int_ports",
            {"eg_port": port},
            "enable_int",
            {"switch_id": switch_id, "mtu": mtu},
        )

    def int_report(
        self, port: int, src_mac: str, dst_mac: str, src_ip: str, collector: IntCollector
    ) -> TableEntry:
        """Reports leaving by `port` (toward the collector) get this encapsulation."""
        return table_entry(
            self.schema,
            "int_report",
            {"eg_port": port},
            "encap_report",
            {
                "src_mac": src_mac,
                "dst_mac": dst_mac,
                "src_ip": src_ip,
                "dst_ip": collector.ip,
                "src_port": collector.src_port,
                "dst_port": collector.udp_port,
            },
        )

    def int_session(self, port: int, truncate_bytes: int = 0) -> CloneSession:
        """Clone session INT_REPORT_SESSION: sink clones go out of `port` as reports."""
        return CloneSession(
            self.c.int_report_session, (Replica(port),), packet_length_bytes=truncate_bytes
        )

    def alert_session(self, port: int) -> CloneSession:
        """TNA only: the session drop and queue report copies go to, out of `port` (toward
        the collector), cut to the mirror header and what a report keeps of the packet."""
        session = self.c.alert_session
        if session is None:
            raise ValueError("the alert session exists on the TNA pipeline only (target tofino/2)")
        return CloneSession(
            session, (Replica(port),), packet_length_bytes=self.c.alert_truncate_bytes
        )

    def drop_report(self, switch_id: int, min_gap_us: int, reason: int | None = None) -> TableEntry:
        """Report the packets ingress drops for `reason` (every reason when None) to the
        collector, at most one report per reason every `min_gap_us`."""
        match: dict[str, Ternary] = {}
        if reason is not None:
            match["reason"] = Ternary(
                reason, (1 << self.schema.table("drop_reasons").field("reason").bitwidth) - 1
            )
        return table_entry(
            self.schema,
            "drop_reasons",
            match,
            "report_drop",
            {"switch_id": switch_id, "min_gap_us": min_gap_us},
            priority=2 if reason is not None else 1,
        )

    def queue_report(
        self, port: int, switch_id: int, threshold: int, min_gap_us: int
    ) -> TableEntry:
        """Report packets leaving `port` that waited behind `threshold` packets or more, at
        most one report every `min_gap_us`."""
        return table_entry(
            self.schema,
            "queue_report_config",
            {"eg_port": port},
            "report_queue_above",
            {"switch_id": switch_id, "queue_threshold": threshold, "min_gap_us": min_gap_us},
        )

    # ------------------------------------------------------------------ one switch
    def switch_entities(
        self, intent: SwitchIntent, policy: Policy, dead_ports: Iterable[int] = ()
    ) -> list[Entity]:
        """Every entity `intent` and `policy` ask of one switch, in an order a switch
        accepts as one batch (groups and members before the routes that use them)."""
        dead = set(dead_ports)
        out: list[Entity] = [self.my_station(intent.router_mac)]
        if intent.ecmp_hash_rotation:
            out.append(self.ecmp_hash_bits(intent.ecmp_hash_rotation))
        out += [self.arp_reply(ip, mac) for ip, mac in intent.arp]
        for g in intent.groups:
            out += self.group_entities(g, policy.group_mode(g.group_id), intent.router_mac, dead)
        for g in intent.groups:
            out += [self.route(p, g.group_id) for p in g.prefixes]
        ports = [p.port for p in intent.ports]
        if self.c.depth_report_port is not None and (
            policy.trim is not None
            or any(policy.group_mode(g.group_id).mode == "adaptive" for g in intent.groups)
        ):  # TNA: adaptive groups and trimming learn queue depths from mirrored reports
            out.append(self.depth_report_session())
        if policy.ecn is not None:
            out += [self.ecn(p, policy.ecn) for p in ports]
        if policy.trim is not None:
            out += [self.trim(p, policy.trim) for p in ports]
            if self.c.target == "tofino":  # no ingress cut: trimmed copies are mirrored
                out += [self.trim_session(p, policy.trim) for p in ports]
        if policy.cnp is not None:
            out += [self.cnp(p, policy.cnp) for p in ports]
            out += [self.cnp_session(p) for p in ports]
        if policy.int_md is not None:
            out += self._int_entities(intent, policy)
        return out

    def _int_entities(self, intent: SwitchIntent, policy: Policy) -> list[Entity]:
        ip = policy.int_md
        assert ip is not None
        hosts = intent.ports_with("host")
        out: list[Entity] = []
        if hosts:  # INT starts and ends at the switches hosts attach to
            out += [self.int_watch(w, ip.max_hops, ip.instructions) for w in ip.watchlist]
            out += [self.int_sink(p) for p in hosts]
        out += [
            self.int_port(p.port, intent.switch_id, policy.mtu_of(p.port)) for p in intent.ports
        ]
        col = ip.collector
        # sinks send INT reports; with drop or queue reports on, every switch sends those
        if col is not None and (hosts or col.drop_report_gap_us or col.queue_report_threshold):
            port, mac = _toward_collector(intent, col)
            if port is not None and mac is not None:
                if intent.report_ip is None:
                    raise ValueError(f"switch {intent.name}: INT reports need a report_ip")
                out.append(self.int_report(port, intent.router_mac, mac, intent.report_ip, col))
                out.append(self.int_session(port, col.truncate_bytes))
                if self.c.alert_session is not None and (
                    col.drop_report_gap_us or col.queue_report_threshold
                ):  # TNA: drop and queue report copies have their own cut session
                    out.append(self.alert_session(port))
                if col.drop_report_gap_us:
                    out.append(self.drop_report(intent.switch_id, col.drop_report_gap_us))
                if col.queue_report_threshold:
                    out += [
                        self.queue_report(
                            p.port,
                            intent.switch_id,
                            col.queue_report_threshold,
                            col.queue_report_gap_us,
                        )
                        for p in intent.ports
                    ]
        return out


def _toward_collector(intent: SwitchIntent, col: IntCollector) -> tuple[int | None, str | None]:
    if col.switch is not None and col.switch == intent.name:
        return col.port, col.mac
    return intent.collector_port, intent.collector_next_hop_mac


def _exact(e: TableEntry, field: str) -> int:
    m = e.match.get(field)
    if not isinstance(m, Exact):
        raise ValueError(f"{e.table}: entry without an exact {field!r} match")
    return m.value


def _prefix_ternary(prefix: str, width: int) -> Ternary:
    """A prefix as a ternary match on a `width`-bit address field (IPv4 addresses sit in
    the low 32 bits of the 128-bit lookup fields, upper bits zero)."""
    net = ipaddress.ip_network(prefix, strict=True)
    full = (1 << width) - 1
    host_bits = net.max_prefixlen - net.prefixlen
    mask = full & ~((1 << host_bits) - 1)
    return Ternary(int(net.network_address) & mask, mask)


@functools.lru_cache(maxsize=1 << 16)
def _parsed_route(prefix: str) -> tuple[str, str, Lpm]:
    """The routing table, field and match of `prefix`, parsed once: a fabric's switches
    name the same few prefixes tens of thousands of times (a k=16 fat-tree: 41,856 routes)."""
    net = ipaddress.ip_network(prefix, strict=True)
    table, field = ("routing_v6", "ipv6_dst") if net.version == 6 else ("routing_v4", "ipv4_dst")
    return table, field, Lpm(int(net.network_address), net.prefixlen)
