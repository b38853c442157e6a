"""`sprayfabric doctor`: find the link or switch behind lost or slow probes of a run.

Input is a run's JSON (`sprayfabric sim --probes --json`): its probe aggregates, one per
(src, dst, path), with probes sent and received and latency figures. Nothing here needs
the simulator; the same method applies to probe results from a live fabric.

Method (after 007, Arzani et al., NSDI 2018, with Pingmesh-style probes):

1. A probe aggregate is *bad* when it lost probes, or when its minimum latency (the
   queue-free figure) stands above the baseline of the pair's paths of the same length
   (the fastest of them) by more than SLOW_NS: equal-cost paths of one pair differ only
   by their links. Minimum latency, not median, so that
   passing congestion is not read as a slow link.
   When at least MIN_BAD probes were lost, only lost probes count (loss is the stronger
   evidence, and a link that drops also delays nothing measurably).
2. Each bad probe gives 1/len(path) votes to each directed link of its path (lost probes
   whose tuple never got through vote along the hops they made).
3. A link's score is its votes over the probes that crossed it; links are ranked by score.
   Its bad rate is the share of probes crossing it that were bad.
4. A switch is the suspect instead when every failing path crosses it, the failing
   destinations share one prefix, and the top link is not a bad link: it delivers all
   of its probes toward other prefixes, or it carries fewer than LINK_SHARE of the bad
   probes (a blackhole drops toward one prefix whatever link the packet came in on).
5. No fault is found when fewer than MIN_BAD probes were bad, or when the top link's bad
   rate is below MIN_RATE and below RATIO times the median bad rate of the links: the
   healthy baseline.

An aggregate whose median latency stands QUEUED_NS above its pair's best path's median is
bad too (a standing queue). When the run carries port counters and its topology (probe
runs of the simulator do), suspects from them come first: a port paused for most of the
run (a PFC storm, traced to the peer that is not paused itself), carrier transitions (a
flapping link), a group whose probe 5-tuples favour one member (a WCMP skew); each link
suspect of the votes gets a cause (loss, slow, or hot-port when the egress toward it
holds a standing queue). When the run has the fabric's drop and queue reports (its
"alerts", `sim run --reports`), a switch reporting drops by its tables toward a prefix is
a blackhole suspect before the votes' links, a link whose egress queue reports stand out
against the fabric's goes first among the links, and every suspect's evidence names the
reports at its place. A run with a probe `timeline` and no port counters (a live
fabric: no carrier on its cables) has each lossy link's loss timing checked: losses in
periodic windows make its cause `flap`. See doctor_counters.py, doctor_groups.py,
doctor_reports.py, doctor_bursts.py and docs/doctor.md.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Callable
from statistics import median
from typing import Any

from .doctor_bursts import label_flaps
from .doctor_counters import flap_suspects, hot_queue, storm_suspects
from .doctor_groups import skew_suspects
from .doctor_reports import blackhole_suspects, hot_by_reports, report_text, slash24

__all__ = ["LINK_SHARE", "MIN_BAD", "diagnose", "format_report"]

SLOW_NS = 20  # ns above the baseline minimum: two 128-byte probe serialisations at 100G
QUEUED_NS = 500  # ns of median latency above the pair's best path's median: a standing queue
MIN_BAD = 3  # bad probes below this are noise
MIN_RATE = 0.01  # a link's bad rate that is a fault whatever the baseline
RATIO = 3.0  # or this many times the median link's bad rate
LINK_SHARE = 0.6  # a link carrying this share of the bad probes is the fault, not a switch


def _links(path: list[str]) -> list[tuple[str, str]]:
    return list(zip(path, path[1:], strict=False))


def diagnose(run: dict[str, Any], prefixes: dict[str, str] | None = None) -> dict[str, Any]:
    """Ranked suspects with evidence, from a run's probe aggregates and (when the run
    has them) its port counters: counter evidence first (a port paused for most of the
    run, carrier transitions), then a skewed group, then the probes' votes.

    `prefixes`: host -> the prefix it is in (default: its /24), for the switch verdict."""
    out = _probe_diagnosis(run, prefixes)
    votes = out["suspects"]
    first = storm_suspects(run) + flap_suspects(run) + skew_suspects(run)
    flapped = [set(s["link"]) for s in first if s.get("cause") == "flap"]
    votes = [s for s in votes if not (s["kind"] == "link" and set(s["link"]) in flapped)]
    # a switch that reports dropping toward a prefix by its tables: before the votes' links
    voted = {s["where"]: s for s in votes if s["kind"] == "switch"}
    reported = []
    for s in blackhole_suspects(run, _net_of_ip(run, prefixes)):
        if s["where"] in voted:
            v = voted[s["where"]]
            v["confidence"] = max(v["confidence"], s["confidence"])
            v["drop_reports"] = s["drop_reports"]
        else:
            reported.append(s)
    out["suspects"] = first + reported + votes
    if run.get("timeline") and not run.get("ports"):
        # no carrier counters (a live fabric): loss timing tells a flap (doctor_bursts.py)
        label_flaps(run, votes)
    cited = {id(s) for s in reported}  # their evidence is the reports already
    for s in out["suspects"]:
        if id(s) not in cited:
            s["evidence"] += report_text(run, s)
    alerts = run.get("alerts")
    if alerts is not None:
        rows = alerts.get("reports", [])
        out["reports"] = {
            "drop": sum(r["count"] for r in rows if r["type"] == "drop"),
            "queue": sum(r["count"] for r in rows if r["type"] == "queue"),
            "gap_us": alerts.get("drop_gap_us"),
        }
    if out["suspects"]:
        top = out["suspects"][0]
        out["verdict"] = f"{top['kind']} {top['where']} ({top['cause']})"
    else:
        out["verdict"] = "no fault found"
    return out


def _probe_diagnosis(run: dict[str, Any], prefixes: dict[str, str] | None) -> dict[str, Any]:
    """Steps 1 to 5 of the module's method: suspects from the probes' votes."""
    probes = run.get("probes")
    if probes is None:
        raise ValueError("the run has no probes (simulate it with --probes)")
    baseline: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    base50: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for a in probes:
        if a["lat_ns"] is not None and not a["partial"]:
            baseline[(a["src"], a["dst"], len(a["path"]))].append(a["lat_ns"]["min"])
            base50[(a["src"], a["dst"], len(a["path"]))].append(a["lat_ns"]["p50"])
    base = {k: min(v) for k, v in baseline.items()}
    # a run may say how much slower is slow: a live fabric's jitter (live_probe.py)
    slow_ns = int(run.get("slow_ns", SLOW_NS))
    queued_ns = int(run.get("queued_ns", QUEUED_NS))
    mid = {k: min(v) for k, v in base50.items()}
    crossed: dict[tuple[str, str], int] = defaultdict(int)
    votes: dict[tuple[str, str], float] = defaultdict(float)
    bad_on: dict[tuple[str, str], int] = defaultdict(int)
    failing: list[tuple[dict[str, Any], int, str]] = []
    sent = lost_total = slow_total = 0
    # losses are the stronger evidence: when there are enough, latency is left out
    lost_only = sum(a["sent"] - a["received"] for a in probes) >= MIN_BAD
    for a in probes:
        links = _links(a["path"])
        sent += a["sent"]
        for link in links:
            crossed[link] += a["sent"]
        lost = a["sent"] - a["received"]
        slow = 0
        if a["lat_ns"] is not None and not a["partial"]:
            key = (a["src"], a["dst"], len(a["path"]))
            excess = a["lat_ns"]["min"] - base[key]
            # a standing queue: most probes wait, some may find it empty
            queued = a["lat_ns"]["p50"] - mid[key]
            if excess > slow_ns or queued > queued_ns:
                slow = a["received"]
        bad = lost + slow
        if lost_only:
            bad = lost
        if not bad or not links:
            continue
        lost_total += lost
        slow_total += bad - lost
        failing.append((a, bad, "loss" if lost else "latency"))
        for link in links:
            votes[link] += bad / len(links)
            bad_on[link] += bad
    bad_total = lost_total + slow_total
    rates = {link: bad_on.get(link, 0) / n for link, n in crossed.items() if n}
    med = median(rates.values()) if rates else 0.0
    ranked = sorted(votes, key=lambda k: (-votes[k] / crossed[k], k))
    out: dict[str, Any] = {
        "probes_sent": sent,
        "probes_lost": lost_total,
        "probes_slow": slow_total,
        "median_link_bad_rate": round(med, 4),
        "suspects": [],
    }
    if bad_total < MIN_BAD or not ranked:
        out["verdict"] = "no fault found"
        return out
    top = ranked[0]
    if rates[top] < MIN_RATE and rates[top] < RATIO * med:
        out["verdict"] = "no fault found"
        return out
    total_score = sum(votes[k] / crossed[k] for k in ranked[:3])
    suspects = []
    # a switch every failing path crosses, toward one prefix, with no link standing out
    loss_paths = [a for a, _, why in failing if why == "loss"]
    pfx = prefixes or {}

    def net_of(agg: dict[str, Any]) -> str:
        return pfx.get(agg["dst"]) or _slash24(agg, run)

    nets = {net_of(a) for a in loss_paths}
    if loss_paths and len(loss_paths) == len(failing) and len(nets) == 1:
        shared = set.intersection(*(set(_switches(a)) for a in loss_paths))
        (net,) = nets
        # the top link delivers everything toward other prefixes: not a bad link
        other = [a for a in probes if top in _links(a["path"]) and net_of(a) != net]
        clean_other = sum(a["sent"] for a in other) >= MIN_BAD and all(
            a["received"] == a["sent"] for a in other
        )
        if shared and (clean_other or bad_on[top] < LINK_SHARE * bad_total):
            # the switch where the failing paths stop (the last hop a traceroute reaches)
            ends = [a["path"][-1] for a in loss_paths if a["partial"]]
            sw = max(shared, key=lambda s: (ends.count(s), s))
            suspects.append(
                {
                    "kind": "switch",
                    "where": sw,
                    "cause": "blackhole",
                    "prefix": net,
                    # how consistently it drops toward the prefix
                    "confidence": round(_loss_via(probes, sw, net, net_of), 3),
                    "evidence": f"{len(loss_paths)} failing paths all cross {sw}, all toward "
                    f"{net}; the top link {top[0]}->{top[1]} delivers "
                    f"{sum(a['sent'] for a in other)} probes toward other prefixes",
                }
            )
    for link in ranked[:5]:
        score = votes[link] / crossed[link]
        if score < 0.5 * votes[top] / crossed[top]:
            break
        cause, extra = _link_cause(run, link, rates, lost_total > 0 and lost_only)
        suspects.append(
            {
                "kind": "link",
                "where": f"{link[0]}->{link[1]}",
                "cause": cause,
                "link": list(link),
                "score": round(score, 4),
                "confidence": round(score / total_score, 3) if total_score else 0.0,
                "bad_rate": round(rates[link], 4),
                "evidence": f"{bad_on[link]} of {crossed[link]} probes crossing it bad "
                f"({bad_on[link] / crossed[link]:.1%}; median link {med:.1%}){extra}",
            }
        )
    # a standing queue at a suspect link's egress explains its probes' latency: that link
    # goes first among the links (at most one port can be hot, see hot_queue); so does a
    # delayed link whose egress queue reports stand out against the fabric's
    on_links = [x for x in suspects if x["kind"] == "link"]
    on_links.sort(
        key=lambda x: (
            x["cause"] != "hot-port",
            x["cause"] == "loss" or not _reported_hot(run, x),
        )
    )
    out["suspects"] = [x for x in suspects if x["kind"] != "link"] + on_links
    out["verdict"] = f"{suspects[0]['kind']} {suspects[0]['where']}"
    return out


def _reported_hot(run: dict[str, Any], s: dict[str, Any]) -> bool:
    a, b = s["link"]
    return hot_by_reports(run, a, b)


def _link_cause(
    run: dict[str, Any], link: tuple[str, str], rates: dict[tuple[str, str], float], lossy: bool
) -> tuple[str, str]:
    """What the counters say of a suspect link: lost probes are `loss`; delayed ones are a
    hot port when the egress toward it holds a standing queue (and its other direction is
    clean), else `slow`."""
    a, b = link
    if lossy:
        return "loss", ""
    hot, text = hot_queue(run, a, b)
    if not run.get("ports"):  # no port counters (a live fabric's collector only)
        hot = hot_by_reports(run, a, b)
    back = rates.get((b, a), 0.0)
    if hot and back < 0.5 * rates.get(link, 0.0):
        return "hot-port", text
    return "slow", text


def _loss_via(probes: list[dict[str, Any]], sw: str, net: str, net_of: Any) -> float:
    """The share of probes toward `net` through `sw` that were lost."""
    via = [a for a in probes if sw in _switches(a) and net_of(a) == net]
    sent = sum(a["sent"] for a in via)
    return sum(a["sent"] - a["received"] for a in via) / sent if sent else 0.0


def _net_of_ip(run: dict[str, Any], prefixes: dict[str, str] | None) -> Callable[[str], str]:
    """Address -> its prefix: the host's in `prefixes`, else its /24."""
    by_ip = {ip: (prefixes or {}).get(h) for h, ip in run.get("host_ips", {}).items()}
    return lambda ip: by_ip.get(ip) or slash24(ip)


