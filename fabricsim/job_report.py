"""`sprayfabric job-report`: why a collective was slow, from its run's JSON.

Input is the `job` part of a collective run (`sprayfabric sim --workload
allreduce|alltoall --json RUN.json`, see `collective.py`). The report has

- per step: start, end and duration on the job's critical path, and how the duration
  compares with the median step; the slowest step. The critical path runs back from the
  flow that finished last through the flow each one waited for (its latest-finishing
  dependency) to a flow that waited for nothing: a step starts when the previous step's
  flow on that path ends and ends when its own does, so the steps tile the job's time
  and the slowest step is the one that added most to it. (A ring's hosts do not move in
  lock-step: step k+1 of one host overlaps step k of another. A step's span, from its
  first flow's start to its last flow's end, is kept beside it as `span_start_us` and
  `span_end_us`.) An all-to-all's one step is its span;
- per step, its slowest flows (by FCT): source, destination, FCT and slowdown (FCT over
  the ideal: the bytes at line rate plus the unloaded path);
- for each of those flows, every hop INT saw (switch, egress port, the neighbour behind
  it, packets, queue occupancy and hop latency percentiles as fabric.p4 stamped them),
  in path order, and the one where its packets waited longest (`waited_at`);
- a one-line verdict naming the slowest step, its slowest flow and where that flow's
  packets waited.

A hop's wait is its p99 hop latency (ties: p99 queue occupancy, then the hop's name):
the latency a flow's slow packets saw there. With one step (an all-to-all) the slowest
flow is compared with the step's median flow instead.
"""

from __future__ import annotations

from statistics import median
from typing import Any

__all__ = ["EVEN", "critical_path", "format_job_report", "job_report"]

EVEN = 1.5  # a slowest step (or flow) within this factor of the median: the job is even
TOP_FLOWS = 3  # slowest flows reported per step


def _wait_key(hop: dict[str, Any]) -> tuple[float, float, str, int]:
    return (
        -hop["hop_latency_ns"]["p99"],
        -hop["queue_pkts"]["p99"],
        hop["switch"],
        hop["port"],
    )


def _flow_row(f: dict[str, Any], hops: list[dict[str, Any]] | None) -> dict[str, Any]:
    fct = f["end_ns"] - f["start_ns"]
    ranked = sorted(hops or [], key=_wait_key)  # `hops` stays in path order
    return {
        "fid": f["fid"],
        "src": f["src"],
        "dst": f["dst"],
        "bytes": f["bytes"],
        "start_us": round(f["start_ns"] / 1000, 3),
        "end_us": round(f["end_ns"] / 1000, 3),
        "fct_us": round(fct / 1000, 3),
        "ideal_us": round(f["ideal_ns"] / 1000, 3),
        "slowdown": round(fct / max(1, f["ideal_ns"]), 2),
        "hops": list(hops or []),
        "waited_at": ranked[0] if ranked else None,
    }


def _us(ns: float) -> float:
    return round(ns / 1000, 3)


