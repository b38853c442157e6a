"""Table entry INSERTs and DELETEs of the common kind, decoded in one pass per update.

Most of what a controller writes is plain entries: a match, a priority where the key
needs one, a direct action (nothing for a DELETE), no direct resource data (counter_data,
meter_config), no idle timeout, into a table that is neither constant nor indirect and
has no direct meter (a direct counter is fine: its entries start at zero). `FastTables`
writes runs of those:

* per table, once per pipeline, a `_Plan`: a key decoder made for the table's key (one
  exact field, one lpm field, or any mix of match kinds), per action the parameter ids
  and widths in declaration order, and the table's INSERT and DELETE functions, generated
  with all of these as constants (`fast_source`);
* per update, each protobuf field is read once (a sub-message that is not set reads as
  empty, and every value must be a non-empty bytestring, so a match or an action of
  another kind than the one expected is declined without asking which one is set), and
  the entry goes to the engine already canonical (`Table.add_plain`: one hash of its key;
  `Table.delete_plain`);
* per run of updates, the changed tables' lookups are rebuilt once (`settle`), and the
  inserted entries share one insertion time.

It only ever accepts an update that the general path (`tables.Tables`) would accept with
the same result. On anything else — another entity shape, an unknown id, a value that does
not fit, a don't-care match that should have been omitted, a missing parameter — it
declines before changing anything, and the general path handles the update from the start
and raises the error the specification prescribes. Errors of the engine itself (the entry
exists, the table is full, no such entry) are raised by the same engine check either path
makes, and reported for that update alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p4rt_proto import p4runtime_pb2

from ...engine import matches as M
from ...engine.errors import SwitchError
from ..errors import P4RuntimeError, from_switch_error
from .fast_source import delete_function, insert_function
from .fast_wire import dispatch_key, wire_insert_function
from .info import ActionInfo, FieldInfo, TableInfo

__all__ = ["FastTables"]

INSERT, DELETE = p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.DELETE
_KINDS = ("exact", "lpm", "ternary", "range", "optional")
_WILDCARD = M.Wildcard()
_Exact, _Lpm, _Ternary, _Range, _Optional = M.Exact, M.Lpm, M.Ternary, M.Range, M.Optional
_from_bytes = int.from_bytes

# TableEntry -> its canonical matches in key order, or None to decline
KeyDecoder = Callable[[Any], "tuple[M.Match, ...] | None"]


class _Action:
    """An action an entry may name: its parameters' ids and widths in declaration order."""

    __slots__ = ("by_id", "id", "name", "order")

    def __init__(self, a: ActionInfo) -> None:
        self.id = a.id
        self.name = a.name
        params = sorted(a.params, key=lambda p: p.position)
        self.order = tuple((p.id, p.bitwidth) for p in params)
        self.by_id = {p.id: (p.position, p.bitwidth) for p in params}

    def reordered(self, ps: Sequence[Any]) -> tuple[int, ...] | None:
        """The arguments in declaration order of `Action.params` given in any order, or
        None (a parameter unknown, missing or given twice, a value empty or too wide)."""
        if len(ps) != len(self.order):
            return None
        args = [0] * len(self.order)
        seen = 0
        for p in ps:
            spec = self.by_id.get(p.param_id)
            if spec is None:
                return None
            pos, w = spec
            bit = 1 << pos
            if seen & bit:
                return None  # given twice (so another one is missing)
            seen |= bit
            data = p.value
            v = _from_bytes(data, "big")
            if not data or v >> w:
                return None
            args[pos] = v
        return tuple(args)


def _one_exact(f: FieldInfo) -> KeyDecoder:
    fid, w = f.id, f.bitwidth

    def decode(te: Any) -> tuple[M.Match, ...] | None:
        ms = te.match
        if len(ms) != 1:
            return None
        fm = ms[0]
        data = fm.exact.value
        v = _from_bytes(data, "big")
        if fm.field_id != fid or not data or v >> w:
            return None
        return (_Exact(v),)

    return decode


