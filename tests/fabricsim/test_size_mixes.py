"""The poisson workload's published flow-size mixes: sampled sizes follow the CDF points
(linear between them), the scaling hits the asked-for mean, arrivals offer the load."""

from __future__ import annotations

import random

import pytest

from fabricsim.workloads import SIZE_MIXES, make_workload, mix_mean, sample_size

HOSTS = [f"h{i}" for i in range(1, 17)]


@pytest.mark.parametrize("mix", sorted(SIZE_MIXES))
def test_sampling_follows_the_cdf_points(mix: str) -> None:
    pts = SIZE_MIXES[mix]
    rng = random.Random(7)
    sizes = sorted(sample_size(mix, rng.random()) for _ in range(40_000))
    for size, pct in pts[1:-1]:
        share = sum(1 for s in sizes if s <= size) / len(sizes)
        assert share == pytest.approx(pct / 100, abs=0.01), (size, pct)
    # between two points the size is interpolated: the middle of a segment's probability
    (s0, c0), (s1, c1) = pts[3], pts[4]
    assert sample_size(mix, (c0 + c1) / 200) == pytest.approx((s0 + s1) / 2)


@pytest.mark.parametrize("mix", sorted(SIZE_MIXES))
def test_mean_by_hand_and_scaled_workload_mean(mix: str) -> None:
    pts = SIZE_MIXES[mix]
    by_hand = 0.0
    for (s0, c0), (s1, c1) in zip(pts, pts[1:], strict=False):
        by_hand += (c1 - c0) / 100 * (s0 + s1) / 2
    assert mix_mean(mix) == pytest.approx(by_hand)
    flows = make_workload("poisson", HOSTS, 50_000, seed=3, flows=4_000, mix=mix)
    mean = sum(f.size for f in flows) / len(flows)
    # heavy tails: the sample mean of 4,000 draws is within a fifth of the target
    assert mean == pytest.approx(50_000, rel=0.2)


def test_arrivals_offer_the_load() -> None:
    flows = make_workload("poisson", HOSTS, 30_000, seed=5, flows=3_000, load=0.4, mix="hadoop")
    span_s = (flows[-1].start_ns - flows[0].start_ns) / 1e9
    offered = sum(f.size for f in flows) * 8 / span_s / (len(HOSTS) * 100e9)
    assert offered == pytest.approx(0.4, rel=0.2)


def test_unknown_mix_is_refused() -> None:
    with pytest.raises(ValueError, match="size mix 'pareto': one of websearch, hadoop"):
        make_workload("poisson", HOSTS, 1_000, seed=1, mix="pareto")
