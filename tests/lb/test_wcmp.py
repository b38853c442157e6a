"""Weights -> member slots (controller/lb/wcmp.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.lb import interleave, slot_counts, slots


def test_exact_when_the_reduced_weights_fit() -> None:
    assert slot_counts([30, 10], 32) == [3, 1]
    assert slot_counts([2, 2, 2], 32) == [1, 1, 1]
    assert slot_counts([5, 0, 5], 32) == [1, 0, 1]  # weight 0: no slot
    assert slot_counts([16, 16], 32) == [1, 1]


def test_rounding_when_they_do_not() -> None:
    # 10:10:13 needs 33 slots: quotas 9.7, 9.7, 12.6 -> 9, 9, 12, then the two largest
    # remainders (0.70, 0.70 before 0.61) get the two slots left
    assert slot_counts([10, 10, 13], 32) == [10, 10, 12]
    # 1000:1 keeps the small next hop reachable with one slot
    assert slot_counts([1000, 1], 32) == [31, 1]
    assert slot_counts([1] * 5 + [1000], 32) == [1, 1, 1, 1, 1, 27]


def test_errors() -> None:
    with pytest.raises(ValueError, match="every weight is 0"):
        slot_counts([0, 0], 32)
    with pytest.raises(ValueError, match="negative"):
        slot_counts([1, -1], 32)
    with pytest.raises(ValueError, match="33 next hops do not fit"):
        slot_counts([1] * 33, 32)
    with pytest.raises(ValueError, match="2 weights for 3"):
        slots([1, 2], 3, 32)


def test_interleaving_spreads_each_next_hop() -> None:
    assert interleave([3, 1]) == [0, 0, 1, 0]
    assert interleave([2, 2, 1]) == [0, 1, 2, 0, 1]
    seq = interleave([4, 4])
    assert all(seq[i] != seq[i + 1] for i in range(len(seq) - 1))
    assert slots(None, 3, 32) == [0, 1, 2]


@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=32))
def test_slot_counts_properties(weights: list[int]) -> None:
    if not any(weights):
        return
    counts = slot_counts(weights, 32)
    assert sum(counts) <= 32
    assert all((c > 0) == (w > 0) for c, w in zip(counts, weights, strict=True))
    total_w = sum(weights)
    if sum(counts) == 32 and all(w * 32 >= total_w for w in weights if w):
        # no one-slot floor was needed: every share is within one slot of its quota
        for c, w in zip(counts, weights, strict=True):
            assert abs(c - w * 32 / total_w) < 1
    seq = interleave(counts)
    assert [seq.count(i) for i in range(len(counts))] == counts
