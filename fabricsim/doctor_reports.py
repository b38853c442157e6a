"""Evidence from a run's drop and queue reports for `sprayfabric doctor` (the run's
"alerts", fabricsim.alerts; on a live fabric the collector's `IntCollector.alerts()`).

- A switch that reports drops for a forwarding reason (`ROUTE_BLACKHOLE`: a route whose
  action is drop; `NO_ROUTE`) is a blackhole suspect in its own right: the data plane says
  which switch dropped and toward where. `blackhole_suspects` raises one per such switch.
- Queue reports on a port say its egress queue stood above the reporting threshold. They
  never make a suspect alone (a healthy incast fills a queue too); `hot_by_reports` tells
  whether one port stands out against the whole fabric's ports, which ranks a link
  suspect of the probes' votes first among the links.
- `report_text` names the reports behind any suspect for its evidence (`reports_behind`:
  which rows those are, for the HTML page).

The reports are rate-limited in the data plane (one per reason, or per port, every gap):
their counts are lower bounds, at most the run's length over the gap.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

__all__ = ["blackhole_suspects", "hot_by_reports", "report_text", "reports_behind", "slash24"]

BLACKHOLE_REASONS = ("ROUTE_BLACKHOLE", "NO_ROUTE")  # a switch's tables send it nowhere
MIN_DROP_REPORTS = 2  # fewer drop reports at a switch are noise
HOT_SHARE = 0.25  # a port reported in this share of the run's report gaps ...
HOT_RATIO = 3.0  # ... and this many times as often as any port off its link: it stands out


def _rows(run: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    alerts = run.get("alerts") or {}
    return [r for r in alerts.get("reports", []) if r["type"] == kind]


def blackhole_suspects(
    run: dict[str, Any], net_of_ip: Callable[[str], str]
) -> list[dict[str, Any]]:
    """Switches reporting drops for a forwarding reason, most reports first; the prefix
    is the one most of the dropped packets were headed to (`net_of_ip`)."""
    by_switch: dict[str, list[dict[str, Any]]] = {}
    for r in _rows(run, "drop"):
        if r["reason"] in BLACKHOLE_REASONS:
            by_switch.setdefault(r["switch"], []).append(r)
    total = sum(r["count"] for rows in by_switch.values() for r in rows)
    out = []
    for sw, rows in by_switch.items():
        n = sum(r["count"] for r in rows)
        if n < MIN_DROP_REPORTS:
            continue
        nets: dict[str, int] = {}
        for r in rows:
            for ip in r["dsts"]:
                nets[net_of_ip(ip)] = nets.get(net_of_ip(ip), 0) + 1
        prefix = max(sorted(nets), key=lambda k: nets[k]) if nets else "?"
        lost = _lost_toward(run, prefix, net_of_ip)
        out.append(
            {
                "kind": "switch",
                "where": sw,
                "cause": "blackhole",
                "prefix": prefix,
                "confidence": round(n / total, 3),
                "drop_reports": n,
                "evidence": f"{_drop_phrase(rows)} toward {prefix}; {lost} probes toward "
                f"{prefix} lost",
            }
        )
    out.sort(key=lambda s: (-s["drop_reports"], s["where"]))
    return out


def hot_by_reports(run: dict[str, Any], a: str, b: str) -> bool:
    """Did the egress of `a` toward `b` report a queue in HOT_SHARE of the run's report
    gaps, HOT_RATIO times as often as the busiest port not on the link a-b?"""
    alerts = run.get("alerts") or {}
    rows = _rows(run, "queue")
    mine = sum(r["count"] for r in rows if r["switch"] == a and r["peer"] == b)
    others = [r["count"] for r in rows if {r["switch"], r["peer"]} != {a, b}]
    # a simulated run's length; a live probe's alerts say how long the probe ran
    span_us = float(alerts.get("span_us") or run.get("sim_time_us") or 0)
    gaps = span_us / alerts["queue_gap_us"] if alerts.get("queue_gap_us") else 0
    return bool(gaps) and mine >= HOT_SHARE * gaps and mine >= HOT_RATIO * max(others, default=0)


def reports_behind(
    run: dict[str, Any], s: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The drop and the queue report rows at suspect `s`'s place: at either end of a link,
    at a switch (a blackhole: its drops only), at the switch port toward a host."""
    drops, queues = _rows(run, "drop"), _rows(run, "queue")
    if s["kind"] == "link":
        a, b = s["link"]
        d = [r for r in drops if {r["switch"], r["peer"]} == {a, b}]
        q = [r for r in queues if {r["switch"], r["peer"]} == {a, b}]
    elif s["kind"] == "switch":
        d = [r for r in drops if r["switch"] == s["where"]]
        # a blackhole's evidence is its drops; a skew's, the queues of the member it favours
        q = [] if s["cause"] == "blackhole" else [r for r in queues if r["switch"] == s["where"]]
    else:
        d = [r for r in drops if r["peer"] == s["where"]]
        q = [r for r in queues if r["peer"] == s["where"]]
    return d, q


def report_text(run: dict[str, Any], s: dict[str, Any]) -> str:
    """The reports behind suspect `s` ("" when the run has none): `reports_behind`'s rows
    as a phrase for its evidence."""
    if not run.get("alerts"):
        return ""
    d, q = reports_behind(run, s)
    parts = []
    if d:
        parts.append(_drop_phrase(d))
    if q:
        parts.append(_queue_phrase(q))
    if not parts:
        return "; no drop or queue reports there"
    return "; " + ", ".join(parts) + " (rate-limited: at least that many)"


def _drop_phrase(rows: list[dict[str, Any]]) -> str:
    n = sum(r["count"] for r in rows)
    reasons = sorted({r["reason"] for r in rows})
    at = sorted({r["switch"] for r in rows})
    came = sorted({str(r["peer"]) for r in rows})
    return (
        f"{n} drop report{'s' if n != 1 else ''}, reason {'/'.join(reasons)}, "
        f"at {', '.join(at)} (in from {', '.join(came)})"
    )


def _queue_phrase(rows: list[dict[str, Any]]) -> str:
    parts = []
    for r in sorted(rows, key=lambda r: (-r["count"], r["switch"], r["port"])):
        parts.append(
            f"{r['count']} queue report{'s' if r['count'] != 1 else ''} at {r['switch']} port "
            f"{r['port']} toward {r['peer']} (up to {r['max_occupancy']} packets)"
        )
    return ", ".join(parts)


def _lost_toward(run: dict[str, Any], prefix: str, net_of_ip: Callable[[str], str]) -> int:
    ips = run.get("host_ips", {})
    return sum(
        a["sent"] - a["received"]
        for a in run.get("probes", [])
        if a["dst"] in ips and net_of_ip(ips[a["dst"]]) == prefix
    )


def slash24(ip: str) -> str:
    """The /24 an address is in (the doctor's default prefix of a host)."""
    return str(ipaddress.ip_network(f"{ip}/24", strict=False))
