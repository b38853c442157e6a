"""A fabric switch for tests: softswitch running p4src/fabric.p4, with verbs that
write the run-time knobs the way the controller will (see docs/fabric.md)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from softswitch.clock import SimClock
from softswitch.codegen.program import CompiledProgram
from softswitch.compiler import compile_file
from softswitch.engine import matches as M
from softswitch.engine.tables import Table
from softswitch.v1model.switch import CloneSession, Switch

from .packets import ip_int, mac_int

ROOT = Path(__file__).resolve().parents[2]
FABRIC_P4 = ROOT / "p4src" / "fabric.p4"
DEFINE_P4 = ROOT / "p4src" / "include" / "define.p4"

MODES = {
    "ecmp": "use_ecmp",
    "flowlet": "use_flowlet",
    "spray_random": "use_spray_random",
    "spray_round_robin": "use_spray_round_robin",
    "adaptive": "use_adaptive",
}


@cache
def p4_consts() -> dict[str, int]:
    """`const <type> NAME = value;` and `#define NAME number` from define.p4: the one
    source of truth for drop reasons, ports and sessions."""
    text = DEFINE_P4.read_text()
    out = {
        m[1]: int(m[2], 0) for m in re.finditer(r"const\s+\w+(?:<\d+>)?\s+(\w+)\s*=\s*(\w+);", text)
    }
    out |= {m[1]: int(m[2], 0) for m in re.finditer(r"#define\s+(\w+)\s+(\d+)\b", text)}
    return out


def compile_fabric(**defines: str) -> CompiledProgram:
    return compile_file(FABRIC_P4, defines=defines)


class Fabric:
    """One switch with verbs for its tables, registers and clone sessions."""

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
        self.add("my_station", [M.Exact(mac_int(router_mac))], "set_routable")

    # ------------------------------------------------------------ raw access
    def table(self, name: str) -> Table:
        hits = [t for n, t in self.sw.tables.items() if n.split(".")[-1] == name]
        assert len(hits) == 1, f"table {name}: {hits}"
        return hits[0]

    def extern(self, name: str) -> Any:
        hits = [e for n, e in self.sw.externs.items() if n.split(".")[-1] == name]
        assert len(hits) == 1, f"extern {name}"
        return hits[0]

    def add(
        self,
        table: str,
        matches: list[M.Match],
        action: str,
        args: tuple[int, ...] = (),
        priority: int | None = None,
    ) -> None:
        t = self.table(table)
        full = next(a for a in t.action_names if a.split(".")[-1] == action)
        t.add(matches, full, args, priority)

    def modify(
        self, table: str, matches: list[M.Match], action: str, args: tuple[int, ...] = ()
    ) -> None:
        t = self.table(table)
        full = next(a for a in t.action_names if a.split(".")[-1] == action)
        t.modify(matches, full, args)

    # ------------------------------------------------------------ forwarding
    def add_route(self, prefix: str, group: int) -> None:
        addr, plen = prefix.split("/")
        table = "routing_v6" if ":" in addr else "routing_v4"
        self.add(table, [M.Lpm(ip_int(addr), int(plen))], "set_next_hop_group", (group,))

    def add_route_action(self, prefix: str, action: str) -> None:
        addr, plen = prefix.split("/")
        table = "routing_v6" if ":" in addr else "routing_v4"
        self.add(table, [M.Lpm(ip_int(addr), int(plen))], action)

    def group_args(self, mode: str, size: int, live: int | None, gap_us: int) -> tuple[int, ...]:
        live = (1 << size) - 1 if live is None else live
        return (size, live, gap_us) if mode == "flowlet" else (size, live)

    def add_group(
        self, group: int, mode: str, size: int, *, live: int | None = None, gap_us: int = 0
    ) -> None:
        self.add(
            "next_hop_group",
            [M.Exact(group)],
            MODES[mode],
            self.group_args(mode, size, live, gap_us),
        )

    def set_group(
        self, group: int, mode: str, size: int, *, live: int | None = None, gap_us: int = 0
    ) -> None:
        self.modify(
            "next_hop_group",
            [M.Exact(group)],
            MODES[mode],
            self.group_args(mode, size, live, gap_us),
        )

    def add_member(self, group: int, index: int, port: int, dmac: str) -> None:
        args = (port, mac_int(self.router_mac), mac_int(dmac))
        self.add("next_hop_member", [M.Exact(group), M.Exact(index)], "set_next_hop", args)

    def add_ecmp_route(
        self, prefix: str, group: int, ports: list[int], mode: str = "ecmp", **kw: int
    ) -> None:
        self.add_route(prefix, group)
        self.add_group(group, mode, len(ports), **kw)
        for i, p in enumerate(ports):
            self.add_member(group, i, p, f"00:00:00:00:{p:02x}:{p:02x}")

    def member_packets(self, group: int, index: int) -> int:
        return self.table("next_hop_member").find([M.Exact(group), M.Exact(index)]).packets

    def drops(self, reason: str) -> int:
        return self.extern("drop_counter").packets[self.c[f"DROP_{reason}"]]

    def clone_session(self, session: int, port: int) -> None:
        self.sw.clone_session_set(session, CloneSession([(port, 0)]))

    # ------------------------------------------------------------ packets
    def send(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return self.sw.process(port, data)

    def inject(self, port: int, data: bytes) -> None:
        self.sw.inject(port, data)

    def run_until(self, t_us: int) -> list[tuple[int, bytes]]:
        return [(o.port, o.data) for o in self.sw.run_until(t_us)]

    def advance(self, us: int) -> list[tuple[int, bytes]]:
        return self.run_until(self.clock.now_us() + us)
