"""Sessions to every switch of a fabric, kept in their desired state.

    fab = FabricSessions(targets, pipeline)       # one ManagedSwitch per target
    fab.set_desired({"leaf1": [...], ...})         # controller.entities per switch
    results = fab.sync_all()                       # concurrently: push, read, diff, write
    fab.start_watch(interval=0.5, on_packet_in=handler)
    ...
    fab.close()

The watcher (one thread) restores switches that restart: each round it looks at every
session; a stream that ended (the switch process went away) or, every `audit_every` rounds,
a pipeline cookie that is gone, marks the switch as lost; lost switches are reconnected and
synced on the worker pool (pipeline pushed again, every entry rewritten, compared by a
read-back). A switch that is still down stays lost and is retried next round. The same
round drains packet-ins of every session to `on_packet_in(switch_name, PacketIn)`.

Arbitration: the controller's sessions use one election id (default 10). A client with a
higher one (an operator's p4runtime-shell) becomes primary; our writes then fail with
PERMISSION_DENIED until it leaves and the switch promotes us again. The watcher does not
treat that as a restart (the stream stays open).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..entities import Entity, PacketIn
from ..errors import P4RuntimeError
from ..p4info import P4Schema
from .core import Southbound, difference, write_all
from .pool import WorkerPool
from .readback import ReadKeys
from .southbound import SessionsSouthbound
from .switch import ManagedSwitch, Pipeline, SwitchTarget, SyncResult

__all__ = ["FabricSessions", "RestoreEvent"]

log = logging.getLogger("controller.fabric")

PacketInHandler = Callable[[str, PacketIn], object]


@dataclass(frozen=True, slots=True)
class RestoreEvent:
    """A switch found lost and restored (or not yet: `error`)."""

    switch: str
    reason: str
    result: SyncResult | None
    error: str | None


class FabricSessions:
    """A ManagedSwitch per switch and the pool that drives them."""

    def __init__(
        self,
        targets: Iterable[SwitchTarget],
        pipeline: Pipeline | Mapping[str, Pipeline],
        *,
        workers: int | None = None,
        election_id: int = 10,
        batch_size: int = 1000,
        table_order: Sequence[str] = (),
    ) -> None:
        self.switches: dict[str, ManagedSwitch] = {}
        # one schema per pipeline: the encoders of its switches too; and one memo of the
        # encodings their syncs compare read-backs with
        schemas: dict[int, tuple[P4Schema, ReadKeys]] = {}
        for t in targets:
            pipe = pipeline if isinstance(pipeline, Pipeline) else pipeline[t.name]
            got = schemas.get(id(pipe))
            if got is None:
                schema = P4Schema(pipe.p4info)
                got = schemas[id(pipe)] = (schema, ReadKeys(schema))
            self.switches[t.name] = ManagedSwitch(
                t,
                pipe,
                election_id=election_id,
                batch_size=batch_size,
                table_order=table_order,
                schema=got[0],
                read_keys=got[1],
            )
        self.pool = WorkerPool(workers)
        self.events: deque[RestoreEvent] = deque(maxlen=1000)
        self._events_cv = threading.Condition()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def __getitem__(self, name: str) -> ManagedSwitch:
        return self.switches[name]

    # ------------------------------------------------------------ fabric-wide operations
    def run_each(
        self,
        what: str,
        fn: Callable[[ManagedSwitch], object],
        names: Iterable[str] | None = None,
        raise_errors: bool = True,
    ) -> dict[str, object]:
        """`fn(switch)` for each switch (or those named), on the pool."""
        chosen = self.switches if names is None else {n: self.switches[n] for n in names}
        return self.pool.run_each(what, chosen.items(), fn, raise_errors=raise_errors)

    def connect_all(self, timeout: float = 10.0) -> None:
        self.run_each("connect", lambda sw: sw.connect(timeout))

    def set_desired(self, desired: Mapping[str, Iterable[Entity]]) -> None:
        """Replace the desired state of the switches named (others keep theirs)."""
        unknown = set(desired) - set(self.switches)
        if unknown:
            raise KeyError(f"no such switch: {', '.join(sorted(unknown))}")
        for name, entities in desired.items():
            self.switches[name].set_desired(entities)

    def update_all(self, desired: Mapping[str, Iterable[Entity]]) -> dict[str, SyncResult]:
        """The new desired state of each switch named, concurrently: written as the
        controller core's difference (`core.difference`, in dependency order) from what was
        last written there (`ManagedSwitch.ledger`, no read back), through the sessions'
        southbound; a switch whose ledger is not known, or whose write fails, is synced in
        full. FabricError if any fails."""
        unknown = set(desired) - set(self.switches)
        if unknown:
            raise KeyError(f"no such switch: {', '.join(sorted(unknown))}")
        south = SessionsSouthbound(self)
        res = self.run_each("update", lambda sw: _update(sw, desired[sw.name], south), desired)
        return {n: r for n, r in res.items() if isinstance(r, SyncResult)}

    def sync_all(self, names: Iterable[str] | None = None) -> dict[str, SyncResult]:
        """Reconcile every switch (or those named) concurrently; FabricError if any fails."""
        south = SessionsSouthbound(self)
        res = self.run_each("sync", lambda sw: sw.sync(south=south), names)
        return {n: r for n, r in res.items() if isinstance(r, SyncResult)}

    # ------------------------------------------------------------ watching
    def start_watch(
        self,
        interval: float = 0.5,
        on_packet_in: PacketInHandler | None = None,
        audit_every: int = 20,
    ) -> None:
        """Start the watcher thread (see the module docstring)."""
        if self._watcher is not None:
            return
        self._stop.clear()
        self._watcher = threading.Thread(
            target=self._watch,
            args=(interval, on_packet_in, audit_every),
            name="fabric-watch",
            daemon=True,
        )
        self._watcher.start()

    def stop_watch(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=30)
            self._watcher = None

    def _watch(
        self, interval: float, on_packet_in: PacketInHandler | None, audit_every: int
    ) -> None:
        rounds = 0
        while not self._stop.wait(interval):
            rounds += 1
            lost = {n: "stream ended" for n, sw in self.switches.items() if not sw.connected}
            if audit_every and rounds % audit_every == 0:
                alive = [n for n in self.switches if n not in lost]
                res = self.run_each(
                    "audit", lambda sw: sw.pipeline_lost(), alive, raise_errors=False
                )
                lost |= {n: "pipeline cookie gone" for n, r in res.items() if r is True}
            if lost:
                self._restore(lost)
            if on_packet_in is not None:
                self._drain_packet_ins(on_packet_in)

    def _restore(self, lost: Mapping[str, str]) -> None:
        res = self.run_each("restore", lambda sw: sw.sync(2.0), lost, raise_errors=False)
        for name, r in res.items():
            if isinstance(r, SyncResult):
                log.warning(
                    "%s restored (%s): pipeline %s, %d entries written",
                    name,
                    lost[name],
                    "pushed" if r.pipeline_pushed else "kept",
                    r.changed,
                )
                self.switches[name].counts.restores += 1
                event = RestoreEvent(name, lost[name], r, None)
            else:
                log.debug("%s still lost (%s): %s", name, lost[name], r)
                event = RestoreEvent(name, lost[name], None, str(r))
            with self._events_cv:
                self.events.append(event)
                self._events_cv.notify_all()

    def wait_restored(self, name: str, restores_before: int, timeout: float) -> bool:
        """Wait until switch `name` has been restored more than `restores_before` times
        (read `switches[name].counts.restores` before causing the restart)."""
        sw = self.switches[name]
        with self._events_cv:
            return self._events_cv.wait_for(lambda: sw.counts.restores > restores_before, timeout)

    def _drain_packet_ins(self, handler: PacketInHandler) -> None:
        for name, sw in self.switches.items():
            s = sw.session
            if s is None:
                continue
            while True:
                try:
                    pkt = s.stream.packet_ins.get_nowait()
                except (queue.Empty, RuntimeError):
                    break
                try:
                    handler(name, pkt)
                except Exception:
                    log.exception("packet-in handler failed on a packet from %s", name)

    # ------------------------------------------------------------ teardown
    def close(self) -> None:
        """Stop watching, close every session and the pool."""
        self.stop_watch()
        try:
            self.run_each("disconnect", lambda sw: sw.disconnect(), raise_errors=False)
        finally:
            self.pool.close()

    def __enter__(self) -> FabricSessions:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _update(sw: ManagedSwitch, entities: Iterable[Entity], south: Southbound) -> SyncResult:
    """`entities` made `sw`'s desired state and written as the core's difference from its
    ledger through `south` (see `FabricSessions.update_all`)."""
    t0 = time.perf_counter()
    with sw.lock:
        sw.set_desired(entities)
        before = sw.ledger()
        if before is None:
            return sw.sync(south=south)
        phases = difference(sw.desired, before, sw.table_order)
        try:
            write_all(south, {sw.name: phases})
        except P4RuntimeError as e:
            log.warning("%s: incremental write failed (%s): reading it back", sw.name, e)
            sw.written = None
            return sw.sync(south=south)
        if sw.written is None:  # a new session opened to write: the switch may have restarted
            return sw.sync(south=south)
        return sw.wrote(phases, t0)
