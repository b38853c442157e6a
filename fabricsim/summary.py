"""Turn a finished run into its JSON summary (figures explained in `metrics.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from controller.lb import FabricConstants

from .metrics import jain, percentile

if TYPE_CHECKING:  # run.py imports this module when a run ends
    from controller.fabric.southbound import FabricController

    from .network import Network
    from .run import _Run

__all__ = ["steady_rx_utilisation", "summarise"]


def _r(x: float, nd: int = 2) -> float:
    return round(float(x), nd)


def summarise(run: _Run, end: int, control: FabricController) -> dict[str, Any]:
    cfg, net, topo = run.cfg, run.net, run.topo
    line = cfg.nic.line_rate_bps
    fcts, goodputs, slowdowns = [], [], []
    flows_out = []
    by_dst: dict[str, list[Any]] = {}
    hops = _unloaded_ns(topo)
    for f in run.flows:
        st, fin = run.start.get(f.fid), run.finish.get(f.fid)
        rec: dict[str, Any] = {"fid": f.fid, "src": f.src, "dst": f.dst, "bytes": f.size}
        if st is not None:
            rec["start_us"] = _r(st / 1000, 3)
        if st is not None and fin is not None:
            fct = max(1, fin - st)
            ideal = f.size * 8e9 / line + hops(f.src, f.dst)
            fcts.append(fct / 1000)
            goodputs.append(f.size * 8 / fct)
            slowdowns.append(fct / ideal)
            rec |= {"fct_us": _r(fct / 1000, 3), "goodput_gbps": _r(f.size * 8 / fct)}
            by_dst.setdefault(f.dst, []).append((st, fin, f.size, hops(f.src, f.dst)))
        flows_out.append(rec)
    # receiver-link utilisation while receiving
    utils = []
    for items in by_dst.values():
        t0 = min(i[0] for i in items)
        t1 = max(i[1] for i in items)
        utils.append(sum(i[2] for i in items) * 8e9 / max(1, t1 - t0) / line)
    steady = _steady_rx(run.net, by_dst)
    senders, receivers = run.senders.values(), run.receivers.values()
    arrivals = sum(r.arrivals for r in receivers)
    ooo = sum(r.ooo for r in receivers)
    dists = [d for r in receivers for d in r.reorder_dist]
    # switch counters, read through P4Runtime
    ecn = cnps = trims = 0
    drops: dict[str, int] = {}
    # drop reasons by fabric.p4's names (DROP_NO_ROUTE -> "no_route"), as `sprayfabric` reports them
    reasons = {n: name.lower() for name, n in FabricConstants.load().drop_reasons.items()}
    for name in net.switches:
        ecn += sum(p for p, _b in control.counter(name, "ecn_marked_counter").values())
        cnps += sum(p for p, _b in control.counter(name, "cnp_counter").values())
        trims += sum(p for p, _b in control.counter(name, "trimmed_counter").values())
        for idx, (p, _b) in control.counter(name, "drop_counter").items():
            key = reasons.get(idx, f"reason_{idx}")
            drops[key] = drops.get(key, 0) + p
    pipeline_drops = sum(drops.values())
    tm_drops = sum(s.sw.queue_drops() for s in net.switches.values())
    link_losses = sum(w.lost for w in net.wires.values())
    storm_drops = sum(s.storm_drops for s in net.switches.values())
    host_drops = sum(h.dropped for h in net.hosts.values())
    peaks = {
        f"{s.name}:{p}": peak
        for s in net.switches.values()
        for p, peak in s.sw.queue_peaks().items()
    }
    uplinks = _uplinks(run)
    echo = run.echo
    if echo is not None:  # the reports went to the senders, not kept
        hop_lat, int_reports, bad_reports = echo.hop_latency, echo.reports, echo.undecodable
    else:
        hop_lat, int_reports, bad_reports = _int_hops(net)
    done = len(run.finish)
    out: dict[str, Any] = {
        "config": {
            "workload": cfg.workload,
            "mode": cfg.mode,
            "seed": cfg.seed,
            "receiver": cfg.receiver,
            "reorder_window": cfg.reorder_window if cfg.receiver == "selective" else None,
            "transport": cfg.transport,
            "pmtu": cfg.pmtu,
            "flow_bytes": cfg.flow_bytes,
            "flows": len(run.flows),
            "pfc": cfg.net.pfc.enabled,
            "topology": getattr(topo, "name", ""),
        }
        | ({"load": cfg.load, "size_mix": cfg.size_mix} if cfg.workload == "poisson" else {}),
        "sim_time_us": _r(end / 1000, 3),
        "flows_completed": done,
        "throughput_pct_of_line_rate": _r(100 * sum(utils) / len(utils)) if utils else 0.0,
        "steady_rx_pct_of_line_rate": _r(100 * sum(steady) / len(steady)) if steady else 0.0,
        "goodput_gbps_mean": _r(sum(goodputs) / len(goodputs)) if goodputs else 0.0,
        "fct_p50_us": _r(percentile(fcts, 50)),
        "fct_p99_us": _r(percentile(fcts, 99)),
        "slowdown_p50": _r(percentile(slowdowns, 50)),
        "slowdown_p99": _r(percentile(slowdowns, 99)),
        "reordered_pct": _r(100 * ooo / arrivals if arrivals else 0.0, 3),
        "reorder_distance_p50": percentile(dists, 50),
        "reorder_distance_p99": percentile(dists, 99),
        "reorder_window_occupancy": _occupancy(receivers),
        "dropped_outside_window": sum(r.outside_window for r in receivers),
        "spurious_retransmissions": sum(r.duplicates for r in receivers),
        "nacks_received": sum(s.nacks for s in senders),
        "timeouts": sum(s.timeouts for s in senders),
        "pulls_sent": sum(h.pulls_sent for h in net.hosts.values()),
        "receiver_cnps": sum(r.cnps_sent for r in receivers),
        "ecn_marks": ecn,
        "ce_received": sum(r.ce for r in receivers),
        "cnps": cnps,
        "cnps_received": sum(s.cnps for s in senders),
        "trims": trims,
        "drops": pipeline_drops + tm_drops + link_losses + storm_drops + host_drops,
        "drops_by_cause": {
            "pipeline": drops,
            "queue_full": tm_drops,
            "link": link_losses,
            "pfc_watchdog": storm_drops,
            "host": host_drops,
        },
        "retransmissions": sum(s.retransmits for s in senders),
        "data_packets_sent": sum(s.sent + s.retransmits for s in senders),
        "max_queue_pkts": max(peaks.values(), default=0),
        "queue_pkts_p50": percentile(run.samples, 50),
        "queue_pkts_p99": percentile(run.samples, 99),
        "queue_pkts_p999": percentile(run.samples, 99.9),
        "pfc_pause_us": _r(
            (
                sum(s.pause_ns for s in net.switches.values())
                + sum(h.pause_ns for h in net.hosts.values())
            )
            / 1000
        ),
        "pfc_pause_us_by_node": {
            name: _r(ns / 1000)
            for name, ns in [
                *((s.name, s.pause_ns) for s in net.switches.values()),
                *((h.name, h.pause_ns) for h in net.hosts.values()),
            ]
            if ns
        },
        "pfc_frames": sum(s.pfc_frames for s in net.switches.values()),
        "pfc_watchdog_trips": sum(len(s.tripped) for s in net.switches.values()),
        "int_reports": int_reports,
        "int_reports_undecodable": bad_reports,
        "int_echo": echo.summary() if echo is not None else None,
        "int_hop_latency_ns_p50": percentile(hop_lat, 50),
        "int_hop_latency_ns_p99": percentile(hop_lat, 99),
        "int_hop_latency_ns_max": max(hop_lat, default=0),
        "uplink_balance": uplinks["balance"],
        "packet_hops": sum(s.pipeline_runs for s in net.switches.values()),
        "reroutes": [
            {"t_us": _r(t / 1000), "step": w, "updates": u, "link_losses": lo, "switch_drops": d}
            for t, w, u, lo, d in run.reroutes
        ],
        "switch_drops": sum(s.sw.dropped for s in net.switches.values()),
        "flows": flows_out,
        "series": {
            "queue": [[_r(t / 1000), m, s] for t, m, s in run.queue_series],
            "uplink_bins_us": cfg.net.bin_ns / 1000,
            "uplinks": uplinks["bins"],
        },
    }
    return out


def _occupancy(receivers: Any) -> dict[str, int]:
    """Packets each receiver held out of order after each arrival, over all flows:
    percentiles and the maximum (what a reorder buffer must hold)."""
    hist: dict[int, int] = {}
    for r in receivers:
        for held, n in r.occupancy.items():
            hist[held] = hist.get(held, 0) + n
    total = sum(hist.values())
    out = {"p50": 0, "p99": 0, "p999": 0, "max": max(hist, default=0)}
    if not total:
        return out
    marks = {"p50": 0.5, "p99": 0.99, "p999": 0.999}
    seen = 0
    for held in sorted(hist):
        seen += hist[held]
        for key, q in list(marks.items()):
            if seen >= q * total:
                out[key] = held
                del marks[key]
    return out


def _int_hops(net: Network) -> tuple[list[int], int, int]:
    """Per-hop latencies (ns, as fabric.p4 stamps them) from every INT report collected."""
    from controller.telemetry.int_report import ReportError, decode_report_frame

    lat: list[int] = []
    n = bad = 0
    for s in net.switches.values():
        for frame in s.int_reports:
            n += 1
            try:
                rep = decode_report_frame(frame)
            except ReportError:
                bad += 1
                continue
            lat.extend(h.hop_latency_ns for h in rep.hops if h.hop_latency_ns is not None)
    return lat, n, bad


def steady_rx_utilisation(
    net: Any, receivers: Sequence[str], t0_ns: int, t1_ns: int, min_span_bins: int = 0
) -> list[float]:
    """Per receiving host: bytes its switch put on the host's link during [t0, t1) (whole
    bins of the wires' time bins), as a share of the link's capacity in that time; none
    for a host whose [t0, t1) is shorter than `min_span_bins` bins."""
    out = []
    for host in receivers:
        wire = next(w for (a, b), w in net.wires.items() if b == host)
        if t1_ns - t0_ns < min_span_bins * wire.bin_ns:
            continue
        b0 = -(-t0_ns // wire.bin_ns)
        b1 = t1_ns // wire.bin_ns
        if b1 <= b0:
            continue
        sent = sum(wire.bins.get(b, 0) for b in range(b0, b1))
        cap = (b1 - b0) * wire.bin_ns * wire.rate_bps / 8e9
        out.append(sent / cap)
    return out


def _steady_rx(net: Network, by_dst: dict[str, list[Any]]) -> list[float]:
    """Per receiving host (`by_dst`: its flows' start, end, bytes, one-way delay): its
    link's utilisation (bytes on the wire, headers included) from one round trip after
    its first flow's first packet can arrive (that flow's start plus three of its one-way
    delays) to its last flow's end; hosts whose window is under two time bins skipped."""
    utils = []
    for dst, items in by_dst.items():
        first = min(items)
        t0 = first[0] + int(3 * first[3])
        t1 = max(i[1] for i in items)
        utils.extend(steady_rx_utilisation(net, [dst], t0, t1, min_span_bins=2))
    return utils


