"""Experiments that reproduce published results, one module per named scenario
(docs/fabricsim.md, "Experiments").

    from fabricsim.experiments import SCENARIOS, get, run_scenario
    result = run_scenario(get("permutation"), seeds=(1, 2, 3))
"""

from __future__ import annotations

from . import fct, incast, permutation, pfc_storm, reorder_window
from .base import Published, Scenario, run_scenario, spread

__all__ = ["SCENARIOS", "Published", "Scenario", "get", "run_scenario", "spread"]

SCENARIOS: dict[str, Scenario] = {
    m.SCENARIO.name: m.SCENARIO for m in (permutation, incast, fct, pfc_storm, reorder_window)
}


def get(name: str) -> Scenario:
    """The scenario `name` (ValueError naming the known ones otherwise)."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"unknown experiment {name!r}: one of {', '.join(SCENARIOS)}") from None
