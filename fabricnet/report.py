"""The demo's printed tables: per-uplink packet counts and iperf3 throughputs per mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.topology import Topology

from .traffic import FlowResult

__all__ = ["ModeRun", "Uplink", "balance", "format_mode", "format_summary", "uplinks_of"]


@dataclass(frozen=True, slots=True, order=True)
class Uplink:
    """Port `port` of leaf `switch`, facing `peer` (a spine)."""

    switch: str
    port: int
    peer: str

    def __str__(self) -> str:
        return f"{self.switch}:{self.port} -> {self.peer}"


@dataclass(frozen=True, slots=True)
class ModeRun:
    """One load-balancing mode's run: packets each uplink sent during it, and the flows."""

    mode: str
    seconds: float
    uplink_packets: Mapping[Uplink, int]
    flows: Sequence[FlowResult]

    @property
    def total_mbps(self) -> float:
        return sum(f.mbps for f in self.flows)


def uplinks_of(topology: Topology, role: str = "leaf") -> list[Uplink]:
    """Every port of a `role` switch that leads to another switch, in name/port order."""
    found = []
    for sw in topology.switches:
        if sw.role != role:
            continue
        for link in topology.links:
            if sw.name in (link.a, link.b):
                found.append(Uplink(sw.name, link.port_of(sw.name), link.other(sw.name)))
    return sorted(found)


def balance(counts: Mapping[Uplink, int], switch: str) -> float | None:
    """Least-loaded / most-loaded uplink of `switch` (1.0 = even), None if it sent nothing."""
    values = [n for u, n in counts.items() if u.switch == switch]
    if not values or max(values) == 0:
        return None
    return min(values) / max(values)


def format_mode(run: ModeRun) -> str:
    lines = [f"== {run.mode}: {len(run.flows)} parallel iperf3 flows, {run.seconds:g} s"]
    per_switch: dict[str, int] = {}
    for u, n in run.uplink_packets.items():
        per_switch[u.switch] = per_switch.get(u.switch, 0) + n
    lines.append(f"  {'uplink':<24} {'packets':>9} {'share':>7}")
    for u in sorted(run.uplink_packets):
        n = run.uplink_packets[u]
        total = per_switch[u.switch]
        share = f"{100.0 * n / total:.1f}%" if total else "-"
        lines.append(f"  {str(u):<24} {n:>9} {share:>7}")
    lines.append(f"  {'flow':<24} {'Mbit/s':>9} {'retrans':>7}")
    for f in run.flows:
        name = f"{f.flow.src} -> {f.flow.dst}"
        if f.error:
            lines.append(f"  {name:<24} failed: {f.error}")
        else:
            lines.append(f"  {name:<24} {f.mbps:>9.2f} {f.retransmits:>7}")
    lines.append(f"  {'total':<24} {run.total_mbps:>9.2f}")
    return "\n".join(lines)


def format_summary(runs: Sequence[ModeRun]) -> str:
    """One line per mode: total throughput and, per leaf, the uplink balance."""
    leaves = sorted({u.switch for r in runs for u in r.uplink_packets})
    head = f"{'mode':<10} {'total Mbit/s':>12}  " + "  ".join(
        f"{leaf + ' min/max':>14}" for leaf in leaves
    )
    lines = [head]
    for r in runs:
        cells = []
        for leaf in leaves:
            b = balance(r.uplink_packets, leaf)
            cells.append(f"{'-' if b is None else f'{b:.2f}':>14}")
        lines.append(f"{r.mode:<10} {r.total_mbps:>12.2f}  " + "  ".join(cells))
    return "\n".join(lines)
