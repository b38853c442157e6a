"""Evidence from a run's port counters for `sprayfabric doctor` (fabricsim.port_stats):
pause time (a PFC storm), carrier transitions (a flapping link), egress queue depth (a hot
port). Each function returns suspects in the doctor's form (kind, where, cause,
confidence, evidence); none reads the injected faults.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import median
from typing import Any

__all__ = ["flap_suspects", "hot_queue", "storm_suspects"]

STORM_SHARE = 0.5  # a port paused this share of the run: a storm, not PFC doing its work
HOT_QUEUE = 1.0  # packets: a port's mean egress queue at least this ...
HOT_RATIO = 5.0  # ... and this many times the fabric's busiest other port


def storm_suspects(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Ports paused by their peer for most of the run. The source of a storm is the peer
    that pauses while it is not itself paused: a host, or a switch none of whose own
    ports is paused (pauses it sends then come from its own stuck queues)."""
    ports = run.get("ports") or []
    # the run's length: simulated, or a live probe run's window (controller.fabric.live_ports)
    span = float(run.get("sim_time_us") or run.get("span_us") or 0)
    if not span:
        return []
    hosts = set((run.get("topology") or {}).get("hosts", {}))
    paused = [p for p in ports if p["paused_us"] >= STORM_SHARE * span]
    stuck = {p["switch"] for p in paused}
    out = []
    for p in sorted(paused, key=lambda p: -p["paused_us"]):
        src = p["peer"]
        if src in stuck:
            continue  # a victim passing the pauses on, not their source
        lost = sum(a["sent"] - a["received"] for a in run.get("probes", []) if a["dst"] == src)
        out.append(
            {
                "kind": "host" if src in hosts else "switch",
                "where": src,
                "cause": "pfc-storm",
                "confidence": round(min(1.0, p["paused_us"] / span), 3),
                "evidence": f"{p['switch']} port {p['port']} paused by {src} for "
                f"{p['paused_us']:.0f} of {span:.0f} us ({len(paused)} ports paused over "
                f"half the run); {lost} probes toward {src} lost",
            }
        )
    return out


def flap_suspects(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Links whose ports counted carrier transitions (down and up), most first; the
    probes lost on paths through them are the corroboration."""
    trans: dict[frozenset[str], int] = defaultdict(int)
    ends: dict[frozenset[str], tuple[str, str]] = {}
    for p in run.get("ports") or []:
        if p["carrier_transitions"]:
            key = frozenset((p["switch"], p["peer"]))
            trans[key] += p["carrier_transitions"]
            ends.setdefault(key, (p["switch"], p["peer"]))
    probes = run.get("probes", [])
    lost_all = sum(a["sent"] - a["received"] for a in probes)
    out = []
    for key in sorted(trans, key=lambda k: (-trans[k], sorted(k))):
        a, b = ends[key]
        lost = 0
        for agg in probes:
            path = agg["path"]
            if any({x, y} == key for x, y in zip(path, path[1:], strict=False)):
                lost += agg["sent"] - agg["received"]
        share = lost / lost_all if lost_all else 0.0
        out.append(
            {
                "kind": "link",
                "where": f"{a}-{b}",
                "link": [a, b],
                "cause": "flap",
                "confidence": round(0.5 + 0.5 * share, 3),
                "evidence": f"{trans[key]} carrier transitions at its ends; {lost} of "
                f"{lost_all} lost probes crossed it",
            }
        )
    return out


def hot_queue(run: dict[str, Any], a: str, b: str) -> tuple[bool, str]:
    """Is the egress of `a` toward `b` a standing queue, well above every other port's?"""
    ports = run.get("ports") or []
    mine = [p for p in ports if p["switch"] == a and p["peer"] == b]
    if not mine:
        return False, ""
    q = mine[0]["queue_mean"]
    others = [p["queue_mean"] for p in ports if p is not mine[0]]
    top_other = max(others, default=0.0)
    med = median(others) if others else 0.0
    hot = q >= HOT_QUEUE and q >= HOT_RATIO * top_other
    return hot, (
        f"; {a} port {mine[0]['port']} queue mean {q:.1f} packets (busiest other port "
        f"{top_other:.2f}, median {med:.2f}), peak {mine[0]['queue_peak']}"
    )
