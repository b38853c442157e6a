"""P4Runtime entities <-> one softswitch `Switch`.

    store = EntityStore(switch, p4info)
    store.write(update)                 # raises P4RuntimeError(code, message)
    for entity in store.read(entity):   # wildcards as the spec's Read section defines
        ...
    store.reconcile_into(new_store)     # RECONCILE_AND_COMMIT
    store.digest_config(digest_id)      # DigestEntry.Config or None
    token = store.snapshot(); ...; store.restore(token)   # atomic Write batches

One module per entity family (`tables`, `profiles`, `counters`, `meters`, `registers`,
`pre`, `value_sets`, `digests`); `codec` turns bytestrings, matches and actions into
engine values and back; `info` indexes the P4Info. Every error carries the canonical code
the P4Runtime specification prescribes; each module's docstring lists its rules. Errors of
the engine (`softswitch.engine.errors`) are converted with `from_switch_error`.

A write either succeeds completely or leaves the switch as it was. Reads are generators:
their errors surface while iterating.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from p4rt_proto import p4info_pb2, p4runtime_pb2

from ...engine.errors import SwitchError
from ..errors import P4RuntimeError, from_switch_error
from .codec import Code, fail
from .counters import Counters
from .digests import Digests
from .info import P4InfoIndex
from .meters import Meters
from .pre import Pre
from .profiles import Profiles
from .registers import Registers
from .tables import Tables
from .value_sets import ValueSets

if TYPE_CHECKING:
    from .snapshot import Snapshot

__all__ = ["EntityStore", "P4InfoIndex"]


class EntityStore:
    """Applies P4Runtime updates to one softswitch Switch and reads entities back."""

    def __init__(self, switch: Any, p4info: p4info_pb2.P4Info) -> None:
        self.switch = switch
        self.p4info = p4info
        self.index = P4InfoIndex.build(p4info, switch)
        self.profiles = Profiles(self)
        self.tables = Tables(self)
        self.counters = Counters(self)
        self.meters = Meters(self)
        self.registers = Registers(self)
        self.pre = Pre(self)
        self.value_sets = ValueSets(self)
        self.digests = Digests(self)
        # runs of plain table entry INSERTs and DELETEs (fast_tables.py): the index of the
        # first update it declined, for `write`; `settle()` must follow before packets run
        self.write_run: Callable[[Any, int, int, list[P4RuntimeError | None]], int] = (
            self.tables.fast.write_run
        )
        self.settle: Callable[[], None] = self.tables.fast.settle
        self._writers: dict[str, Callable[[int, Any], None]] = {
            "table_entry": self.tables.write,
            "action_profile_member": self.profiles.write_member,
            "action_profile_group": self.profiles.write_group,
            "counter_entry": self.counters.write,
            "direct_counter_entry": self.counters.write_direct,
            "meter_entry": self.meters.write,
            "direct_meter_entry": self.meters.write_direct,
            "register_entry": self.registers.write,
            "packet_replication_engine_entry": self.pre.write,
            "value_set_entry": self.value_sets.write,
            "digest_entry": self.digests.write,
        }
        self._readers: dict[str, Callable[[Any], Iterator[Any]]] = {
            "table_entry": self.tables.read,
            "action_profile_member": self.profiles.read_members,
            "action_profile_group": self.profiles.read_groups,
            "counter_entry": self.counters.read,
            "direct_counter_entry": self.counters.read_direct,
            "meter_entry": self.meters.read,
            "direct_meter_entry": self.meters.read_direct,
            "register_entry": self.registers.read,
            "packet_replication_engine_entry": self.pre.read,
            "value_set_entry": self.value_sets.read,
            "digest_entry": self.digests.read,
        }

    def write(self, update: p4runtime_pb2.Update) -> None:
        """INSERT/MODIFY/DELETE of one entity; raises P4RuntimeError with the spec's code."""
        kind = update.entity.WhichOneof("entity")
        if kind is None:
            raise fail(Code.INVALID_ARGUMENT, "update without an entity")
        if update.type == p4runtime_pb2.Update.UNSPECIFIED:
            raise fail(Code.INVALID_ARGUMENT, "update type unspecified")
        writer = self._writers.get(kind)
        if writer is None:
            raise fail(Code.UNIMPLEMENTED, f"{kind} is not supported for v1model")
        try:
            writer(update.type, getattr(update.entity, kind))
        except SwitchError as e:
            raise from_switch_error(e) from e

    def read(self, entity: p4runtime_pb2.Entity) -> Iterator[p4runtime_pb2.Entity]:
        """All entities matching the (possibly wildcard) request entity."""
        kind = entity.WhichOneof("entity")
        if kind is None:
            raise fail(Code.INVALID_ARGUMENT, "read of an empty entity")
        reader = self._readers.get(kind)
        if reader is None:
            raise fail(Code.UNIMPLEMENTED, f"{kind} is not supported for v1model")
        try:
            for msg in reader(getattr(entity, kind)):
                out = p4runtime_pb2.Entity()
                getattr(out, kind).CopyFrom(msg)
                yield out
        except SwitchError as e:
            raise from_switch_error(e) from e

    def digest_config(self, digest_id: int) -> p4runtime_pb2.DigestEntry.Config | None:
        """The configuration of an enabled digest (DigestEntry INSERT/MODIFY), else None."""
        return self.digests.config(digest_id)

    def snapshot(self) -> Snapshot:
        """A copy of all P4Runtime-visible state, for `restore` (atomic Write batches)."""
        from .snapshot import take  # only atomic batches need it: not loaded at start-up

        return take(self)

    def restore(self, token: Snapshot) -> None:
        """Put the switch and the store back as they were at `snapshot()`."""
        from .snapshot import restore

        restore(self, token)

    def try_write(self, utype: int, kind: str, msg: Any) -> bool:
        """Write one entity, reporting failure instead of raising (used by reconcile)."""
        update = p4runtime_pb2.Update(type=utype)
        getattr(update.entity, kind).CopyFrom(msg)
        try:
            self.write(update)
        except P4RuntimeError:
            return False
        return True

    def reconcile_into(self, new_store: EntityStore) -> None:
        """RECONCILE_AND_COMMIT: re-insert into `new_store` every entity that still fits
        its P4Info (same names, values that fit, referenced members and groups kept);
        drop the rest. Members and groups go first, then table entries, then the rest."""
        self.profiles.reconcile_into(new_store)
        self.tables.reconcile_into(new_store)
        self.counters.reconcile_into(new_store)
        self.meters.reconcile_into(new_store)
        self.registers.reconcile_into(new_store)
        self.pre.reconcile_into(new_store)
        self.value_sets.reconcile_into(new_store)
        self.digests.reconcile_into(new_store)