def _one_lpm(f: FieldInfo) -> KeyDecoder:
    fid, w = f.id, f.bitwidth
    beyond = [(1 << (w - plen)) - 1 for plen in range(w + 1)]  # bits past the prefix

    def decode(te: Any) -> tuple[M.Match, ...] | None:
        ms = te.match
        if len(ms) != 1:
            return None  # a don't-care lpm field (omitted): the general path
        fm = ms[0]
        lpm = fm.lpm
        data, plen = lpm.value, lpm.prefix_len
        v = _from_bytes(data, "big")
        if fm.field_id != fid or not data or not 0 < plen <= w or v >> w or v & beyond[plen]:
            return None
        return (_Lpm(v, plen),)

    return decode


def _any_key(order: tuple[FieldInfo, ...]) -> KeyDecoder:
    """A key of several fields, of any match kinds, given in any order."""
    nfields = len(order)
    fields = {f.id: (f.position, f.kind, f.bitwidth) for f in order}
    # omitted fields: Wildcard, except exact ones, which must be given
    template: list[M.Match | None] = [None if f.kind == "exact" else _WILDCARD for f in order]
    required = sum(1 for f in order if f.kind == "exact")

    def decode(te: Any) -> tuple[M.Match, ...] | None:  # noqa: C901 - one case per kind
        ms = te.match
        n = len(ms)
        if n < required:
            return None
        out = list(template)
        seen = 0
        for i in range(n):  # indexing a repeated field is cheaper than iterating it
            fm = ms[i]
            spec = fields.get(fm.field_id)
            if spec is None:
                return None
            pos, kind, w = spec
            bit = 1 << pos
            if seen & bit:
                return None
            seen |= bit
            if kind == "exact":
                data = fm.exact.value
                v = _from_bytes(data, "big")
                if not data or v >> w:
                    return None
                out[pos] = _Exact(v)
            elif kind == "lpm":
                lpm = fm.lpm
                data, plen = lpm.value, lpm.prefix_len
                v = _from_bytes(data, "big")
                if not data or not 0 < plen <= w or v >> w or v & ((1 << (w - plen)) - 1):
                    return None
                out[pos] = _Lpm(v, plen)
            elif kind == "ternary":
                tern = fm.ternary
                data, mdata = tern.value, tern.mask
                v = _from_bytes(data, "big")
                mask = _from_bytes(mdata, "big")
                if not data or not mdata or v >> w or mask >> w or not mask or v & ~mask:
                    return None
                out[pos] = _Ternary(v, mask)
            elif kind == "range":
                rng = fm.range
                ldata, hdata = rng.low, rng.high
                lo = _from_bytes(ldata, "big")
                hi = _from_bytes(hdata, "big")
                if not ldata or not hdata or lo >> w or hi >> w or lo > hi:
                    return None
                if lo == 0 and hi == (1 << w) - 1:
                    return None
                out[pos] = _Range(lo, hi)
            else:  # optional
                data = fm.optional.value
                v = _from_bytes(data, "big")
                if not data or v >> w:
                    return None
                out[pos] = _Optional(v)
        if n < nfields and None in out:
            return None
        return tuple(out)  # type: ignore[arg-type]

    return decode


def _key_decoder(order: tuple[FieldInfo, ...]) -> KeyDecoder:
    if len(order) == 1 and order[0].kind == "exact":
        return _one_exact(order[0])
    if len(order) == 1 and order[0].kind == "lpm":
        return _one_lpm(order[0])
    return _any_key(order)


class _Plan:
    """What one table's fast writes need, resolved once per pipeline. `insert(te, now_us)`
    and `delete(te)` (generated by `fast_source`) carry out a plain INSERT or DELETE and
    return True, or change nothing and return False; engine errors (SwitchError) leave
    the table as it was."""

    __slots__ = ("delete", "engine", "insert", "stale", "wire_insert")

    def __init__(
        self, t: TableInfo, engine: Any, actions: dict[int, ActionInfo], fast: Any
    ) -> None:
        self.engine = engine
        self.stale = False  # changed without refreshing its lookup (see FastTables.settle)
        key = _key_decoder(t.order)
        # the actions an entry (not the default) may name
        allowed = [
            _Action(actions[aid])
            for aid, scope in t.scopes.items()
            if aid in actions and scope != "DEFAULT_ONLY"
        ]
        forms = [(a.id, a.name, a.order) for a in allowed]
        # the same INSERT read from the update's encoding, for one-field keys (fast_wire)
        self.wire_insert = wire_insert_function(
            t.id, t.order, forms, {"plan": self, "add": engine.add_plain}
        )
        self.insert = insert_function(
            t.order,
            t.has_priority,
            forms,
            {
                "plan": self,
                "key": key,
                "reorder": {a.id: a.reordered for a in allowed},
                "add": engine.add_plain,
                "remember": fast.tables.remember,
            },
        )
        # `extra` is the store's dict itself (mutated, never rebound): forget is called
        # only when it holds something
        self.delete = delete_function(
            t.order,
            t.has_priority,
            {
                "plan": self,
                "key": key,
                "remove": engine.delete_plain,
                "extra": fast.tables.extra,
                "forget": fast.forget,
            },
        )


