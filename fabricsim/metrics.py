"""What a run measured, as one JSON-able dict.

- flows: completion time (FCT: start to the receiver holding every byte), goodput
  (bytes/FCT), slowdown (FCT over the ideal: size at line rate plus the unloaded
  path's propagation and serialisation);
- `throughput_pct_of_line_rate`: per receiving host, bytes received over the time from
  its first flow's start to its last flow's end, as a share of its link rate, averaged
  over receivers (a permutation: each flow's goodput; an incast: the receiver link);
- uplink balance: per leaf, bytes on each uplink; max/mean and Jain's index;
- queues: depth samples of every switch egress port (packets) and each port's peak;
- switch counters read through P4Runtime: ECN marks, CNPs sent, trims, drops by reason;
  traffic-manager tail drops; link losses; retransmissions; PFC pause time;
- reordering at receivers: share of packets that arrived after a higher PSN of the same
  flow, and how far behind (reorder distance, packets).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["jain", "percentile"]


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return float(s[k])


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index: 1 for equal shares, 1/n for all on one."""
    if not values or not any(values):
        return 1.0
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values))
