"""What every experiment is: a named scenario that runs several variants of a simulation
over seeds, measures each run, and reports the spread beside the published figure.

A scenario's `variants(quick)` gives labelled `SimConfig`s (the seed is set per run);
`measure(result, network, cfg)` turns one finished run into named figures. `run_scenario`
runs every variant x seed on the scenario's topology and returns a JSON-able dict with
the per-seed values and their spread (mean, min, max, 95% CI with Student's t).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..network import Network
from ..run import SimConfig, fabric_program, simulate
from ..summary import steady_rx_utilisation

__all__ = [
    "Published",
    "Scenario",
    "run_scenario",
    "spread",
    "steady_rx_utilisation",
]

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGIES = ROOT / "topologies"

# two-sided 95% Student's t quantiles by degrees of freedom (1..10); 1.96 beyond
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


@dataclass(slots=True, frozen=True)
class Published:
    """One published figure: what, its value (as text: approximate where read off a plot),
    and where it comes from (paper, figure or table)."""

    metric: str
    value: str
    source: str


Measure = Callable[[dict[str, Any], Network, SimConfig], dict[str, float]]


@dataclass(slots=True, frozen=True)
class Scenario:
    name: str
    paper: str
    figure: str
    published: tuple[Published, ...]
    topology: str  # file name under topologies/
    workload: str  # the workload, as a sentence
    compared: str  # the modes / transports compared
    metric: str  # how the figures are computed
    variants: Callable[[bool], dict[str, SimConfig]]
    measure: Measure
    headline: str  # the figure printed in the table beside the published one
    differences: str = ""  # where the model differs from the paper's set-up

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "paper": self.paper,
            "figure": self.figure,
            "published": [vars_of(p) for p in self.published],
            "topology": self.topology,
            "workload": self.workload,
            "compared": self.compared,
            "metric": self.metric,
            "headline": self.headline,
            "differences": self.differences,
        }


def vars_of(p: Published) -> dict[str, str]:
    return {"metric": p.metric, "value": p.value, "source": p.source}


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, min, max and the half-width of the 95% confidence interval of the mean
    (Student's t; 0 for one value)."""
    if not values:
        raise ValueError("spread of no values")
    n = len(values)
    mean = sum(values) / n
    if n > 1:
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
        ci = t * math.sqrt(var / n)
    else:
        ci = 0.0
    return {
        "mean": round(mean, 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
        "ci95": round(ci, 4),
        "n": n,
    }


def run_scenario(
    scn: Scenario,
    seeds: Sequence[int] = (1, 2, 3),
    quick: bool = False,
    report: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every variant of `scn` on every seed: per-seed figures and their spread."""
    from controller.topology import load_topology

    say = report or (lambda line: print(line, file=sys.stderr, flush=True))
    topo = load_topology(TOPOLOGIES / scn.topology)
    program = fabric_program()
    variants = scn.variants(quick)
    total = len(variants) * len(seeds)
    t0 = time.monotonic()
    out: dict[str, Any] = {"scenario": scn.describe(), "quick": quick, "seeds": list(seeds)}
    results: dict[str, Any] = {}
    runs: list[dict[str, Any]] = []  # one row per variant x seed, as `compare` reads them
    hops = 0
    loop_s = 0.0
    done = 0
    for label, cfg in variants.items():
        per_seed: dict[str, list[float]] = {}
        for seed in seeds:
            run_cfg = replace(cfg, seed=seed)
            nets: list[Network] = []
            r = simulate(topo, run_cfg, program=program, on_network=nets.append)
            figures = scn.measure(r, nets[0], run_cfg)
            row: dict[str, Any] = {"variant": label, "seed": seed}
            for k, v in figures.items():
                per_seed.setdefault(k, []).append(round(float(v), 4))
                row[k] = round(float(v), 4)
            runs.append(row)
            hops += r["packet_hops"]
            loop_s += r["loop_wall_s"]
            done += 1
            say(
                f"[{done}/{total}] {scn.name} {label} seed {seed}: "
                f"{scn.headline}={figures.get(scn.headline, float('nan')):.2f}, "
                f"{r['wall_s']:.1f} s ({time.monotonic() - t0:.0f} s elapsed)"
            )
        results[label] = {
            "config": {
                "mode": cfg.mode,
                "transport": cfg.transport,
                "receiver": cfg.receiver,
                "workload": cfg.workload,
                "flow_bytes": cfg.flow_bytes,
            },
            "per_seed": per_seed,
            "spread": {k: spread(v) for k, v in per_seed.items()},
        }
    out["variants"] = results
    out["runs"] = runs
    out["packet_hops"] = hops
    out["loop_wall_s"] = round(loop_s, 3)
    out["packet_hops_per_s"] = round(hops / loop_s) if loop_s else 0
    out["wall_s"] = round(time.monotonic() - t0, 2)
    return out
