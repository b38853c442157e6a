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
from typing import Any, TypeVar

from .result import SimResult
from .run import SimConfig, fabric_program, simulate

__all__ = ["Job", "distribute", "run_jobs"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(slots=True, frozen=True)
class Job:
    key: tuple[str, ...]  # where the result goes, e.g. (workload label, mode)
    topology: str  # topology file
    config: SimConfig


def run_job(job: Job) -> tuple[tuple[str, ...], SimResult]:
    from controller.topology import load_topology

    topo = load_topology(Path(job.topology))
    return job.key, simulate(topo, job.config)


def _indexed(arg: tuple[Callable[[Any], Any], int, Any]) -> tuple[int, Any]:
    fn, i, item = arg
    return i, fn(item)


def distribute(
    fn: Callable[[T], R],
    items: Sequence[T],
    done: Callable[[int, R], None],
    *,
    processes: int = 1,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
) -> None:
    """fn(item) for every item; `done(index, result)` as each finishes (in any order). With
    `scheduler` (a Dask scheduler address, `tcp://HOST:8786`, or a LocalCluster's) on that
    cluster's workers (RuntimeError if dask is missing or the scheduler does not answer
    within `connect_timeout` s); else on a forked pool of `processes` (serially for one).
    `fn` and the items must pickle (module-level functions, dataclasses)."""
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
            futures = client.map(fn, list(items), pure=False)
            index = {fut.key: i for i, fut in enumerate(futures)}
            for fut in as_completed(futures):
                done(index[fut.key], fut.result())
        return
    if processes <= 1 or len(items) <= 1:
        for i, item in enumerate(items):
            done(i, fn(item))
        return
    fabric_program()  # compiled once, inherited by the forked workers
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(processes, len(items))) as pool:
        for i, res in pool.imap_unordered(_indexed, [(fn, i, it) for i, it in enumerate(items)]):
            done(i, res)


def run_jobs(
    jobs: Sequence[Job],
    processes: int = 2,
    scheduler: str | None = None,
    report: Callable[[str], None] | None = None,
    connect_timeout: float = 10.0,
) -> dict[tuple[str, ...], SimResult]:
    """Run every job; results by key. `report` gets one line per finished run. With
    `scheduler` (a Dask scheduler address: `tcp://HOST:8786`, or a LocalCluster's), the jobs
    run on that cluster's workers (RuntimeError if it does not answer within
    `connect_timeout` s); else on a local process pool of `processes`."""
    say = report or (lambda line: print(line, file=sys.stderr, flush=True))
    t0 = time.monotonic()
    out: dict[tuple[str, ...], SimResult] = {}

    def done(_: int, kr: tuple[tuple[str, ...], SimResult]) -> None:
        key, res = kr
        out[key] = res
        say(
            f"[{len(out)}/{len(jobs)}] {'/'.join(key)}: {res['wall_s']:.1f} s ({time.monotonic() - t0:.0f} s elapsed)"
        )

    distribute(
        run_job,
        jobs,
        done,
        processes=processes,
        scheduler=scheduler,
        connect_timeout=connect_timeout,
    )
    return out
