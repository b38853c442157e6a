"""Experiments that reproduce published results, one module per named scenario
(docs/fabricsim.md, "Experiments").

    from fabricsim.experiments import SCENARIOS, get, run_scenario
    result = run_scenario(get("permutation"), seeds=(1, 2, 3))
"""

from __future__ import annotations

from . import fct, incast, permutation, permutation_big, pfc_storm, reorder_window
from .base import Published, Scenario, run_scenario, spread, without_timing
from .topospec import load_spec

__all__ = [
    "SCENARIOS",
    "Published",
    "Scenario",
    "get",
    "load_spec",
    "run_scenario",
    "spread",
    "without_timing",
]

SCENARIOS: dict[str, Scenario] = {
    scn.name: scn
    for scn in (
        permutation.SCENARIO,
        permutation_big.PERMUTATION_K8,
        permutation_big.PERMUTATION_2PLANE,
        incast.SCENARIO,
        fct.SCENARIO,
        pfc_storm.SCENARIO,
        reorder_window.SCENARIO,
    )
}


def get(name: str) -> Scenario:
    """The scenario `name` (ValueError naming the known ones otherwise)."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"unknown experiment {name!r}: one of {', '.join(SCENARIOS)}") from None
