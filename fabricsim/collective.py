"""The record a collective run leaves for `sprayfabric job-report`: its flows with their
steps and times, and what INT said about each flow's packets, hop by hop.

A flow's step is its depth in the workload's dependency graph (`Flow.after`): a flow
that waits for nothing is step 0, one that waits for step-k flows is step k+1. A ring
all-reduce has 2(n-1) steps; an all-to-all one.

INT: for a collective every host is on fabric.p4's INT watchlist (`policy_for` in
`run.py`), so every data packet carries INT-MD metadata from its first switch to its
last, whose report reaches the collector port. Reports are matched to flows by their
inner (source address, destination address, UDP source port), which is unique per flow
(a flow's entropy port); acknowledgements, which travel the other way, match nothing
and are counted apart. Per flow and hop (switch, egress port) the record keeps the
packets seen and percentiles of the queue occupancy (packets) and hop latency (ns) as
the switch stamped them. Nothing here reads simulator internals beyond the flows'
start and end times: the INT part is what a collector would compute from the reports.
"""

from __future__ import annotations

import struct
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from .metrics import percentile
from .workloads import Flow

__all__ = ["COLLECTIVES", "buffer_bytes", "flow_steps", "hop_stats", "int_mtu", "job_record"]

# workloads that are one collective operation (steps of flows between the job's hosts)
COLLECTIVES = ("ring_allreduce", "allreduce", "all_to_all", "alltoall")
INT_HOPS = 8  # IntPolicy's default hop budget
_SPORT_AT = 14 + 20  # a data frame's UDP source port: after Ethernet and IPv4


def buffer_bytes(workload: str, hosts: int, chunk: int) -> int:
    """The workload size (`SimConfig.flow_bytes`) that gives each flow of a collective
    `chunk` bytes: the ring splits the buffer in n chunks, all-to-all in n-1."""
    if workload not in COLLECTIVES:
        raise ValueError(f"workload {workload!r} is not a collective ({', '.join(COLLECTIVES)})")
    if hosts < 2:
        raise ValueError(f"a collective needs at least 2 hosts, the topology has {hosts}")
    parts = hosts if workload in ("ring_allreduce", "allreduce") else hosts - 1
    return chunk * parts


def int_mtu(pmtu: int, hops: int = INT_HOPS) -> int:
    """The IP MTU that lets a data packet of `pmtu` payload bytes carry INT-MD metadata
    for `hops` hops (fabric.p4 adds INT only while the packet stays within the MTU): the
    packet's IP length, the 16-byte shim and INT-MD header, and 16 bytes per hop (switch
    id, ports, hop latency, queue). A fabric running collectives has jumbo frames."""
    ip_len = 20 + 8 + 12 + pmtu + 4  # IPv4, UDP, BTH, payload, ICRC
    return ip_len + 16 + 16 * hops


def flow_steps(flows: Sequence[Flow]) -> dict[int, int]:
    """fid -> step: 0 without dependencies, else one more than its latest dependency."""
    by_fid = {f.fid: f for f in flows}
    step: dict[int, int] = {}

    def depth(fid: int) -> int:
        # iterative: a long ring's chain would be deep for recursion
        stack = [fid]
        while stack:
            cur = stack[-1]
            deps = [d for d in by_fid[cur].after if d not in step]
            if deps:
                stack.extend(deps)
                continue
            step[cur] = 1 + max((step[d] for d in by_fid[cur].after), default=-1)
            stack.pop()
        return step[fid]

    for f in flows:
        depth(f.fid)
    return step


def hop_stats(queues: Sequence[int], latencies: Sequence[int]) -> dict[str, Any]:
    """Percentiles of one hop's INT samples (occupancy in packets, latency in ns)."""
    return {
        "packets": len(latencies),
        "queue_pkts": {
            "p50": percentile(queues, 50),
            "p99": percentile(queues, 99),
            "max": max(queues, default=0),
        },
        "hop_latency_ns": {
            "p50": percentile(latencies, 50),
            "p99": percentile(latencies, 99),
            "max": max(latencies, default=0),
            "sum": sum(latencies),
        },
    }


