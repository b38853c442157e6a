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
from typing import Any

from ..network import Network
from ..run import SimConfig, fabric_program, simulate
from ..summary import steady_rx_utilisation
from .topospec import load_spec

__all__ = [
    "TIMING_KEYS",
    "Published",
    "RunTask",
    "Scenario",
    "run_task",
    "run_scenario",
    "spread",
    "steady_rx_utilisation",
    "without_timing",
]


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
    topology: str  # a file name under topologies/ or a generator spec (topospec)
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


@dataclass(slots=True, frozen=True)
class RunTask:
    """One run of a sweep: a variant's configuration on one seed (picklable, for a pool's
    or a Dask cluster's workers)."""

    variant: str
    seed: int
    topology: str  # a spec for topospec.load_spec
    config: SimConfig
    measure: Measure


def run_task(task: RunTask) -> dict[str, Any]:
    """Simulate one run and measure it: its figures (rounded, as the JSON carries them),
    packet-hops and timings; no Network or per-flow detail travels back."""
    topo = load_spec(task.topology)
    nets: list[Network] = []
    r = simulate(topo, task.config, program=fabric_program(), on_network=nets.append)
    figures = task.measure(r.to_dict(), nets[0], task.config)
    return {
        "figures": {k: round(float(v), 4) for k, v in figures.items()},
        "packet_hops": r["packet_hops"],
        "loop_wall_s": r["loop_wall_s"],
        "loop_cpu_s": r["loop_cpu_s"],
        "wall_s": r["wall_s"],
        "cpu_s": r["cpu_s"],
    }


TIMING_KEYS = (
    "loop_wall_s",
    "packet_hops_per_s",
    "packet_hops_per_cpu_s",
    "runs_cpu_s",
    "wall_s",
    "workers",
)


def without_timing(res: dict[str, Any]) -> dict[str, Any]:
    """A scenario's result without its timings: the same bytes (as JSON) for the same
    scenario, seeds and sizes, however the runs were distributed."""
    return {k: v for k, v in res.items() if k not in TIMING_KEYS}


def run_scenario(
    scn: Scenario,
    seeds: Sequence[int] = (1, 2, 3),
    quick: bool = False,
    report: Callable[[str], None] | None = None,
    *,
    topology: str | None = None,
    processes: int = 1,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Every variant of `scn` on every seed: per-seed figures and their spread. `topology`
    replaces the scenario's (a topospec spec). The runs go to a forked pool of `processes`
    or to the Dask cluster at `scheduler` (fabricsim.jobs.distribute); the result is
    assembled in variant, then seed order, so only its TIMING_KEYS depend on that."""
    from ..jobs import distribute

    say = report or (lambda line: print(line, file=sys.stderr, flush=True))
    spec = topology or scn.topology
    load_spec(spec)  # a bad spec fails here, before any worker starts
    variants = scn.variants(quick)
    tasks = [
        RunTask(label, seed, spec, replace(cfg, seed=seed), scn.measure)
        for label, cfg in variants.items()
        for seed in seeds
    ]
    t0 = time.monotonic()
    got: dict[int, dict[str, Any]] = {}

    def done(i: int, res: dict[str, Any]) -> None:
        got[i] = res
        t = tasks[i]
        head = res["figures"].get(scn.headline, float("nan"))
        say(
            f"[{len(got)}/{len(tasks)}] {scn.name} {t.variant} seed {t.seed}: "
            f"{scn.headline}={head:.2f}, {res['wall_s']:.1f} s "
            f"({time.monotonic() - t0:.0f} s elapsed)"
        )

    distribute(run_task, tasks, done, processes=processes, scheduler=scheduler)
    described = scn.describe()
    described["topology"] = spec
    out: dict[str, Any] = {"scenario": described, "quick": quick, "seeds": list(seeds)}
    results: dict[str, Any] = {}
    runs: list[dict[str, Any]] = []  # one row per variant x seed, as `compare` reads them
    for i, t in enumerate(tasks):
        figures = got[i]["figures"]
        runs.append({"variant": t.variant, "seed": t.seed, **figures})
        v = results.setdefault(
            t.variant,
            {
                "config": {
                    "mode": t.config.mode,
                    "transport": t.config.transport,
                    "receiver": t.config.receiver,
                    "workload": t.config.workload,
                    "flow_bytes": t.config.flow_bytes,
                },
                "per_seed": {},
            },
        )
        for k, val in figures.items():
            v["per_seed"].setdefault(k, []).append(val)
    for v in results.values():
        v["spread"] = {k: spread(vals) for k, vals in v["per_seed"].items()}
    hops = sum(r["packet_hops"] for r in got.values())
    loop_s = sum(r["loop_wall_s"] for r in got.values())
    loop_cpu = sum(r["loop_cpu_s"] for r in got.values())
    out["variants"] = results
    out["runs"] = runs
    out["packet_hops"] = hops
    out["loop_wall_s"] = round(loop_s, 3)
    out["packet_hops_per_s"] = round(hops / loop_s) if loop_s else 0
    # on a shared machine the CPU figures move less than the wall ones
    out["packet_hops_per_cpu_s"] = round(hops / loop_cpu) if loop_cpu else 0
    out["runs_cpu_s"] = round(sum(r["cpu_s"] for r in got.values()), 2)
    out["wall_s"] = round(time.monotonic() - t0, 2)
    out["workers"] = scheduler or processes
    return out