def critical_path(flows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """step -> its flow on the job's critical path (see the module docstring)."""
    done = {f["fid"]: f for f in flows if f["start_ns"] is not None and f["end_ns"] is not None}
    if not done:
        return {}

    def last(fs: list[dict[str, Any]]) -> dict[str, Any]:
        return max(fs, key=lambda f: (f["end_ns"], -f["fid"]))

    cur = last(list(done.values()))
    chain: dict[int, dict[str, Any]] = {}
    while True:
        chain.setdefault(cur["step"], cur)
        deps = [done[d] for d in cur["after"] if d in done]
        if not deps:
            return chain
        cur = last(deps)


def job_report(run: dict[str, Any], top: int = TOP_FLOWS) -> dict[str, Any]:
    """Steps, their slowest flows and the hops where those waited, and a verdict."""
    job = run.get("job")
    if job is None:
        workload = run.get("config", {}).get("workload", "?")
        raise ValueError(
            f"the run has no job record (workload {workload!r}; simulate a collective: "
            "--workload allreduce or alltoall)"
        )
    ints = job.get("int", {})
    by_step: dict[int, list[dict[str, Any]]] = {}
    for f in job["flows"]:
        by_step.setdefault(f["step"], []).append(f)
    chain = critical_path(job["flows"])
    steps = []
    for k in sorted(by_step):
        flows = by_step[k]
        done = [f for f in flows if f["start_ns"] is not None and f["end_ns"] is not None]
        started = [f["start_ns"] for f in flows if f["start_ns"] is not None]
        row: dict[str, Any] = {
            "step": k,
            "flows": len(flows),
            "completed": len(done),
            "start_us": None,
            "end_us": None,
            "duration_us": None,
            "critical_flow": None,
            "span_start_us": _us(min(started)) if started else None,
            "span_end_us": None,
        }
        if len(done) == len(flows) and flows:
            last_end = max(f["end_ns"] for f in flows)
            row["span_end_us"] = _us(last_end)
            crit = chain.get(k)
            start, end = min(started), last_end  # off the critical path: the whole span
            if crit is not None and len(by_step) > 1:
                prev = chain.get(k - 1)
                start = prev["end_ns"] if prev is not None else min(started)
                end = crit["end_ns"]
            if crit is not None:
                row["critical_flow"] = _flow_row(crit, ints.get(str(crit["fid"])))
            row["start_us"], row["end_us"] = _us(start), _us(end)
            row["duration_us"] = _us(end - start)
        rows = sorted(
            (_flow_row(f, ints.get(str(f["fid"]))) for f in done),
            key=lambda r: (-r["fct_us"], r["fid"]),
        )
        fcts = [r["fct_us"] for r in rows]
        row["flow_fct_median_us"] = round(median(fcts), 3) if fcts else None
        row["slowest_flows"] = rows[:top]
        steps.append(row)
    durations = [s["duration_us"] for s in steps if s["duration_us"] is not None]
    med = median(durations) if durations else None
    ideal = median(f["ideal_ns"] for f in job["flows"]) if job["flows"] else None
    for s in steps:
        s["vs_median"] = (
            round(s["duration_us"] / med, 3) if med and s["duration_us"] is not None else None
        )
    finished = [s for s in steps if s["duration_us"] is not None]
    slowest = max(finished, key=lambda s: (s["duration_us"], -s["step"])) if finished else None
    out: dict[str, Any] = {
        "workload": job["workload"],
        "hosts": len(job["hosts"]),
        "steps": steps,
        "step_median_us": round(med, 3) if med is not None else None,
        # a step without congestion: one chunk's ideal FCT (the median flow's)
        "step_ideal_us": _us(ideal) if ideal else None,
        "median_over_ideal": round(med * 1000 / ideal, 3) if med and ideal else None,
        "slowest_step": slowest["step"] if slowest else None,
        "slowest_over_median": slowest["vs_median"] if slowest else None,
        "incomplete_steps": [s["step"] for s in steps if s["duration_us"] is None],
        "int_reports_other": job.get("int_reports_other", 0),
    }
    out["verdict"] = _verdict(out, slowest)
    return out


def _where(hop: dict[str, Any] | None) -> str:
    if hop is None:
        return "no INT for it"
    to = f" (to {hop['to']})" if hop.get("to") else ""
    return (
        f"waited {hop['hop_latency_ns']['p99'] / 1000:g} us (p99 per packet) at "
        f"{hop['switch']} port {hop['port']}{to} (queue p99 {hop['queue_pkts']['p99']:g} pkts)"
    )


def _verdict(d: dict[str, Any], slowest: dict[str, Any] | None) -> str:
    if d["incomplete_steps"]:
        first = d["incomplete_steps"][0]
        return f"step {first} did not complete ({len(d['incomplete_steps'])} steps incomplete)"
    if slowest is None or not slowest["slowest_flows"]:
        return "no completed flows"
    # the flow that made the step long: its flow on the critical path, else its slowest
    flow = slowest["slowest_flows"][0]
    if len(d["steps"]) > 1 and slowest["critical_flow"] is not None:
        flow = slowest["critical_flow"]
    fct = f"FCT {flow['fct_us']:g} us, {flow['slowdown']:g}x ideal"
    where = _where(flow["waited_at"])
    if len(d["steps"]) == 1:
        ratio = flow["fct_us"] / slowest["flow_fct_median_us"]
        line = (
            f"1 step of {slowest['flows']} flows; flow {flow['src']}->{flow['dst']} took "
            f"{ratio:.2g}x the median flow ({fct}) and {where}"
        )
    else:
        ratio = slowest["vs_median"]
        line = (
            f"step {slowest['step']} took {ratio:.2g}x the median step "
            f"({slowest['duration_us']:g} us vs {d['step_median_us']:g} us, "
            f"{d['median_over_ideal']:.2g}x a chunk's ideal {d['step_ideal_us']:g} us); flow "
            f"{flow['src']}->{flow['dst']} ({fct}) {where}"
        )
    return f"even: {line}" if ratio <= EVEN else line


def _hop_name(h: dict[str, Any]) -> str:
    to = f" ->{h['to']}" if h.get("to") else ""
    return f"{h['switch']}:{h['port']}{to}"


def format_job_report(d: dict[str, Any]) -> str:
    n = len(d["steps"])
    lines = [f"{d['workload']} on {d['hosts']} hosts: {n} step{'s' if n != 1 else ''}"]
    if len(d["steps"]) > 1 and d["step_median_us"] is not None and d["step_ideal_us"]:
        lines[0] += (
            f", median step {d['step_median_us']:g} us ({d['median_over_ideal']:g}x a chunk's "
            f"ideal {d['step_ideal_us']:g} us)"
        )
    lines.append(
        f"  {'step':>4} {'start_us':>9} {'end_us':>9} {'dur_us':>8} {'x_med':>6}  "
        f"{'critical':<9} slowest flow (FCT, slowdown)"
    )
    for s in d["steps"]:
        mark = "*" if s["step"] == d["slowest_step"] else " "
        flow = s["slowest_flows"][0] if s["slowest_flows"] else None
        who = (
            f"{flow['src']}->{flow['dst']} {flow['fct_us']:g} us ({flow['slowdown']:g}x)"
            if flow
            else "-"
        )

        c = s["critical_flow"]
        crit = f"{c['src']}->{c['dst']}" if c else "-"

        def num(x: float | None, fmt: str) -> str:
            return "-" if x is None else format(x, fmt)

        lines.append(
            f" {mark}{s['step']:>4} {num(s['start_us'], '9.2f')} {num(s['end_us'], '9.2f')} "
            f"{num(s['duration_us'], '8.2f')} {num(s['vs_median'], '6.2f')}  "
            f"{crit:<9} {who}"
        )
    slow = next((s for s in d["steps"] if s["step"] == d["slowest_step"]), None)
    if slow is not None:
        lines.append(f"slowest step {slow['step']}: its slowest flows and where they waited")
        shown = list(slow["slowest_flows"])
        c = slow["critical_flow"]
        if c is not None and all(f["fid"] != c["fid"] for f in shown):
            shown.append(c)
        width = max((len(_hop_name(h)) for f in shown for h in f["hops"]), default=0)
        for f in shown:
            tag = " (critical path)" if c is not None and f["fid"] == c["fid"] else ""
            lines.append(
                f"  {f['src']}->{f['dst']} FCT {f['fct_us']:g} us ({f['slowdown']:g}x ideal "
                f"{f['ideal_us']:g} us){tag}"
            )
            for h in f["hops"]:
                q, lat = h["queue_pkts"], h["hop_latency_ns"]
                mark = "<" if h == f["waited_at"] else " "
                lines.append(
                    f"   {mark}{_hop_name(h):<{width}} {h['packets']:>4} pkts  queue "
                    f"p50/p99/max {q['p50']:g}/{q['p99']:g}/{q['max']:g}  hop latency us "
                    f"p50/p99/max {lat['p50'] / 1000:g}/{lat['p99'] / 1000:g}/"
                    f"{lat['max'] / 1000:g}"
                )
    lines.append(f"verdict: {d['verdict']}")
    return "\n".join(lines)