def _unloaded_ns(topo: Any) -> Any:
    """Propagation plus per-hop serialisation of one MTU packet on the shortest path."""
    import networkx as nx

    g = nx.Graph()
    for link in topo.links:
        g.add_edge(link.a, link.b, d=link.delay_ns + 120)
    for h in topo.hosts:
        g.add_edge(h.name, h.switch, d=h.delay_ns + 120)
    dist = dict(nx.all_pairs_dijkstra_path_length(g, weight="d"))

    def f(a: str, b: str) -> float:
        return float(dist[a][b])

    return f


def _uplinks(run: _Run) -> dict[str, Any]:
    """Bytes on each leaf->upper-switch wire: balance per leaf, and time bins for plots."""
    topo, net = run.topo, run.net
    leaves = {h.switch for h in topo.hosts}
    per_leaf: dict[str, list[int]] = {}
    bins: dict[str, list[int]] = {}
    last_bin = max((max(w.bins, default=0) for w in net.wires.values()), default=0)
    for (a, b), w in sorted(net.wires.items()):
        if a in leaves and b in net.switches and b not in leaves:
            per_leaf.setdefault(a, []).append(w.bytes_sent)
            bins[f"{a}->{b}"] = [w.bins.get(i, 0) for i in range(last_bin + 1)]
    ratios = [max(v) / (sum(v) / len(v)) for v in per_leaf.values() if sum(v)]
    jains = [jain(v) for v in per_leaf.values() if sum(v)]
    return {
        "balance": {
            "max_over_mean": _r(max(ratios), 3) if ratios else 1.0,
            "jain_mean": _r(sum(jains) / len(jains), 4) if jains else 1.0,
            "bytes": {k: v for k, v in per_leaf.items()},
        },
        "bins": bins,
    }
