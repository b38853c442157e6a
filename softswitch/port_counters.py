"""Counters of impaired UDP cables, the interface counters a live fabric's doctor reads.

    softswitch ... --impair-file run/impair.json --port-stats-file run/port-stats/leaf1.json

Per device and UDP port, cumulative from the process's start (a port keeps its counters
when its impairment changes or goes):

| counter | what it counts |
| --- | --- |
| `dropped` | frames the impairment dropped (loss, flap, a full backlog) |
| `paused_s` | seconds the port was held by a pause from its peer (PFC, `pause`) |
| `carrier_transitions` | the cable going down or up (each edge of a `flap`) |
| `queue_area` | frames x seconds waiting at the port: frames held by a rate, a pause or a busy port, and a busy port's background burst |
| `queue_peak` | the most frames waiting at once since the port's impairment last changed |

A reader takes two snapshots and divides: `queue_area` over the seconds between them is
the mean queue. The file, `{"at": UNIX_TIME, "devices": {DEV: {PORT: {...}}}}`, is written
whole and renamed into place every `softswitch.impair.POLL_S`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "PortCounters",
    "busy_background",
    "busy_queue_area",
    "edges_until",
    "write_port_stats",
]


@dataclass(slots=True)
class PortCounters:
    dropped: int = 0
    paused_s: float = 0.0
    carrier_transitions: int = 0
    queue_area: float = 0.0
    queue_peak: int = 0

    def snapshot(self) -> dict[str, Any]:
        out = asdict(self)
        out["paused_s"] = round(self.paused_s, 6)
        out["queue_area"] = round(self.queue_area, 6)
        return out


def edges_until(t: float, period: float, duty: float, t0: float) -> int:
    """Edges of a square wave down for `duty` of each `period` from `t0` (down at t0, up
    at t0 + duty*period, ...) at or before `t`."""
    if t < t0:
        return 0
    n = (t - t0) / period
    downs = math.floor(n) + 1
    ups = math.floor(n - duty) + 1 if n >= duty else 0
    return downs + ups


def busy_background(period: float, duty: float, rate_pps: float) -> float:
    """Frames of the background burst that holds a busy port for duty*period at
    `rate_pps`: they all arrive at the start of each period and drain at the port's rate."""
    return rate_pps * duty * period


def busy_queue_area(t: float, period: float, duty: float, t0: float, rate_pps: float) -> float:
    """The background burst's frames x seconds in the queue from `t0` to `t`: each period
    it falls from `busy_background` to 0 over duty*period, then the queue is empty."""
    if t <= t0:
        return 0.0
    busy = duty * period
    burst = busy_background(period, duty, rate_pps)
    full, phase = divmod(t - t0, period)
    x = min(phase, busy)
    return full * burst * busy / 2 + burst * (x - x * x / (2 * busy))


def write_port_stats(path: Path, at: float, devices: dict[int, dict[int, PortCounters]]) -> None:
    """The counters file (module docstring), written whole then renamed into place."""
    data = {
        "at": round(at, 6),
        "devices": {
            str(d): {str(p): c.snapshot() for p, c in sorted(ports.items())}
            for d, ports in sorted(devices.items())
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data) + "\n")
    tmp.replace(path)
