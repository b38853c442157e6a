"""Weights -> member slots. A next-hop group has at most 32 slots (the width of the
live-members bitmap, read from the P4Info); a packet picks a slot, so a next hop's share
of traffic is its share of slots.

Rounding: weights are divided by their greatest common divisor; when they still need more
slots than there are, each next hop gets its quota `w * slots / sum(w)` rounded down but at
least one slot (a next hop with weight > 0 stays reachable), then slots are added to the
largest remainders (or taken from the most over-served next hop with more than one slot)
until exactly `slots` are used; ties go to the earlier next hop. The error of any share is
therefore below 1/slots, except where the one-slot floor forces more. Weight 0 removes a
next hop.

Slots are interleaved (smooth weighted round robin: A B A C A B ...), not in blocks, so
when a slot is dead and the data plane moves its flows to the next live slot, they land
on different next hops rather than all on one neighbour.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from math import gcd

__all__ = ["interleave", "slot_counts", "slots"]


def slot_counts(weights: Sequence[int], max_slots: int) -> list[int]:
    """Slots per weight (0 for weight 0), summing to at most `max_slots` (see module)."""
    if any(w < 0 for w in weights):
        raise ValueError(f"negative weight in {list(weights)}")
    live = [i for i, w in enumerate(weights) if w > 0]
    if not live:
        raise ValueError("every weight is 0: the group would have no member")
    if len(live) > max_slots:
        raise ValueError(f"{len(live)} next hops do not fit in {max_slots} member slots")
    g = reduce(gcd, (weights[i] for i in live))
    reduced = [w // g for w in weights]
    if sum(reduced) <= max_slots:
        return reduced
    total = sum(reduced)
    quota = [w * max_slots / total for w in reduced]
    counts = [max(1, int(q)) if w else 0 for q, w in zip(quota, reduced, strict=True)]
    while sum(counts) < max_slots:
        i = max(live, key=lambda j: (quota[j] - counts[j], -j))
        counts[i] += 1
    while sum(counts) > max_slots:
        i = max((j for j in live if counts[j] > 1), key=lambda j: (counts[j] - quota[j], -j))
        counts[i] -= 1
    return counts


def interleave(counts: Sequence[int]) -> list[int]:
    """Indexes into `counts`, each `counts[i]` times, spread out (smooth weighted round
    robin, ties to the lower index)."""
    total = sum(counts)
    current = [0] * len(counts)
    out: list[int] = []
    for _ in range(total):
        for i, c in enumerate(counts):
            current[i] += c
        best = max(range(len(counts)), key=lambda i: (current[i], -i))
        current[best] -= total
        out.append(best)
    return out


def slots(weights: Sequence[int] | None, n: int, max_slots: int) -> list[int]:
    """The next hop (index 0..n-1) of each member slot of a group of `n` next hops."""
    if weights is None:
        if n > max_slots:
            raise ValueError(f"{n} next hops do not fit in {max_slots} member slots")
        return list(range(n))
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} next hops")
    return interleave(slot_counts(weights, max_slots))
