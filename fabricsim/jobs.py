"""Running many simulations: a local process pool, or a Dask cluster when given its
scheduler address. fabric.p4 is compiled once in the parent; forked workers inherit it.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .run import SimConfig, fabric_program, simulate

__all__ = ["Job", "run_jobs"]


@dataclass(slots=True, frozen=True)
class Job:
    key: tuple[str, ...]  # where the result goes, e.g. (workload label, mode)
    topology: str  # topology file
    config: SimConfig


def run_job(job: Job) -> tuple[tuple[str, ...], dict[str, Any]]:
    from controller.topology import load_topology

    topo = load_topology(Path(job.topology))
    return job.key, simulate(topo, job.config)


def run_jobs(
    jobs: Sequence[Job],
    processes: int = 2,
    scheduler: str | None = None,
    report: Callable[[str], None] | None = None,
    connect_timeout: float = 10.0,
) -> dict[tuple[str, ...], dict[str, Any]]:
    """Run every job; results by key. `report` gets one line per finished run. With
    `scheduler` (a Dask scheduler address: `tcp://HOST:8786`, or a LocalCluster's), the jobs
    run on that cluster's workers (RuntimeError if it does not answer within
    `connect_timeout` s); else on a local process pool of `processes`."""
    say = report or (lambda line: print(line, file=sys.stderr, flush=True))
    t0 = time.monotonic()
    out: dict[tuple[str, ...], dict[str, Any]] = {}

    def done(key: tuple[str, ...], res: dict[str, Any]) -> None:
        out[key] = res
        say(
            f"[{len(out)}/{len(jobs)}] {'/'.join(key)}: {res['wall_s']:.1f} s ({time.monotonic() - t0:.0f} s elapsed)"
        )

    if scheduler is not None:
        try:
            from dask.distributed import Client, as_completed
        except ImportError as e:
            raise RuntimeError("--scheduler needs dask: pip install 'sprayfabric[dask]'") from e
        try:
            client = Client(scheduler, timeout=connect_timeout)
        except OSError as e:
            raise RuntimeError(f"Dask scheduler {scheduler}: {e}") from None
        with client:
            futures = client.map(run_job, list(jobs), pure=False)
            for fut in as_completed(futures):
                done(*fut.result())
        return out
    if processes <= 1 or len(jobs) == 1:
        for job in jobs:
            done(*run_job(job))
        return out
    fabric_program()  # compiled once, inherited by the forked workers
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(processes) as pool:
        for key, res in pool.imap_unordered(run_job, jobs):
            done(key, res)
    return out
