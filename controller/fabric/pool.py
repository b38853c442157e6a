"""The concurrency model of the controller: blocking sessions on a bounded thread pool.

Every switch has one blocking `P4RuntimeSession` (its channel, and a stream reader thread
that sits in gRPC waiting for packet-ins and arbitration updates). Work on many switches —
connect, push the pipeline, reconcile, poll counters — is one function per switch run on a
`ThreadPoolExecutor` of at most `workers` threads.

Why threads and not asyncio: the work per switch is I/O wait (the switch programs its
tables) plus protobuf encoding, which holds the GIL whatever the I/O model. A few dozen
workers keep every switch busy while the controller's one core encodes; more would only
queue on the GIL. gRPC releases the GIL while it waits, the existing client stays
synchronous (usable from scripts and tests), and a switch that hangs holds one worker until
its RPC deadline, never the others. The cost is one idle reader thread per session (plus
gRPC's own per-channel thread): thousands of sessions are thousands of mostly-sleeping
threads, which Linux handles; `max_workers` bounds the active ones.

`run_each` returns every switch's result and collects every failure (one switch's error
never hides another's); `FabricError` lists them by switch name.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["FabricError", "WorkerPool", "default_workers"]

K = TypeVar("K")
T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """32, or 4 per CPU if that is more."""
    return max(32, 4 * (os.cpu_count() or 1))


class FabricError(Exception):
    """One or more switches failed; `failures` maps each switch to its exception and
    `results` holds what the others returned."""

    def __init__(self, what: str, failures: Mapping[str, BaseException], results: Mapping) -> None:
        self.what = what
        self.failures = dict(failures)
        self.results = dict(results)
        super().__init__(str(self))

    def __str__(self) -> str:
        lines = [f"{self.what}: {len(self.failures)} switch(es) failed"]
        lines += [f"  {name}: {err}" for name, err in sorted(self.failures.items())]
        return "\n".join(lines)


class WorkerPool:
    """A bounded pool of worker threads shared by every fabric-wide operation."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="fabric")

    def run_each(
        self,
        what: str,
        items: Iterable[tuple[str, T]],
        fn: Callable[[T], R],
        *,
        raise_errors: bool = True,
    ) -> dict[str, R | BaseException]:
        """`fn(item)` for every (name, item), concurrently; results by name. With
        `raise_errors` a failure of any item raises FabricError after all have finished;
        without, the exception is the item's result."""
        futures: dict[str, Future[R]] = {
            name: self._executor.submit(fn, item) for name, item in items
        }
        results: dict[str, R | BaseException] = {}
        failures: dict[str, BaseException] = {}
        for name, fut in futures.items():
            try:
                results[name] = fut.result()
            except Exception as e:  # noqa: BLE001 -- reported per switch
                failures[name] = e
                results[name] = e
        if failures and raise_errors:
            ok = {n: r for n, r in results.items() if n not in failures}
            raise FabricError(what, failures, ok)
        return results

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
