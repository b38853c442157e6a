"""What one switch must do, as plain values the encoder reads: its identity, the role of
each port, its routes grouped by next-hop set, the ARP answers it gives.

These types know nothing of topology files or route computation: whoever computes routes
(the fabric controller, a test, a simulator) fills them in.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from typing import Literal

__all__ = ["NextHop", "PortRole", "RouteGroup", "SwitchIntent"]

Role = Literal["host", "fabric"]


@dataclass(slots=True, frozen=True)
class PortRole:
    """A data port: `host` (faces a host: INT sink, ARP answered) or `fabric` (faces a
    switch)."""

    port: int
    role: Role = "fabric"

    def __post_init__(self) -> None:
        if self.role not in ("host", "fabric"):
            raise ValueError(f"port {self.port}: role {self.role!r} is not host or fabric")


@dataclass(slots=True, frozen=True)
class NextHop:
    """One member of a group: out of `port`, Ethernet source `smac` (None: the switch's
    router MAC) and destination `dmac` (the neighbour's MAC)."""

    port: int
    dmac: str
    smac: str | None = None


@dataclass(slots=True, frozen=True)
class RouteGroup:
    """Prefixes that share one next-hop set. `weights` (one per next hop, None: equal)
    make it WCMP; the encoder turns weights into member slots."""

    group_id: int
    prefixes: tuple[str, ...]
    next_hops: tuple[NextHop, ...]
    weights: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for p in self.prefixes:
            problem = _prefix_problem(p)
            if problem is not None:
                raise ValueError(f"group {self.group_id}: prefix {p!r}: {problem}")
        if self.weights is not None and len(self.weights) != len(self.next_hops):
            raise ValueError(
                f"group {self.group_id}: {len(self.weights)} weights for "
                f"{len(self.next_hops)} next hops"
            )


@dataclass(slots=True, frozen=True)
class SwitchIntent:
    """Everything the encoder needs about one switch.

    `switch_id` is the INT switch id; `report_ip` the source address of its INT reports;
    `collector_port` / `collector_next_hop_mac` the port and next-hop MAC toward the INT
    collector (None: this switch sends no reports); `ecmp_hash_rotation` the bits (0, 8,
    16 or 24) fabric.p4 rotates the flow hash by before ECMP picks a member, one per tier
    of the fabric so that no tier picks with the bits the one before it used."""

    name: str
    router_mac: str
    ports: tuple[PortRole, ...] = ()
    groups: tuple[RouteGroup, ...] = ()
    arp: tuple[tuple[str, str], ...] = ()  # (IPv4 address, MAC) the switch answers for
    switch_id: int = 0
    report_ip: str | None = None
    collector_port: int | None = None
    collector_next_hop_mac: str | None = None
    ecmp_hash_rotation: int = 0

    def ports_with(self, role: Role) -> tuple[int, ...]:
        return tuple(p.port for p in self.ports if p.role == role)

    def group(self, group_id: int) -> RouteGroup:
        for g in self.groups:
            if g.group_id == group_id:
                return g
        raise KeyError(f"switch {self.name} has no group {group_id}")


@functools.lru_cache(maxsize=1 << 16)
def _prefix_problem(prefix: str) -> str | None:
    """Why `prefix` is not a network (None: it is), checked once per prefix: a fabric's
    switches name the same prefixes over and over."""
    try:
        ipaddress.ip_network(prefix, strict=True)
    except ValueError as e:
        return str(e)
    return None
