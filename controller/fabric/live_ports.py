"""A live fabric's port counters over a probe run, in the layout of a fabricsim run's
`ports` (fabricsim.port_stats), so the doctor reads both the same way.

Each softswitch process of a `sprayfabric fabric up` run writes its UDP ports' counters to
`port-stats/PROCESS.json` (softswitch.port_counters: cumulative drops, pause time, carrier
transitions, queue frame-seconds and peak). The prober reads them before and after its
rounds (`snapshot`), and `port_rows` turns the two into one row per switch port facing
another node: what changed in between, the mean queue over the window, and the peak
queue since the port's impairment last changed (a process does not reset it for a reader).
A switch restarted in between starts from zero; its differences are then taken from zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["Snapshot", "port_peers", "port_rows", "snapshot", "window_us"]

# process file -> (its "at", device id -> port -> counters)
Snapshot = dict[str, tuple[float, dict[int, dict[int, dict[str, Any]]]]]


def snapshot(directory: Path) -> Snapshot:
    """Every process's counters file in `directory` (missing or half-written ones left out)."""
    out: Snapshot = {}
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text())
            devices = {
                int(d): {int(p): c for p, c in ports.items()}
                for d, ports in data["devices"].items()
            }
            out[path.name] = (float(data["at"]), devices)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return out


def window_us(before: Snapshot, after: Snapshot) -> float:
    """The counters' window: the longest time between a process's two snapshots."""
    spans = [at - before[n][0] for n, (at, _) in after.items() if n in before]
    return round(max(spans, default=0.0) * 1e6, 1)


def _delta(after: dict[str, Any], before: dict[str, Any] | None, key: str) -> float:
    now = float(after.get(key, 0))
    was = float(before.get(key, 0)) if before else 0.0
    return now - was if now >= was else now  # counters went back: the process restarted


def port_rows(
    topo: Any, devices: dict[int, str], before: Snapshot, after: Snapshot
) -> list[dict[str, Any]]:
    """One row per switch port facing another node (fabricsim.port_stats' keys that a
    live fabric can fill): `lost`, `paused_us`, `carrier_transitions`, `queue_mean` and
    `queue_peak`; ports no process reported count zero. `devices`: device id -> switch."""
    seen: dict[tuple[str, int], dict[str, Any]] = {}
    for name, (at, devs) in after.items():
        was_at, was = before.get(name, (at, {}))
        span = at - was_at
        for dev, ports in devs.items():
            sw = devices.get(dev)
            if sw is None:
                continue
            for port, c in ports.items():
                b = was.get(dev, {}).get(port)
                area = _delta(c, b, "queue_area")
                seen[(sw, port)] = {
                    "lost": int(_delta(c, b, "dropped")),
                    "paused_us": round(_delta(c, b, "paused_s") * 1e6, 3),
                    "carrier_transitions": int(_delta(c, b, "carrier_transitions")),
                    "queue_mean": round(area / span, 3) if span > 0 else 0.0,
                    "queue_peak": int(c.get("queue_peak", 0)),
                }
    zero = {
        "lost": 0,
        "paused_us": 0.0,
        "carrier_transitions": 0,
        "queue_mean": 0.0,
        "queue_peak": 0,
    }
    return [
        {"switch": sw, "port": port, "peer": peer, **seen.get((sw, port), zero)}
        for (sw, port), peer in port_peers(topo).items()
    ]


def port_peers(topo: Any) -> dict[tuple[str, int], str]:
    """(switch, port) -> the node at the other end, for every switch port facing another
    node (switches and hosts), in topology order."""
    return {(sw, topo.port_to(sw, n)): n for sw in topo.switch_names() for n in topo.neighbours(sw)}
