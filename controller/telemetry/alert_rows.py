"""Drop and queue reports folded into the rows `sprayfabric doctor` reads (a run's
"alerts"): one row per (kind, switch, port, reason) with the count, the first and last
time, and for drops the destinations of the packets dropped, for queues the deepest queue
and the longest hop latency seen. fabricsim's `AlertLog` and the live prober
(controller/fabric/live_probe.py) fold their reports here, so the two give the doctor the
same layout.

    rows = alert_rows(kept, peers, reason_names)

`kept`: (switch, time ns, report) in the order they arrived; `peers`: (switch, port) ->
the node on the other end of that port (the port drops came in on, a queue's port);
`reason_names`: fabric.p4's drop codes -> names (`FabricConstants.drop_reasons`
inverted). Both kinds are rate-limited in the data plane: a row's count is a lower bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .alerts import DropReport, QueueReport

__all__ = ["MAX_DSTS", "alert_rows"]

MAX_DSTS = 16  # destinations kept per drop row (the first ones, sorted)


def alert_rows(
    kept: Iterable[tuple[str, int, DropReport | QueueReport]],
    peers: Mapping[tuple[str, int], str],
    reason_names: Mapping[int, str],
) -> list[dict[str, Any]]:
    """One row per (kind, switch, port, reason), drops first (see the module docstring)."""
    rows: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for switch, t, rep in kept:
        if isinstance(rep, DropReport):
            key = ("drop", switch, rep.ingress_port, reason_names.get(rep.reason, str(rep.reason)))
            port = rep.ingress_port
        else:
            key = ("queue", switch, rep.egress_port, "")
            port = rep.egress_port
        row = rows.get(key)
        if row is None:
            row = rows[key] = {
                "type": key[0],
                "switch": switch,
                "port": port,
                "peer": peers.get((switch, port)),
                "count": 0,
                "first_ns": t,
                "last_ns": t,
            }
            if isinstance(rep, DropReport):
                row |= {"reason": key[3], "dsts": []}
            else:
                row |= {"max_occupancy": 0, "max_latency_ns": 0}
        row["count"] += 1
        row["last_ns"] = t
        if isinstance(rep, DropReport):
            dst = rep.flow.dst if rep.flow is not None else None
            if dst is not None and dst not in row["dsts"] and len(row["dsts"]) < MAX_DSTS:
                row["dsts"].append(dst)
        else:
            row["max_occupancy"] = max(row["max_occupancy"], rep.queue_occupancy)
            row["max_latency_ns"] = max(row["max_latency_ns"], rep.hop_latency_ns)
    for row in rows.values():
        if row["type"] == "drop":
            row["dsts"].sort()
    return [rows[k] for k in sorted(rows)]
