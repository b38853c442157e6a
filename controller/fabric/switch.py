"""One managed switch: its P4Runtime session, its desired state, and reconciliation.

`ManagedSwitch.sync()` makes the switch hold exactly the desired entities:

1. connect (if not connected) and become primary;
2. push the pipeline unless the switch already runs it (same cookie), so a switch that
   restarted empty, or runs another program, gets ours;
3. read everything the controller manages (one wildcard Read: the managed tables, their
   action profiles, clone sessions, multicast groups; default entries separately);
4. plan the difference (`reconcile.plan`) and write it in dependency order, at most
   `batch_size` updates per Write.

A second `sync()` with the same desired state reads and writes nothing.

The written ledger (`written`): what this controller last wrote to the switch and the
switch holds, the record a change the controller makes itself (a link's routes recomputed,
a group's mode) is planned against, with no read back: the controller core computes the
difference from it (`core.difference`) and `FabricSessions.update_all` writes that through
the sessions' southbound, then records it here (`wrote`). The ledger is not known (`ledger()`
is None) before the first sync, on a new session (the switch may have restarted) and after a
failed write; the change is then a full `sync()`. Drift caused by someone else is therefore
found by the next `sync()` (the watcher's restore, a reconcile), not by an update. Every
sync and update holds the switch's lock, so a watcher restoring a restarted switch and a user
changing a group never interleave their writes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from p4rt_proto import p4info_pb2
from p4rt_proto import p4runtime_pb2 as p4r

from .. import codec
from ..entities import Entity, TableEntry, Update, UpdateType
from ..errors import P4RuntimeError
from ..p4info import P4Schema
from ..p4rt import P4RuntimeSession, config_cookie
from .core import Southbound, write_all
from .readback import DesiredIndex, ReadKeys
from .reconcile import Plan, identity, plan, wildcards

__all__ = ["ManagedSwitch", "Pipeline", "SwitchTarget", "SyncResult"]

log = logging.getLogger("controller.fabric")


@dataclass(frozen=True, slots=True)
class SwitchTarget:
    """Where a switch's P4Runtime server is."""

    name: str
    address: str
    device_id: int = 0


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A compiled program: P4Info and the target's device config."""

    p4info: p4info_pb2.P4Info
    device_config: bytes
    # the cookie, hashed at its first use (every sync of every switch asks for it)
    _cookie: int | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def cookie(self) -> int:
        if self._cookie is None:
            object.__setattr__(self, "_cookie", config_cookie(self.p4info, self.device_config))
        assert self._cookie is not None
        return self._cookie


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What one sync did to one switch."""

    switch: str
    pipeline_pushed: bool
    inserted: int
    modified: int
    deleted: int
    writes: int  # Write RPCs sent
    read: int  # entities read back
    seconds: float

    @property
    def changed(self) -> int:
        return self.inserted + self.modified + self.deleted


@dataclass(slots=True)
class _Counts:
    writes: int = 0
    updates: int = 0
    restores: int = 0
    history: list[SyncResult] = field(default_factory=list)


class ManagedSwitch:
    """A switch the controller keeps in its desired state."""

    def __init__(
        self,
        target: SwitchTarget,
        pipeline: Pipeline,
        *,
        election_id: int = 10,
        batch_size: int = 1000,
        managed_tables: Sequence[str] | None = None,
        table_order: Sequence[str] = (),
        rpc_timeout: float = 30.0,
        schema: P4Schema | None = None,
        read_keys: ReadKeys | None = None,
    ) -> None:
        self.target = target
        self.pipeline = pipeline
        self.election_id = election_id
        self.batch_size = batch_size
        self.rpc_timeout = rpc_timeout
        # one schema per pipeline can serve many switches (their encoders are then shared)
        self.schema = schema if schema is not None else P4Schema(pipeline.p4info)
        # and so can the memo of encodings a sync compares the read-back with
        self.read_keys = read_keys if read_keys is not None else ReadKeys(self.schema)
        names = [t.name for t in self.schema.tables]
        self.managed_tables: list[str] = (
            [self.schema.table(t).name for t in managed_tables]
            if managed_tables is not None
            else names
        )
        self.profiles = sorted(
            {
                self.schema.action_profiles.id(t.implementation_id).name
                for t in self.schema.tables
                if t.name in self.managed_tables and t.implementation_id
            }
        )
        self.table_order = [self.schema.table(t).name for t in table_order]
        self.desired: list[Entity] = []
        self._index: DesiredIndex | None = None  # of `desired`, made by the first sync
        # what this controller last wrote and the switch holds, None: not known (see update)
        self.written: list[Entity] | None = None
        self.lock = threading.RLock()
        self.session: P4RuntimeSession | None = None
        self.counts = _Counts()

    @property
    def name(self) -> str:
        return self.target.name

    # ------------------------------------------------------------ connection
    def connect(self, timeout: float = 10.0) -> P4RuntimeSession:
        """The session (opened and primary); reopened when the previous one ended."""
        with self.lock:
            if self.session is not None and self.connected:
                return self.session
            self.disconnect()
            s = P4RuntimeSession(
                self.target.address,
                self.target.device_id,
                self.election_id,
                p4info=self.pipeline.p4info,
                rpc_timeout=self.rpc_timeout,
            )
            s.connect(timeout=timeout)
            self.session = s
            self.written = None  # a new session: the switch may have restarted
            return s

    @property
    def connected(self) -> bool:
        """True while the session's stream is open (False once the switch went away)."""
        s = self.session
        return s is not None and s.stream_open

    def disconnect(self) -> None:
        with self.lock:
            if self.session is not None:
                self.session.close()
                self.session = None

    # ------------------------------------------------------------ state
    def set_desired(self, entities: Iterable[Entity]) -> None:
        with self.lock:
            self.desired = list(entities)

    def overlay(self, entities: Iterable[Entity]) -> None:
        """`entities` were written over their namesakes (same identity): the desired state
        and the ledger (when known) hold them in their place from now on."""
        new = {identity(e): e for e in entities}
        with self.lock:
            self.set_desired([new.get(identity(e), e) for e in self.desired])
            if self.written is not None:
                self.written = [new.get(identity(e), e) for e in self.written]

    def read_managed(self) -> list[Entity]:
        """Everything the switch holds of what the controller manages."""
        s = self.connect()
        defaults = sorted(
            {e.table for e in self.desired if isinstance(e, TableEntry) and e.is_default}
        )
        return [codec.decode_entity(s.schema, m) for m in self._read_messages(s, defaults)]

    def _read_messages(self, s: P4RuntimeSession, defaults: Sequence[str]) -> list[p4r.Entity]:
        """One Read of the managed entities (wildcards) and the default entries of the
        tables `defaults`, as the switch sent them."""
        queries = wildcards(self.managed_tables, self.profiles)
        queries += [TableEntry(t, is_default=True) for t in defaults]
        return list(s.read_messages(*queries))

    def _desired_index(self) -> DesiredIndex:
        """The index of `desired` (made again when `desired` was replaced: `set_desired`
        and `update` replace the list, never change it)."""
        index = self._index
        if index is None or index.desired is not self.desired or index.size != len(self.desired):
            index = self._index = DesiredIndex(self.desired, self.read_keys)
        return index

    def plan(self) -> Plan:
        with self.lock:
            return plan(self.desired, self.read_managed())

    def sync(self, connect_timeout: float = 10.0, south: Southbound | None = None) -> SyncResult:
        """Connect, push the pipeline if needed, read back, and write the difference
        through `south` (the fabric's southbound; this switch's own session by default)."""
        t0 = time.perf_counter()
        with self.lock:
            s = self.connect(connect_timeout)
            self.written = None
            pushed = s.ensure_pipeline(
                self.pipeline.p4info, self.pipeline.device_config, cookie=self.pipeline.cookie
            )
            index = self._desired_index()
            actual = self._read_messages(s, index.defaults)
            p = index.plan(actual, lambda m: codec.decode_entity(s.schema, m))
            phases = p.phases(self.table_order)
            write_all(south if south is not None else _Own(self), {self.name: phases})
            writes = self.rpcs(phases)
            self.written = list(self.desired)
            res = self._record(
                len(p.inserts), len(p.modifies), len(p.deletes), pushed, writes, len(actual), t0
            )
        self._log(res)
        return res

    def ledger(self) -> list[Entity] | None:
        """What this controller last wrote and the switch holds (see the module docstring);
        None when that is not known: never synced, no open session, or a failed write."""
        with self.lock:
            if self.session is None or not self.connected:
                return None
            return self.written

    def batches(self, updates: Sequence[Update]) -> list[Sequence[Update]]:
        """`updates` in order, cut into Write RPCs of at most `batch_size` each."""
        n = self.batch_size
        return [updates[i : i + n] for i in range(0, len(updates), n)]

    def rpcs(self, phases: Sequence[Sequence[Update]]) -> int:
        """The Write RPCs `phases` take (each phase in its own `batches`)."""
        return sum(len(self.batches(phase)) for phase in phases)

    def wrote(self, phases: Sequence[Sequence[Update]], t0: float) -> SyncResult:
        """The desired state was written as `phases` (an update begun at `t0`, nothing read
        back): the ledger holds it now, and the counts say so."""
        with self.lock:
            self.written = list(self.desired)
            kinds = Counter(u.type for phase in phases for u in phase)
            res = self._record(
                kinds[UpdateType.INSERT],
                kinds[UpdateType.MODIFY],
                kinds[UpdateType.DELETE],
                False,
                self.rpcs(phases),
                0,
                t0,
            )
        self._log(res)
        return res

    def write(self, updates: Sequence[Update]) -> None:
        """Write `updates` in order on the primary session (opened if needed), in Write
        RPCs of at most `batch_size` each (`batches`)."""
        s = self.connect()
        for batch in self.batches(updates):
            s.write(batch)

    def _record(
        self,
        inserted: int,
        modified: int,
        deleted: int,
        pushed: bool,
        writes: int,
        read: int,
        t0: float,
    ) -> SyncResult:
        res = SyncResult(
            self.name,
            pushed,
            inserted,
            modified,
            deleted,
            writes,
            read,
            time.perf_counter() - t0,
        )
        self.counts.writes += writes
        self.counts.updates += res.changed
        self.counts.history.append(res)
        del self.counts.history[:-16]
        return res

    def _log(self, res: SyncResult) -> None:
        if res.changed:
            log.info(
                "%s: +%d ~%d -%d in %d write(s)%s",
                self.name,
                res.inserted,
                res.modified,
                res.deleted,
                res.writes,
                " after a pipeline push" if res.pipeline_pushed else "",
            )

    def pipeline_lost(self) -> bool:
        """True when the switch does not run our pipeline (restarted, or reprogrammed)."""
        try:
            cookie = self.connect(2.0).get_pipeline("COOKIE_ONLY").cookie
        except P4RuntimeError:
            return True
        return cookie != self.pipeline.cookie


class _Own:
    """One switch's own session as a `core.Southbound` (a sync outside a fabric)."""

    def __init__(self, sw: ManagedSwitch) -> None:
        self.sw = sw

    def write(self, switch: str, updates: Sequence[Update]) -> None:
        self.sw.write(updates)

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]:
        return list(self.sw.connect().read(*entities))