def _int_by_flow(
    frames: Iterable[bytes], flow_of: dict[tuple[str, str, int], int], topo: Any
) -> tuple[dict[int, list[dict[str, Any]]], int, int]:
    """Per flow, its hops in path order with their INT statistics; reports that are no
    flow's data (acknowledgements) and undecodable ones are counted."""
    from controller.telemetry.int_report import ReportError, decode_report_frame

    name_of = {s.device_id: s.name for s in topo.switches}
    # (fid, switch, egress port) -> ([queues], [latencies]); per flow, the hops of its
    # longest report (path order), then any other hop it was seen at
    samples: dict[tuple[int, str, int], tuple[list[int], list[int]]] = {}
    order: dict[int, list[tuple[str, int]]] = defaultdict(list)
    longest: dict[int, list[tuple[str, int]]] = {}
    unmatched = bad = 0
    for frame in frames:
        try:
            rep = decode_report_frame(frame)
        except ReportError:
            bad += 1
            continue
        fid = flow_of.get((rep.flow.src, rep.flow.dst, rep.flow.sport))
        if fid is None:
            unmatched += 1
            continue
        path = []
        for hop in rep.hops:
            if hop.switch_id is None or hop.egress_port is None:
                continue
            sw = name_of.get(hop.switch_id, f"switch{hop.switch_id}")
            path.append((sw, hop.egress_port))
            key = (fid, sw, hop.egress_port)
            got = samples.get(key)
            if got is None:
                got = samples[key] = ([], [])
                order[fid].append((sw, hop.egress_port))
            if hop.queue_occupancy is not None:
                got[0].append(hop.queue_occupancy)
            if hop.hop_latency_ns is not None:
                got[1].append(hop.hop_latency_ns)
        if len(path) > len(longest.get(fid, ())):
            longest[fid] = path
    out: dict[int, list[dict[str, Any]]] = {}
    for fid, seen in order.items():
        rows = []
        main = longest.get(fid, [])
        for sw, port in main + [h for h in seen if h not in main]:
            peer = topo.neighbour_on(sw, port)
            qs, lats = samples[(fid, sw, port)]
            rows.append(
                {"switch": sw, "port": port, "to": peer[0] if peer else None} | hop_stats(qs, lats)
            )
        out[fid] = rows
    return out, unmatched, bad


def job_record(run: Any, topo: Any) -> dict[str, Any]:
    """The `job` part of a collective run's JSON (see the module docstring)."""
    from .summary import _unloaded_ns

    cfg, net = run.cfg, run.net
    line = cfg.nic.line_rate_bps
    hops = _unloaded_ns(topo)
    steps = flow_steps(run.flows)
    ip_of = {h.name: h.ip for h in topo.hosts}
    flow_of: dict[tuple[str, str, int], int] = {}
    flows = []
    for f in run.flows:
        _smac, _sgw, sip = run.host_info[f.src]
        st, fin = run.start.get(f.fid), run.finish.get(f.fid)
        flows.append(
            {
                "fid": f.fid,
                "src": f.src,
                "dst": f.dst,
                "bytes": f.size,
                "step": steps[f.fid],
                "after": list(f.after),
                "start_ns": st,
                "end_ns": fin,
                "ideal_ns": round(f.size * 8e9 / line + hops(f.src, f.dst)),
            }
        )
        sender = run.senders.get(f.fid)
        if sender is not None:  # its UDP source port, from the headers it sends
            (sport,) = struct.unpack_from("!H", sender.frames.data_full, _SPORT_AT)
            flow_of[(sip, ip_of[f.dst], sport)] = f.fid
    frames = [fr for s in net.switches.values() for fr in s.int_reports]
    by_flow, unmatched, bad = _int_by_flow(frames, flow_of, topo)
    return {
        "workload": cfg.workload,
        "hosts": sorted({f.src for f in run.flows} | {f.dst for f in run.flows}),
        "steps": 1 + max(steps.values(), default=-1),
        "flows": flows,
        "int": {str(fid): rows for fid, rows in sorted(by_flow.items())},
        "int_reports_other": unmatched,
        "int_reports_undecodable": bad,
    }
