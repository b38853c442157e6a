"""A fabric switch for tests: softswitch running p4src/fabric.p4, with verbs that write
the run-time knobs through the controller's encoder (`controller.lb.FabricEncoder`, the
one encoding of docs/fabric.md's tables), applied to the in-process switch through
softswitch's P4Runtime entity store (the code behind its P4Runtime server's Write), so the
switch runs on a simulated clock with no gRPC in between."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from controller import P4Schema
from controller.codec import encode_entity
from controller.entities import Entity, UpdateType
from controller.lb import Cnp as CnpConfig
from controller.lb import (
    EcnRed,
    EcnStep,
    FabricConstants,
    FabricEncoder,
    GroupMode,
    IntCollector,
    IntWatch,
    NextHop,
    Trim,
)
from p4rt_proto import p4runtime_pb2 as p4r
from softswitch.clock import SimClock
from softswitch.compiler import compile_file
from softswitch.engine import matches as M
from softswitch.engine.tables import Table
from softswitch.p4info import p4info_for
from softswitch.p4runtime.entities import EntityStore
from softswitch.program_info import CompiledProgram
from softswitch.v1model.switch import Switch

ROOT = Path(__file__).resolve().parents[2]
FABRIC_P4 = ROOT / "p4src" / "fabric.p4"
DEFINE_P4 = ROOT / "p4src" / "include" / "define.p4"


@cache
def p4_consts() -> FabricConstants:
    """Constants of define.p4/size.p4 (drop reasons, ports, sessions), as the encoder
    reads them."""
    return FabricConstants.load(ROOT / "p4src")


def compile_fabric(**defines: str) -> CompiledProgram:
    return compile_file(FABRIC_P4, defines=defines)


def next_hop_mac(port: int) -> str:
    return f"00:00:00:00:{port:02x}:{port:02x}"


class Fabric:
    """One switch with verbs for its tables and clone sessions (written as P4Runtime
    updates) and direct reads of its tables, registers and counters."""

    def __init__(
        self,
        program: CompiledProgram,
        *,
        seed: int = 1,
        start_us: int = 0,
        priority_queues: int = 1,
        router_mac: str = "00:00:00:00:aa:01",
    ) -> None:
        self.clock = SimClock(start_us)
        self.sw = Switch(program, clock=self.clock, seed=seed, priority_queues=priority_queues)
        self.router_mac = router_mac
        self.c = p4_consts()
        p4info = p4info_for(program)
        self.enc = FabricEncoder(P4Schema(p4info), self.c)
        self.store = EntityStore(self.sw, p4info)
        self.insert(self.enc.my_station(router_mac))

    # ------------------------------------------------------------ writes
    def _write(self, kind: UpdateType, entities: tuple[Entity, ...]) -> None:
        for e in entities:
            update = p4r.Update(type=kind.value)
            update.entity.CopyFrom(encode_entity(self.enc.schema, e))
            self.store.write(update)

    def insert(self, *entities: Entity) -> None:
        self._write(UpdateType.INSERT, entities)

    def modify(self, *entities: Entity) -> None:
        self._write(UpdateType.MODIFY, entities)

    # ------------------------------------------------------------ raw access
    def table(self, name: str) -> Table:
        hits = [t for n, t in self.sw.tables.items() if n.split(".")[-1] == name]
        assert len(hits) == 1, f"table {name}: {hits}"
        return hits[0]

    def extern(self, name: str) -> Any:
        hits = [e for n, e in self.sw.externs.items() if n.split(".")[-1] == name]
        assert len(hits) == 1, f"extern {name}"
        return hits[0]

    # ------------------------------------------------------------ forwarding
    def add_route(self, prefix: str, group: int) -> None:
        self.insert(self.enc.route(prefix, group))

    def add_route_action(self, prefix: str, action: str) -> None:
        """A route to `punt_to_cpu` or `drop_route`."""
        build = {"punt_to_cpu": self.enc.route_punt, "drop_route": self.enc.route_drop}[action]
        self.insert(build(prefix))

    def add_arp_reply(self, ip: str, mac: str) -> None:
        self.insert(self.enc.arp_reply(ip, mac))

    def add_group(
        self, group: int, mode: str, size: int, *, live: int | None = None, gap_us: int = 0
    ) -> None:
        """Mode labels: ecmp, flowlet, spray_random, spray_round_robin, adaptive."""
        self.insert(self.enc.group(group, GroupMode.parse(mode, gap_us), size, live))

    def set_group(
        self, group: int, mode: str, size: int, *, live: int | None = None, gap_us: int = 0
    ) -> None:
        self.modify(self.enc.group(group, GroupMode.parse(mode, gap_us), size, live))

    def add_member(self, group: int, index: int, port: int, dmac: str) -> None:
        self.insert(self.enc.member(group, index, NextHop(port, dmac), self.router_mac))

    def add_ecmp_route(
        self, prefix: str, group: int, ports: list[int], mode: str = "ecmp", **kw: int
    ) -> None:
        self.add_route(prefix, group)
        self.add_group(group, mode, len(ports), **kw)
        for i, p in enumerate(ports):
            self.add_member(group, i, p, next_hop_mac(p))

    def member_packets(self, group: int, index: int) -> int:
        return self.table("next_hop_member").find([M.Exact(group), M.Exact(index)]).packets

    def drops(self, reason: str) -> int:
        return self.extern("drop_counter").packets[self.c.drop_reasons[reason]]

    # ------------------------------------------------------------ congestion
    def set_ecn_step(self, port: int, threshold: int) -> None:
        self.insert(self.enc.ecn(port, EcnStep(threshold)))

    def set_ecn_red(self, port: int, k_min: int, k_max: int, p_max: int) -> None:
        self.insert(self.enc.ecn(port, EcnRed(k_min, k_max, p_max)))

    def set_trim(self, port: int, threshold: int, dscp: int, priority: int) -> None:
        self.insert(self.enc.trim(port, Trim(threshold, dscp, priority)))

    def set_cnp(self, port: int, threshold: int, interval_us: int, dscp: int) -> None:
        self.insert(self.enc.cnp(port, CnpConfig(threshold, interval_us, dscp)))

    def add_cnp_session(self, port: int) -> None:
        """Clone session CNP_SESSION_BASE + port (CNPs back out of `port`)."""
        self.insert(self.enc.cnp_session(port))

    # ------------------------------------------------------------ INT
    def enable_int(self, port: int, switch_id: int, mtu: int = 1500) -> None:
        self.insert(self.enc.int_port(port, switch_id, mtu))

    def add_int_watch(self, watch: IntWatch, max_hops: int, instructions: int) -> None:
        self.insert(self.enc.int_watch(watch, max_hops, instructions))

    def add_int_sink(self, port: int) -> None:
        self.insert(self.enc.int_sink(port))

    def add_int_report(self, port: int, src_ip: str, collector: IntCollector) -> None:
        """Reports out of `port` to `collector`, and the clone session that sends them."""
        self.insert(
            self.enc.int_report(port, self.router_mac, collector.mac, src_ip, collector),
            self.enc.int_session(port),
        )

    def add_drop_report(self, switch_id: int, min_gap_us: int, reason: str | None = None) -> None:
        """Report ingress drops (of `reason`, a DROP_* name without the prefix; every
        reason when None) through the INT report session."""
        code = None if reason is None else self.c.drop_reasons[reason]
        self.insert(self.enc.drop_report(switch_id, min_gap_us, code))

    # ------------------------------------------------------------ packets
    def send(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return self.sw.process(port, data)

    def inject(self, port: int, data: bytes) -> None:
        self.sw.inject(port, data)

    def run_until(self, t_us: int) -> list[tuple[int, bytes]]:
        return [(o.port, o.data) for o in self.sw.run_until(t_us)]

    def advance(self, us: int) -> list[tuple[int, bytes]]:
        return self.run_until(self.clock.now_us() + us)