def _switches(agg: dict[str, Any]) -> list[str]:
    """The switches of an aggregate's path (a partial path ends at a switch)."""
    return agg["path"][1:] if agg["partial"] else agg["path"][1:-1]


def _slash24(agg: dict[str, Any], run: dict[str, Any]) -> str:
    ips = run.get("host_ips", {})
    ip = ips.get(agg["dst"])
    if ip is None:
        return agg["dst"]
    return str(ipaddress.ip_network(f"{ip}/24", strict=False))


def format_report(d: dict[str, Any]) -> str:
    lines = [
        f"{d['probes_sent']} probes: {d['probes_lost']} lost, {d['probes_slow']} slow "
        f"(median link bad rate {d['median_link_bad_rate']:.2%})",
        f"verdict: {d['verdict']}",
    ]
    if "reports" in d:
        r = d["reports"]
        lines.insert(
            1,
            f"{r['drop']} drop reports, {r['queue']} queue reports (one per reason or port "
            f"every {r['gap_us']} us at most)",
        )
    for i, s in enumerate(d["suspects"], 1):
        extra = f" prefix {s['prefix']}" if "prefix" in s else ""
        extra += f" score {s['score']}" if "score" in s else ""
        lines.append(
            f"  {i}. {s['kind']} {s['where']} [{s['cause']}]{extra} confidence "
            f"{s['confidence']:.2f}: {s['evidence']}"
        )
    return "\n".join(lines)
