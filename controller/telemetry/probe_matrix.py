"""Pingmesh-style probe results aggregated per (source, destination, path): the rows
`sprayfabric doctor` reads, the same from a fabricsim run (fabricsim.probes) and from a
live fabric's prober (controller.fabric.live_probe)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ProbeMatrix"]


class ProbeMatrix:
    """Add one probe at a time; `rows()` gives, per (src, dst, path, partial), the source
    ports used, probes sent and received, and min/p50/p99/max latency (ns; None when
    nothing arrived). `partial`: the path is only known up to where the probe was lost."""

    def __init__(self) -> None:
        self._agg: dict[tuple[str, str, tuple[str, ...], bool], dict[str, Any]] = {}

    def add(
        self,
        src: str,
        dst: str,
        path: Sequence[str],
        partial: bool,
        sport: int,
        latency_ns: int | None,
    ) -> None:
        key = (src, dst, tuple(path), partial)
        a = self._agg.get(key)
        if a is None:
            a = self._agg[key] = {
                "src": src,
                "dst": dst,
                "path": list(path),
                "partial": partial,
                "sports": [],
                "sent": 0,
                "received": 0,
                "lat": [],
            }
        if sport not in a["sports"]:
            a["sports"].append(sport)
        a["sent"] += 1
        if latency_ns is not None:
            a["received"] += 1
            a["lat"].append(latency_ns)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for a in self._agg.values():
            row = {k: v for k, v in a.items() if k != "lat"}
            lat = sorted(a["lat"])
            row["lat_ns"] = (
                {
                    "min": lat[0],
                    "p50": lat[len(lat) // 2],
                    "p99": lat[int(0.99 * (len(lat) - 1))],
                    "max": lat[-1],
                }
                if lat
                else None
            )
            out.append(row)
        return out
