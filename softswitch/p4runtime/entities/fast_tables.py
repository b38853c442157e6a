"""Table entry INSERTs and DELETEs of the common kind, decoded in one pass.

Most of what a controller writes is plain entries: a match, a priority where the key
needs one, a direct action (nothing for a DELETE), no direct resources, no idle timeout,
into a table that is neither constant nor indirect. `FastTables` writes those with one
function per update: each table's match fields and actions are indexed once per pipeline,
every field is read from the message once, and the entry goes to the engine already
canonical (`checked=True`).

It only ever accepts an update that the general path (`tables.Tables`) would accept with
the same result. On anything else — another entity shape, an unknown id, a value that does
not fit, a don't-care match that should have been omitted, a missing parameter — it
declines (returns False) before changing anything, and the general path handles the
update from the start and raises the error the specification prescribes. Errors of the
engine itself (the entry exists, the table is full, no such entry) are raised by the same
engine call either path would make.
"""

from __future__ import annotations

from typing import Any

from p4rt_proto import p4runtime_pb2

from ...engine import matches as M
from .info import TableInfo

__all__ = ["FastTables"]

INSERT, DELETE = p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.DELETE
_KINDS = ("exact", "lpm", "ternary", "range", "optional")
_WILDCARD = M.Wildcard()
_Exact, _Lpm, _Ternary, _Range, _Optional = M.Exact, M.Lpm, M.Ternary, M.Range, M.Optional


class _Plan:
    """What one table's fast writes need, resolved once."""

    __slots__ = (
        "actions",
        "engine",
        "fields",
        "has_priority",
        "nfields",
        "required",
        "stale",
        "template",
    )

    def __init__(self, t: TableInfo, engine: Any, index: Any) -> None:
        self.engine = engine
        self.stale = False  # changed without refreshing its lookup (see FastTables.settle)
        self.has_priority = t.has_priority
        self.nfields = len(t.order)
        # field id -> (position in the key, kind, bitwidth)
        self.fields = {f.id: (f.position, f.kind, f.bitwidth) for f in t.order}
        # omitted fields: Wildcard, except exact ones, which must be given
        self.template: list[M.Match | None] = [
            None if f.kind == "exact" else _WILDCARD for f in t.order
        ]
        self.required = sum(1 for f in t.order if f.kind == "exact")
        # action id -> (name, {param id: (position, bitwidth)}, ((param id, bitwidth) in
        # declaration order)), for the actions an entry (not the default) may name
        self.actions: dict[
            int, tuple[str, dict[int, tuple[int, int]], tuple[tuple[int, int], ...]]
        ] = {}
        for aid, scope in t.scopes.items():
            a = index.actions.get(aid)
            if a is None or scope == "DEFAULT_ONLY":
                continue
            by_id = {p.id: (p.position, p.bitwidth) for p in a.params}
            order = tuple((p.id, p.bitwidth) for p in sorted(a.params, key=lambda p: p.position))
            self.actions[aid] = (a.name, by_id, order)

    def key(self, te: Any) -> tuple[tuple[M.Match, ...], int] | None:
        """The entry's canonical matches and priority, or None to decline."""
        prio = te.priority
        if self.has_priority:
            if prio <= 0:
                return None
        elif prio:
            return None
        ms = te.match
        n = len(ms)
        if n < self.required:
            return None
        out = list(self.template)
        fields = self.fields
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
            if fm.WhichOneof("field_match_type") != kind:
                return None
            if kind == "exact":
                data = fm.exact.value
                v = int.from_bytes(data, "big")
                if not data or v >> w:
                    return None
                out[pos] = _Exact(v)
            elif kind == "lpm":
                lpm = fm.lpm
                data, plen = lpm.value, lpm.prefix_len
                v = int.from_bytes(data, "big")
                if not data or not 0 < plen <= w or v >> w or v & ((1 << (w - plen)) - 1):
                    return None
                out[pos] = _Lpm(v, plen)
            elif kind == "ternary":
                tern = fm.ternary
                data, mdata = tern.value, tern.mask
                v = int.from_bytes(data, "big")
                mask = int.from_bytes(mdata, "big")
                if not data or not mdata or v >> w or mask >> w or not mask or v & ~mask:
                    return None
                out[pos] = _Ternary(v, mask)
            elif kind == "range":
                rng = fm.range
                ldata, hdata = rng.low, rng.high
                lo = int.from_bytes(ldata, "big")
                hi = int.from_bytes(hdata, "big")
                if not ldata or not hdata or lo >> w or hi >> w or lo > hi:
                    return None
                if lo == 0 and hi == (1 << w) - 1:
                    return None
                out[pos] = _Range(lo, hi)
            else:  # optional
                data = fm.optional.value
                v = int.from_bytes(data, "big")
                if not data or v >> w:
                    return None
                out[pos] = _Optional(v)
        if n < self.nfields and None in out:
            return None
        return tuple(out), prio  # type: ignore[arg-type]

    def action(self, te: Any) -> tuple[str, tuple[int, ...]] | None:
        """(action name, arguments in declaration order) of a direct action, or None."""
        ta = te.action
        if ta.WhichOneof("type") != "action":
            return None
        msg = ta.action
        found = self.actions.get(msg.action_id)
        if found is None:
            return None
        name, by_id, order = found
        ps = msg.params
        n = len(ps)
        if n != len(order):
            return None  # a parameter missing or given twice
        args = [0] * n
        seen = 0
        for i in range(n):
            p = ps[i]
            pid = p.param_id
            if pid == order[i][0]:  # the usual case: parameters in declaration order
                pos, w = i, order[i][1]
            else:
                spec = by_id.get(pid)
                if spec is None:
                    return None
                pos, w = spec
            bit = 1 << pos
            if seen & bit:
                return None  # given twice (so another one is missing)
            seen |= bit
            data = p.value
            v = int.from_bytes(data, "big")
            if not data or v >> w:
                return None
            args[pos] = v
        return name, tuple(args)


