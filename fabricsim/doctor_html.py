"""`sprayfabric doctor --html FILE`: the diagnosis as one self-contained HTML page.

Four parts, no script, no external file (styles inline):

- the fabric as inline SVG: hosts at the bottom, each switch one row above the nearest
  host's distance (leaves, then aggregation or spine, then core), each link a line
  coloured by its suspicion: the confidence of the suspects naming it (or an end of it),
  grey when none does; suspect switches and hosts ringed in red;
- the probe matrix: one cell per (source, destination) host, shaded by the share of its
  probes that were bad (lost, or slow in the doctor's sense);
- the suspects table, as `sprayfabric doctor` prints it (each suspect's evidence, with
  the reports it cites);
- the reports table, when the run has drop and queue reports (its "alerts": `sim run
  --reports`, or a live fabric's probe): one row per switch, port and reason, with the
  suspects whose place it is (doctor_reports.reports_behind), those rows shaded.

Input is the run's JSON (with `topology`, as probe runs carry it) and its diagnosis.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from html import escape
from typing import Any

from .doctor_reports import reports_behind

__all__ = ["render_html", "link_suspicion"]

ROW_PX = 110
COL_PX = 60
MARGIN = 30


def _natural(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _layers(topo: dict[str, Any]) -> dict[str, int]:
    """Node -> row: 0 for hosts, then hops from the nearest host."""
    adj: dict[str, set[str]] = defaultdict(set)
    for a, b in topo["links"]:
        adj[a].add(b)
        adj[b].add(a)
    row = {h: 0 for h in topo["hosts"]}
    todo = deque(row)
    while todo:
        x = todo.popleft()
        for y in adj[x]:
            if y not in row:
                row[y] = row[x] + 1
                todo.append(y)
    for s in topo.get("switches", ()):
        row.setdefault(s, 1)
    return row


def link_suspicion(diagnosis: dict[str, Any]) -> dict[frozenset[str], float]:
    """Undirected link -> the highest confidence of a link suspect naming it."""
    out: dict[frozenset[str], float] = {}
    for s in diagnosis.get("suspects", []):
        if s["kind"] == "link":
            key = frozenset(s["link"])
            out[key] = max(out.get(key, 0.0), float(s["confidence"]))
    return out


def _red(x: float) -> str:
    """0 -> light grey, 1 -> red."""
    x = max(0.0, min(1.0, x))
    r = int(200 + 55 * x)
    g = b = int(200 * (1 - x))
    return f"#{r:02x}{g:02x}{b:02x}"


def _heat(x: float) -> str:
    """0 -> white, 1 -> dark red (the matrix cells)."""
    x = max(0.0, min(1.0, x))
    return f"#{255:02x}{int(255 * (1 - x)):02x}{int(255 * (1 - x)):02x}"


def _svg(run: dict[str, Any], diagnosis: dict[str, Any]) -> str:
    topo = run["topology"]
    row = _layers(topo)
    top = max(row.values(), default=0)
    by_row: dict[int, list[str]] = defaultdict(list)
    for n in sorted(row, key=_natural):
        by_row[row[n]].append(n)
    width = 2 * MARGIN + COL_PX * max((len(v) for v in by_row.values()), default=1)
    height = 2 * MARGIN + ROW_PX * top + 20
    pos: dict[str, tuple[float, float]] = {}
    for r, names in by_row.items():
        step = (width - 2 * MARGIN) / len(names)
        for i, n in enumerate(names):
            pos[n] = (MARGIN + step * (i + 0.5), MARGIN + ROW_PX * (top - r))
    sus = link_suspicion(diagnosis)
    nodes = {s["where"]: float(s["confidence"]) for s in diagnosis.get("suspects", [])}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="fabric" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
    ]
    for a, b in topo["links"]:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        c = sus.get(frozenset((a, b)), 0.0)
        w = 1.5 + 4 * c
        parts.append(
            f'<line class="link" data-a="{escape(a)}" data-b="{escape(b)}" '
            f'data-suspicion="{c:.3f}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
            f'y2="{y2:.1f}" stroke="{_red(c)}" stroke-width="{w:.1f}">'
            f"<title>{escape(a)} - {escape(b)}: suspicion {c:.2f}</title></line>"
        )
    hosts = set(topo["hosts"])
    for n, (x, y) in pos.items():
        conf = nodes.get(n)
        suspect = conf is not None
        ring = f' stroke="{_red(1.0)}" stroke-width="3"' if suspect else ' stroke="#555"'
        radius = 7 if n in hosts else 12
        kind = "host" if n in hosts else "switch"
        label = f"{n}: suspect, confidence {conf:.2f}" if conf is not None else n
        parts.append(
            f'<g class="node {kind}" data-name="{escape(n)}" data-suspect="{int(suspect)}"><circle cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{radius}" fill="#fff"{ring}><title>{escape(label)}</title></circle>'
            f'<text x="{x:.1f}" y="{y + radius + 11:.1f}" font-size="9" '
            f'text-anchor="middle">{escape(n)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _matrix(run: dict[str, Any]) -> str:
    """Source x destination: bad probes (lost, or in an aggregate the doctor judged slow)
    over probes sent, from the aggregates."""
    sent: dict[tuple[str, str], int] = defaultdict(int)
    lost: dict[tuple[str, str], int] = defaultdict(int)
    worst: dict[tuple[str, str], int] = defaultdict(int)
    best: dict[tuple[str, str], int] = {}
    for a in run.get("probes", []):
        k = (a["src"], a["dst"])
        sent[k] += a["sent"]
        lost[k] += a["sent"] - a["received"]
        if a["lat_ns"] is not None and not a["partial"]:
            p50 = a["lat_ns"]["p50"]
            worst[k] = max(worst[k], p50)
            best[k] = min(best.get(k, p50), p50)
    hosts = sorted(run["topology"]["hosts"], key=_natural)
    rows = ['<table id="matrix"><tr><th>src \\ dst</th>']
    rows += [f"<th>{escape(h)}</th>" for h in hosts]
    rows.append("</tr>")
    for s in hosts:
        rows.append(f"<tr><th>{escape(s)}</th>")
        for d in hosts:
            k = (s, d)
            if not sent.get(k):
                rows.append('<td class="none"></td>')
                continue
            share = lost[k] / sent[k]
            # latency: the pair's worst path's median over its best path's, dark at 2x
            b = best.get(k, 0)
            slow = min(1.0, worst[k] / b - 1) if b else 0.0
            x = max(share, slow)
            rows.append(
                f'<td data-src="{escape(s)}" data-dst="{escape(d)}" data-bad="{x:.3f}" '
                f'style="background:{_heat(x)}" title="{escape(s)} -> {escape(d)}: '
                f'{lost[k]} of {sent[k]} lost, worst path p50 {worst[k]} ns">'
                f"{share:.0%}</td>"
            )
        rows.append("</tr>")
    rows.append("</table>")
    return "".join(rows)


def _suspects(diagnosis: dict[str, Any]) -> str:
    rows = [
        '<table id="suspects"><tr><th>#</th><th>kind</th><th>where</th><th>cause</th>'
        "<th>confidence</th><th>evidence</th></tr>"
    ]
    for i, s in enumerate(diagnosis.get("suspects", []), 1):
        rows.append(
            f"<tr><td>{i}</td><td>{escape(s['kind'])}</td><td>{escape(s['where'])}</td>"
            f"<td>{escape(s['cause'])}</td><td>{s['confidence']:.2f}</td>"
            f"<td>{escape(s['evidence'])}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _reports(run: dict[str, Any], diagnosis: dict[str, Any]) -> str:
    """The drop and queue report rows, each with the suspects (their rank) it backs."""
    alerts = run.get("alerts")
    if alerts is None:
        return (
            '<p id="no-reports">The run has no drop or queue reports (fabricsim: '
            "<code>sim run --reports</code>; a live fabric's probe carries them).</p>"
        )
    backs: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(diagnosis.get("suspects", []), 1):
        d, q = reports_behind(run, s)
        for r in d + q:
            backs[id(r)].append(i)
    rows = [
        '<table id="reports"><tr><th>type</th><th>switch</th><th>port</th><th>peer</th>'
        "<th>reason</th><th>count</th><th>first ms</th><th>last ms</th><th>detail</th>"
        "<th>suspects</th></tr>"
    ]
    for r in alerts.get("reports", []):
        if r["type"] == "drop":
            detail = "toward " + ", ".join(r["dsts"]) if r["dsts"] else ""
        else:
            detail = f"up to {r['max_occupancy']} packets, {r['max_latency_ns']} ns"
        ranks = backs.get(id(r), [])
        shade = ' class="backs"' if ranks else ""
        rows.append(
            f'<tr{shade} data-type="{escape(r["type"])}" data-switch="{escape(r["switch"])}" '
            f'data-reason="{escape(r.get("reason", ""))}" data-suspects="'
            f'{" ".join(map(str, ranks))}"><td>{escape(r["type"])}</td>'
            f"<td>{escape(r['switch'])}</td><td>{r['port']}</td>"
            f"<td>{escape(str(r['peer']))}</td><td>{escape(r.get('reason', ''))}</td>"
            f"<td>{r['count']}</td><td>{r['first_ns'] / 1e6:.3f}</td>"
            f"<td>{r['last_ns'] / 1e6:.3f}</td><td>{escape(detail)}</td>"
            f"<td>{', '.join(f'#{i}' for i in ranks)}</td></tr>"
        )
    rows.append("</table>")
    gap = alerts.get("drop_gap_us")
    note = (
        f"<p>Rate-limited in the data plane: one drop report per reason every {gap} us and "
        f"one queue report per port every {alerts.get('queue_gap_us')} us at most, so a "
        "count is a lower bound. Shaded: the rows at a suspect's place.</p>"
    )
    return note + "".join(rows)


STYLE = (
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;font-size:12px;margin:0.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 5px;text-align:center}"
    "#suspects td:last-child{text-align:left}"
    "td.none{background:#f4f4f4}"
    "#reports tr.backs td{background:#fbd5d5}"
)


def render_html(run: dict[str, Any], diagnosis: dict[str, Any]) -> str:
    """The page (see the module docstring); ValueError when the run has no topology."""
    if not run.get("topology"):
        raise ValueError("the run has no topology (simulate it with --probes)")
    # a simulated run names its topology in its config, a live probe its topology file
    where = run.get("config", {}).get("topology") or run.get("topology_file") or ""
    title = f"sprayfabric doctor: {where}"
    head = (
        f"{diagnosis['probes_sent']} probes: {diagnosis['probes_lost']} lost, "
        f"{diagnosis['probes_slow']} slow. Verdict: {diagnosis['verdict']}"
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>"
        f'<h1>{escape(title)}</h1><p id="verdict">{escape(head)}</p>'
        "<h2>Fabric</h2><p>Links coloured by suspicion (grey: none; red: the doctor's "
        "confidence); suspects ringed in red.</p>"
        f"{_svg(run, diagnosis)}"
        "<h2>Probes</h2><p>Share of probes lost per source and destination; the shade "
        "also counts latency (a pair's slowest path's median latency over its fastest's; dark at twice).</p>"
        f"{_matrix(run)}"
        f"<h2>Suspects</h2>{_suspects(diagnosis)}"
        f"<h2>Reports</h2>{_reports(run, diagnosis)}"
        "</body></html>\n"
    )
