"""fabricsim.experiments.flowlevel: max-min fair rates by hand, and ECMP's flow-level
expectation where it is known exactly or bounded."""

from __future__ import annotations

import pytest

from fabricsim.experiments import load_spec
from fabricsim.experiments.flowlevel import ecmp_expectation, max_min_rates


def test_max_min_by_hand() -> None:
    e1, e2 = ("a", "b"), ("b", "c")
    # A on e1, B on e1 and e2, C on e2; e1 fills at 0.5 each, C takes what e2 has left
    rates = max_min_rates([[e1], [e1, e2], [e2]], {e1: 1.0, e2: 2.0})
    assert rates == pytest.approx([0.5, 0.5, 1.5])


def test_one_path_and_split_uplinks() -> None:
    # two hosts on two leaves, one flow each way: one 100G spine path shares nothing; two
    # spines give 50G uplinks (1:1), and a single hashed path gets half the NIC's rate
    assert ecmp_expectation(load_spec("leaf-spine:2x1x1"), trials=5)["mean_pct"] == 100.0
    assert ecmp_expectation(load_spec("leaf-spine:2x2x1"), trials=5)["mean_pct"] == 50.0


def test_collisions_lower_the_mean() -> None:
    e = ecmp_expectation(load_spec("leaf-spine:2x2x2"), trials=50, seed=3)
    assert 50 <= e["min_pct"] <= e["mean_pct"] < 100 and e["max_pct"] == 100.0


@pytest.mark.parametrize("name", ["permutation-k8", "permutation-2plane"])
def test_scenarios_quote_the_model(name: str) -> None:
    """The flow-level figure a big scenario quotes is what the model gives (10
    permutations here, so within the spread the quoted 100 gave)."""
    from fabricsim.experiments import get

    scn = get(name)
    quoted = next(p for p in scn.published if "flow-level" in p.metric).value
    mean = float(quoted.split("%")[0])
    lo, hi = (float(x) for x in quoted.split("(")[1].split(" ")[0].split("-"))
    got = ecmp_expectation(load_spec(scn.topology), trials=10, seed=1)
    assert lo <= got["mean_pct"] <= hi and abs(got["mean_pct"] - mean) < 5