class FastTables:
    """The fast path of `Tables.write` (see the module docstring)."""

    def __init__(self, tables: Any) -> None:
        self.tables = tables
        self.clock = tables.switch.clock
        self.plans: dict[int, _Plan] = {}
        for tid, t in tables.index.tables.items():
            engine = tables.switch.tables.get(t.name)
            if engine is None or not _plain(t, engine):
                continue
            self.plans[tid] = _Plan(t, engine, tables.index)

    def write(self, utype: int, te: Any, refresh: bool = True) -> bool:
        """Carry out an INSERT or DELETE of a plain entry and return True, or change
        nothing and return False (the general path then handles the update).
        `refresh=False` leaves the engine table's lookup to `settle()`."""
        plan = self.plans.get(te.table_id)
        if plan is None:
            return False
        if utype == INSERT:
            if (
                te.is_default_action
                or te.is_const
                or te.idle_timeout_ns
                or te.HasField("time_since_last_hit")
                or te.HasField("meter_counter_data")
                or te.HasField("counter_data")
                or te.HasField("meter_config")
            ):
                return False
            key = plan.key(te)
            if key is None:
                return False
            action = plan.action(te)
            if action is None:
                return False
            e = plan.engine.add(key[0], action[0], action[1], key[1], checked=True, refresh=refresh)
            e.last_hit_us = self.clock.now_us()
            cm, md = te.controller_metadata, te.metadata
            if cm or md:
                self.tables.remember(e, cm, md)
        elif utype == DELETE:
            if te.is_default_action:
                return False
            key = plan.key(te)
            if key is None:
                return False
            e = plan.engine.delete(key[0], key[1], checked=True, refresh=refresh)
            if self.tables.extra:
                extra = self.tables.extra.pop(e, None)
                if extra is not None and extra.oneshot is not None:
                    self.tables.store.profiles.oneshot_release(extra.oneshot)
        else:
            return False
        if not refresh:
            plan.stale = True
        return True

    def write_update(self, update: Any) -> bool:
        """`write` of a whole `Update` (False for anything but a table entry), leaving the
        lookups of the tables it changes to `settle()`: call it before any packet runs."""
        te = update.entity.table_entry  # an empty entry (table id 0) for other entities
        return self.write(update.type, te, False) if te.table_id else False

    def settle(self) -> None:
        """Bring the lookups of the tables `write_update` changed up to date."""
        for plan in self.plans.values():
            if plan.stale:
                plan.stale = False
                plan.engine.refresh()


def _plain(t: TableInfo, engine: Any) -> bool:
    """A table whose entries the fast path may write: direct, not constant, with a key of
    standard match kinds, no direct counter or meter, no idle timeout."""
    return (
        not t.is_const
        and not t.profile
        and bool(t.order)
        and all(f.kind in _KINDS for f in t.order)
        and not t.direct_counter
        and not t.direct_meter
        and not t.idle_timeout
        and engine.direct_meter is None
        and not engine.direct_counter
        and engine.profile is None
    )
