"""`TableEntry`: match entries, default entries, direct resources, idle timeout.

Spec sections followed ("P4 Entity Messages" > "TableEntry"):

* Match Format / Action Specification: see `codec`. Priority must be > 0 when the key has
  a ternary, range or optional field and 0 otherwise (INVALID_ARGUMENT).
* Default Entry: only MODIFY (INSERT/DELETE: INVALID_ARGUMENT), no match, priority 0 and
  no idle timeout; MODIFY without an action resets it to the program's default (with its
  metadata and meter configuration); a `const` default action gives PERMISSION_DENIED, and
  so does any default of an indirect table (restricted to the program's constant one).
* Constant Tables: INSERT/DELETE give PERMISSION_DENIED, so does a MODIFY that names an
  action; a MODIFY without action only updates direct resources. Entries marked const in a
  preinitialised table follow the same rules. Reads set `is_const` on them.
* Direct Resources: `counter_data` sets the direct counter (MODIFY: unchanged when unset);
  `meter_config` configures the direct meter (MODIFY: reset to "all GREEN" when unset);
  both are INVALID_ARGUMENT on a table without that resource; per-colour
  `meter_counter_data` is UNIMPLEMENTED. A MODIFY without action changes nothing else.
* Idle-timeout: `idle_timeout_ns` is stored and read back as written (INVALID_ARGUMENT
  on a table without `support_timeout`); `time_since_last_hit` must be unset in writes and
  is answered in reads when asked for.
* Wildcard Reads: table_id 0 reads every table; filters on match, priority, action id,
  controller_metadata, metadata and is_default_action.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from p4rt_proto import p4runtime_pb2

from ...engine import matches as M
from ...engine.errors import NotFound, SwitchError
from ...engine.tables import Entry, Table
from .codec import Code, decode_action, decode_matches, encode_action, encode_matches, fail
from .fast_tables import FastTables
from .info import TableInfo
from .profiles import OneShot

INSERT, MODIFY, DELETE = (
    p4runtime_pb2.Update.INSERT,
    p4runtime_pb2.Update.MODIFY,
    p4runtime_pb2.Update.DELETE,
)

__all__ = ["Tables"]


@dataclass(slots=True)
class _Extra:
    """What an engine entry does not hold: opaque cookies and the one-shot group."""

    controller_metadata: int = 0
    metadata: bytes = b""
    oneshot: OneShot | None = None


@dataclass(slots=True)
class _Target:
    """The action part of a write: a direct action, a member, a group or a one-shot set."""

    action: str = ""
    args: tuple[int, ...] = ()
    member: int | None = None
    group: int | None = None
    oneshot: list[Any] | None = None  # validated one-shot actions, not created yet


class Tables:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index
        self.extra: dict[Entry, _Extra] = {}  # Entry hashes by identity
        self.default_extra: dict[str, _Extra] = {}
        self.default_modified: set[str] = set()
        self.fast = FastTables(self)  # plain INSERTs and DELETEs in one pass

    # ------------------------------------------------------------ lookup helpers
    def table(self, table_id: int, what: str = "table entry") -> tuple[TableInfo, Table]:
        t = self.index.tables.get(table_id)
        if t is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown table id {table_id}")
        engine = self.switch.tables.get(t.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"table {t.name} is not instantiated")
        return t, engine

    def key(self, t: TableInfo, te: Any) -> tuple[tuple[M.Match, ...], int]:
        """Decoded match and checked priority of a (non-default) entry."""
        matches = decode_matches(t.fields, t.order, te.match, t.name)
        if t.has_priority:
            if te.priority <= 0:
                raise fail(Code.INVALID_ARGUMENT, f"{t.name}: entries need a priority > 0")
        elif te.priority != 0:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: entries take no priority")
        return matches, te.priority

    def locate(self, te: Any, what: str) -> tuple[TableInfo, Table, Entry, bool]:
        """The one entry a key names (`is_default_action` for the default): NOT_FOUND."""
        if te.table_id == 0:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: table id missing")
        t, engine = self.table(te.table_id, what)
        if te.is_default_action:
            self._check_default_key(t, te)
            return t, engine, engine.default, True
        matches, prio = self.key(t, te)
        return t, engine, engine.find(matches, prio), False

    def select(self, te: Any) -> Iterator[tuple[TableInfo, Table, Entry, bool]]:
        """Entries a (possibly wildcard) read request names, with the spec's filters."""
        if te.table_id == 0:
            if te.match or te.HasField("action"):
                raise fail(Code.INVALID_ARGUMENT, "a read of all tables takes no match/action")
            tables = [(t, self.switch.tables.get(t.name)) for t in self.index.tables.values()]
        else:
            tables = [self.table(te.table_id, "read")]
        action_filter = ""
        if te.HasField("action") and te.action.action.action_id:
            a = self.index.actions.get(te.action.action.action_id)
            if a is None:
                raise fail(
                    Code.INVALID_ARGUMENT, f"read: unknown action id {te.action.action.action_id}"
                )
            action_filter = a.name
        for t, engine in tables:
            if engine is None:
                continue
            if te.is_default_action:
                extra = self.default_extra.get(t.name, _Extra())
                if self._passes(te, extra, engine.default, action_filter, default=True):
                    yield t, engine, engine.default, True
                continue
            for e in self._candidates(t, engine, te):
                extra = self.extra.get(e, _Extra())
                if self._passes(te, extra, e, action_filter, default=False):
                    yield t, engine, e, False

    def _candidates(self, t: TableInfo, engine: Table, te: Any) -> list[Entry]:
        if not te.match:
            return list(engine.entries.values())
        matches = decode_matches(t.fields, t.order, te.match, t.name)
        if not t.has_priority or te.priority:
            try:
                return [engine.find(matches, te.priority)]
            except NotFound:
                return []
        canon = engine.canonical(matches)
        return [e for e in engine.entries.values() if e.matches == canon]

    @staticmethod
    def _passes(te: Any, extra: _Extra, e: Entry, action: str, default: bool) -> bool:
        if te.priority and not default and e.priority != te.priority:
            return False
        if te.controller_metadata and extra.controller_metadata != te.controller_metadata:
            return False
        if te.metadata and extra.metadata != te.metadata:
            return False
        return not action or (e.member is None and e.group is None and e.action == action)

    # ------------------------------------------------------------ writes
    def write(self, utype: int, te: Any) -> None:
        if self.fast.write(utype, te):
            return
        if te.table_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "table entry: table id missing")
        t, engine = self.table(te.table_id)
        if utype == DELETE:
            self._delete(t, engine, te)
            return
        if utype not in (INSERT, MODIFY):
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: unknown update type {utype}")
        if te.is_const:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: is_const must be false in writes")
        if te.HasField("time_since_last_hit"):
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: time_since_last_hit is read-only")
        if te.HasField("meter_counter_data"):
            raise fail(Code.UNIMPLEMENTED, f"{t.name}: per-colour meter counters")
        if te.is_default_action:
            if utype != MODIFY:
                raise fail(
                    Code.INVALID_ARGUMENT, f"{t.name}: the default entry can only be modified"
                )
            self._write_default(t, engine, te)
            return
        if te.idle_timeout_ns < 0 or (te.idle_timeout_ns and not t.idle_timeout):
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: no idle timeout for this table")
        if utype == INSERT:
            self._insert(t, engine, te)
        else:
            self._modify(t, engine, te)

    def _insert(self, t: TableInfo, engine: Table, te: Any) -> None:
        if t.is_const:
            raise fail(Code.PERMISSION_DENIED, f"{t.name} is a constant table")
        if not t.order:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no key: only its default entry")
        matches, prio = self.key(t, te)
        if not te.HasField("action"):
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: INSERT needs an action")
        target = self._target(t, te.action, default=False)
        counters = self._counter_data(t, te)
        meter = self._meter_config(t, te)
        oneshot = self._create_oneshot(t, target)
        try:
            e = engine.add(
                matches,
                target.action,
                target.args,
                prio,
                member=target.member,
                group=target.group,
                checked=True,
            )
        except SwitchError:
            if oneshot is not None:
                self.store.profiles.oneshot_release(oneshot)
            raise
        e.timeout_ns = te.idle_timeout_ns
        e.last_hit_us = self.switch.clock.now_us()
        if counters is not None:
            e.packets, e.bytes = counters
        self._set_meter(engine, e, meter)
        if te.controller_metadata or te.metadata or oneshot is not None:
            self.extra[e] = _Extra(te.controller_metadata, te.metadata, oneshot)

    def remember(self, e: Entry, controller_metadata: int, metadata: bytes) -> None:
        """Keep the cookies of a newly inserted entry (for reads)."""
        self.extra[e] = _Extra(controller_metadata, metadata)

    def _modify(self, t: TableInfo, engine: Table, te: Any) -> None:
        matches, prio = self.key(t, te)
        e = engine.find(matches, prio)
        has_action = te.HasField("action")
        if (t.is_const or e.const) and has_action:
            raise fail(Code.PERMISSION_DENIED, f"{t.name}: constant entries keep their action")
        target = self._target(t, te.action, default=False) if has_action else None
        counters = self._counter_data(t, te)
        meter = self._meter_config(t, te)
        if target is not None:
            extra = self.extra.setdefault(e, _Extra())
            oneshot = self._create_oneshot(t, target)
            try:
                engine.modify(
                    matches,
                    target.action,
                    target.args,
                    prio,
                    member=target.member,
                    group=target.group,
                )
            except SwitchError:
                if oneshot is not None:
                    self.store.profiles.oneshot_release(oneshot)
                raise
            if extra.oneshot is not None:
                self.store.profiles.oneshot_release(extra.oneshot)
            extra.oneshot = oneshot
            extra.controller_metadata = te.controller_metadata
            extra.metadata = te.metadata
            e.timeout_ns = te.idle_timeout_ns
        if counters is not None:
            e.packets, e.bytes = counters
        self._set_meter(engine, e, meter)

    def _delete(self, t: TableInfo, engine: Table, te: Any) -> None:
        if te.is_default_action:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: the default entry cannot be deleted")
        if t.is_const:
            raise fail(Code.PERMISSION_DENIED, f"{t.name} is a constant table")
        matches, prio = self.key(t, te)
        e = engine.delete(matches, prio)
        extra = self.extra.pop(e, None)
        if extra is not None and extra.oneshot is not None:
            self.store.profiles.oneshot_release(extra.oneshot)

    def _check_default_key(self, t: TableInfo, te: Any) -> None:
        if te.match or te.priority:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: the default entry has no match/priority")

    def _write_default(self, t: TableInfo, engine: Table, te: Any) -> None:
        self._check_default_key(t, te)
        if te.idle_timeout_ns:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: no idle timeout for the default entry")
        if t.const_default:
            raise fail(Code.PERMISSION_DENIED, f"{t.name}: the default action is constant")
        if t.profile:
            raise fail(
                Code.PERMISSION_DENIED, f"{t.name}: the default entry of an indirect table is fixed"
            )
        counters = self._counter_data(t, te)
        meter = self._meter_config(t, te)
        if te.HasField("action"):
            target = self._target(t, te.action, default=True)
            engine.set_default(target.action, target.args)
            self.default_extra[t.name] = _Extra(te.controller_metadata, te.metadata)
            self.default_modified.add(t.name)
        else:
            engine.reset_default()
            self.default_extra.pop(t.name, None)
            self.default_modified.discard(t.name)
        if counters is not None:
            engine.default.packets, engine.default.bytes = counters
        self._set_meter(engine, engine.default, meter)

    # ------------------------------------------------------------ parts of a write
    def _target(self, t: TableInfo, ta: Any, default: bool) -> _Target:
        kind = ta.WhichOneof("type")
        profiles = self.store.profiles
        if kind == "action":
            if t.profile:
                raise fail(Code.INVALID_ARGUMENT, f"{t.name} is indirect: give a member or group")
            a, args = decode_action(self.index, ta.action, t.name)
            check_scope(t, a.id, a.name, default)
            return _Target(a.name, args)
        if kind is None:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name}: empty table action")
        if not t.profile:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name} is a direct table: give an action")
        if kind == "action_profile_member_id":
            profiles.check_member_ref(t.profile, ta.action_profile_member_id)
            return _Target(member=ta.action_profile_member_id)
        if kind == "action_profile_group_id":
            profiles.check_group_ref(t.profile, ta.action_profile_group_id)
            return _Target(group=ta.action_profile_group_id)
        if kind == "action_profile_action_set":
            actions = profiles.oneshot_prepare(t, ta.action_profile_action_set)
            return _Target(oneshot=actions)
        raise fail(Code.INVALID_ARGUMENT, f"{t.name}: unsupported table action {kind}")

    def _create_oneshot(self, t: TableInfo, target: _Target) -> OneShot | None:
        if target.oneshot is None:
            return None
        oneshot = self.store.profiles.oneshot_create(t.profile, target.oneshot)
        target.group = oneshot.group
        return oneshot

    def _counter_data(self, t: TableInfo, te: Any) -> tuple[int, int] | None:
        if not te.HasField("counter_data"):
            return None
        if not t.direct_counter:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct counter")
        return self.store.counters.values_of(te.counter_data, t.name)

    def _meter_config(self, t: TableInfo, te: Any) -> tuple[int, int, int, int] | None:
        if not t.direct_meter:
            if te.HasField("meter_config"):
                raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct meter")
            return None
        if not te.HasField("meter_config"):
            return None
        info = self.index.direct_meters[t.direct_meter]
        return self.store.meters.rates_of(te.meter_config, info.meter_type, t.name)

    def _set_meter(self, engine: Table, e: Entry, rates: tuple[int, int, int, int] | None) -> None:
        """Configure (or, with None, reset) the direct meter of `e` if the table has one."""
        dm = engine.direct_meter
        if dm is None:
            return
        if rates is None:
            e.meter = None
        else:
            dm.configure_entry(e, *rates)

    # ------------------------------------------------------------ reads
    def read(self, te: Any) -> Iterator[Any]:
        if te.HasField("meter_counter_data"):
            raise fail(Code.UNIMPLEMENTED, "per-colour meter counters")
        for t, engine, e, default in self.select(te):
            yield self.encode(t, engine, e, default, te)

    def encode(self, t: TableInfo, engine: Table, e: Entry, default: bool, req: Any) -> Any:
        out = p4runtime_pb2.TableEntry(table_id=t.id)
        if default:
            out.is_default_action = True
            extra = self.default_extra.get(t.name, _Extra())
        else:
            encode_matches(t.order, e.matches, out.match)
            if t.has_priority:
                out.priority = e.priority
            extra = self.extra.get(e, _Extra())
            if e.const:
                out.is_const = True
            if t.idle_timeout:
                out.idle_timeout_ns = e.timeout_ns
        if extra.oneshot is not None:
            self.store.profiles.oneshot_encode(extra.oneshot, out.action.action_profile_action_set)
        elif e.group is not None:
            out.action.action_profile_group_id = e.group
        elif e.member is not None:
            out.action.action_profile_member_id = e.member
        elif e.action:
            a = self.index.action_names.get(e.action)
            if a is not None:
                encode_action(a, e.args, out.action.action)
        out.controller_metadata = extra.controller_metadata
        out.metadata = extra.metadata
        if req is not None and req.HasField("counter_data") and t.direct_counter:
            out.counter_data.packet_count = e.packets
            out.counter_data.byte_count = e.bytes
        if req is not None and req.HasField("meter_config") and e.meter is not None:
            cfg = self.store.meters.config_of(e.meter)
            if cfg is not None:
                out.meter_config.CopyFrom(cfg)
        if req is not None and req.HasField("time_since_last_hit") and not default:
            now = self.switch.clock.now_us()
            out.time_since_last_hit.elapsed_ns = max(0, now - e.last_hit_us) * 1000
        return out

    def key_message(self, t: TableInfo, e: Entry, default: bool) -> Any:
        """The key part of an entry (for DirectCounterEntry / DirectMeterEntry replies)."""
        out = p4runtime_pb2.TableEntry(table_id=t.id)
        if default:
            out.is_default_action = True
        else:
            encode_matches(t.order, e.matches, out.match)
            if t.has_priority:
                out.priority = e.priority
        return out

    # ------------------------------------------------------------ reconcile
    def reconcile_into(self, new: Any) -> None:
        """Re-insert every client-written entry (and modified default) that the new P4Info
        still accepts, ids translated by name; drop the rest."""
        from .reconcile import remap_table_entry

        want = p4runtime_pb2.TableEntry(table_id=0)
        want.counter_data.SetInParent()
        want.meter_config.SetInParent()
        for t in self.index.tables.values():
            engine = self.switch.tables.get(t.name)
            if engine is None:
                continue
            entries = [e for e in engine.entries.values() if not e.const]
            for e in entries:
                msg = self.encode(t, engine, e, False, want)
                moved = remap_table_entry(self.index, new.index, msg)
                if moved is not None:
                    new.try_write(INSERT, "table_entry", moved)
            if t.name in self.default_modified:
                msg = self.encode(t, engine, engine.default, True, want)
                moved = remap_table_entry(self.index, new.index, msg)
                if moved is not None:
                    new.try_write(MODIFY, "table_entry", moved)


def check_scope(t: TableInfo, action_id: int, name: str, default: bool) -> None:
    """The action belongs to the table (INVALID_ARGUMENT) in the right scope
    (PERMISSION_DENIED, "Action Specification")."""
    scope = t.scopes.get(action_id)
    if scope is None:
        raise fail(Code.INVALID_ARGUMENT, f"{name} is not an action of {t.name}")
    if default and scope == "TABLE_ONLY":
        raise fail(Code.PERMISSION_DENIED, f"{name} cannot be the default action of {t.name}")
    if not default and scope == "DEFAULT_ONLY":
        raise fail(Code.PERMISSION_DENIED, f"{name} can only be the default action of {t.name}")