class FastTables:
    """The fast path of `Tables.write` (see the module docstring)."""

    def __init__(self, tables: Any) -> None:
        self.tables = tables
        self.clock = tables.switch.clock
        self.plans: dict[int, _Plan] = {}
        # an INSERT's encoding at [6:11] (its table id) -> the table's fast_wire INSERT
        self.wire: dict[bytes, Callable[[bytes, int], bool]] = {}
        for tid, t in tables.index.tables.items():
            engine = tables.switch.tables.get(t.name)
            if engine is None or not _plain(t, engine):
                continue
            plan = self.plans[tid] = _Plan(t, engine, tables.index.actions, self)
            if plan.wire_insert is not None:
                self.wire[dispatch_key(tid)] = plan.wire_insert

    def write(self, utype: int, te: Any) -> bool:
        """Carry out an INSERT or DELETE of a plain entry, its table's lookup brought up
        to date, and return True; or change nothing and return False (the general path
        then handles the update)."""
        plan = self.plans.get(te.table_id)
        if plan is None:
            return False
        if utype == INSERT:
            done = plan.insert(te, self.clock.now_us())
        else:
            done = utype == DELETE and plan.delete(te)
        if done:
            self.settle()
        return done

    def write_run(
        self,
        updates: Sequence[Any],
        start: int,
        stop: int,
        errors: list[P4RuntimeError | None],
    ) -> int:
        """Write `updates[start:stop]` in order while they are plain table entry INSERTs
        and DELETEs, appending each one's outcome to `errors` (None, or the engine's error
        for that update alone), and return the index of the first update declined (`stop`
        if none was). Leaves the lookups of the tables it changed to `settle()`: call it
        before any packet runs."""
        plans = self.plans
        wire = self.wire
        use_wire = bool(wire)  # until an INSERT's table has no wire function
        now = self.clock.now_us()
        i = start
        while i < stop:
            u = updates[i]
            utype = u.type
            try:
                done = False
                if utype == INSERT and use_wire:  # the encoding first: no protobuf reads
                    b = u.SerializeToString()
                    insert = wire.get(b[6:11])
                    if insert is None:
                        use_wire = False  # the run's other INSERTs go the protobuf way
                    else:
                        done = insert(b, now)
                if not done:
                    te = u.entity.table_entry  # an empty entry (table id 0) for other entities
                    plan = plans.get(te.table_id)
                    if plan is None:
                        break
                    if utype == INSERT:
                        done = plan.insert(te, now)
                    elif utype == DELETE:
                        done = plan.delete(te)
                    if not done:
                        break
            except SwitchError as e:
                errors.append(from_switch_error(e))
            else:
                errors.append(None)
            i += 1
        return i

    def forget(self, e: Any) -> None:
        """Drop what the store kept beside a deleted entry (cookies, a one-shot group)."""
        extra = self.tables.extra
        if extra:
            kept = extra.pop(e, None)
            if kept is not None and kept.oneshot is not None:
                self.tables.store.profiles.oneshot_release(kept.oneshot)

    def settle(self) -> None:
        """Bring the lookups of the tables `write_run` changed up to date."""
        for plan in self.plans.values():
            if plan.stale:
                plan.stale = False
                plan.engine.refresh()


def _plain(t: TableInfo, engine: Any) -> bool:
    """A table whose entries the fast path may write: direct, not constant, with a key of
    standard match kinds, no direct meter, no idle timeout. A direct counter is allowed:
    an entry without counter_data (the fast path declines the others) starts at zero on
    either path."""
    return (
        not t.is_const
        and not t.profile
        and bool(t.order)
        and all(f.kind in _KINDS for f in t.order)
        and not t.direct_meter
        and not t.idle_timeout
        and engine.direct_meter is None
        and engine.profile is None
    )
