"""Whole-state snapshots for atomic Write batches (ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC).

`take(store)` copies everything P4Runtime can change in the switch (table entries and
defaults with their direct resources, action profile members and groups, counters,
meters, registers, multicast groups, clone sessions, value sets) plus the store's own
records; `restore(store, snap)` puts it all back through the engine's public API. The
cost is proportional to the state, not to the batch; the server holds the switch lock
from snapshot to commit or restore, so no packet sees a partial batch.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ...v1model.externs import Group, Member

__all__ = ["Snapshot", "restore", "take"]


@dataclass(slots=True)
class _EntryState:
    matches: tuple[Any, ...]
    priority: int
    action: str
    args: tuple[int, ...]
    member: int | None
    group: int | None
    packets: int
    bytes: int
    meter: Any
    timeout_ns: int
    last_hit_us: int
    extra: Any


@dataclass(slots=True)
class _TableState:
    entries: list[_EntryState]
    const: list[tuple[Any, int, int, Any]]  # (entry, packets, bytes, meter)
    default: tuple[str, tuple[int, ...], int, int, Any]
    default_extra: Any
    default_modified: bool


@dataclass(slots=True)
class Snapshot:
    tables: dict[str, _TableState] = field(default_factory=dict)
    profiles: dict[str, tuple[dict[int, Member], dict[int, Group]]] = field(default_factory=dict)
    profile_state: dict[str, Any] = field(default_factory=dict)
    next_hidden: int = 0
    externs: dict[str, Any] = field(default_factory=dict)
    value_sets: dict[str, list[Any]] = field(default_factory=dict)
    mc_groups: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    clone_sessions: dict[int, Any] = field(default_factory=dict)
    pre: tuple[dict[int, Any], dict[int, Any]] = ({}, {})
    digests: dict[int, Any] = field(default_factory=dict)


def take(store: Any) -> Snapshot:
    sw = store.switch
    snap = Snapshot()
    tables = store.tables
    for t in store.index.tables.values():
        engine = sw.tables.get(t.name)
        if engine is None:
            continue
        entries, const = [], []
        for e in sorted(engine.entries.values(), key=lambda e: e.seq):
            if e.const:
                const.append((e, e.packets, e.bytes, copy.deepcopy(e.meter)))
                continue
            extra = tables.extra.get(e)
            entries.append(
                _EntryState(
                    e.matches,
                    e.priority,
                    e.action,
                    e.args,
                    e.member,
                    e.group,
                    e.packets,
                    e.bytes,
                    copy.deepcopy(e.meter),
                    e.timeout_ns,
                    e.last_hit_us,
                    dataclasses.replace(extra) if extra is not None else None,
                )
            )
        d = engine.default
        extra = tables.default_extra.get(t.name)
        snap.tables[t.name] = _TableState(
            entries,
            const,
            (d.action, d.args, d.packets, d.bytes, copy.deepcopy(d.meter)),
            dataclasses.replace(extra) if extra is not None else None,
            t.name in tables.default_modified,
        )
    for p in store.index.profiles.values():
        engine = sw.externs.get(p.name)
        if engine is not None:
            members = {k: Member(m.action, m.args) for k, m in engine.members.items()}
            groups = {
                k: Group(list(g.members), dict(g.weights), g.max_size)
                for k, g in engine.groups.items()
            }
            snap.profiles[p.name] = (members, groups)
    snap.profile_state = copy.deepcopy(store.profiles.state)
    snap.next_hidden = store.profiles._next_hidden
    for info in (*store.index.counters.values(), *store.index.meters.values()):
        engine = sw.externs.get(info.name)
        if engine is None:
            continue
        if hasattr(engine, "cells"):
            snap.externs[info.name] = copy.deepcopy(engine.cells)
        else:
            snap.externs[info.name] = (list(engine.packets), list(engine.bytes))
    for r in store.index.registers.values():
        engine = sw.externs.get(r.name)
        if engine is not None:
            snap.externs[r.name] = [_copy_value(v) for v in engine.values]
    for v in store.index.value_sets.values():
        engine = sw.value_sets.get(v.name)
        if engine is not None:
            snap.value_sets[v.name] = list(engine.members)
    snap.mc_groups = {k: list(v) for k, v in sw.mc_groups.items()}
    snap.clone_sessions = {
        k: dataclasses.replace(s, replicas=list(s.replicas)) for k, s in sw.clone_sessions.items()
    }
    snap.pre = (dict(store.pre.groups), dict(store.pre.sessions))
    snap.digests = {k: copy.deepcopy(c) for k, c in store.digests.configs.items()}
    return snap


def restore(store: Any, snap: Snapshot) -> None:
    sw = store.switch
    # profiles first: table entries refer to their members and groups
    for name, (members, groups) in snap.profiles.items():
        engine = sw.externs[name]
        engine.members = {k: Member(m.action, m.args) for k, m in members.items()}
        engine.groups = {
            k: Group(list(g.members), dict(g.weights), g.max_size) for k, g in groups.items()
        }
    store.profiles.state = copy.deepcopy(snap.profile_state)
    store.profiles._next_hidden = snap.next_hidden
    tables = store.tables
    for name, ts in snap.tables.items():
        engine = sw.tables[name]
        for e in [e for e in engine.entries.values() if not e.const]:
            engine.delete(e.matches, e.priority)
            tables.extra.pop(e, None)
        for es in ts.entries:
            e = engine.add(
                es.matches, es.action, es.args, es.priority, member=es.member, group=es.group
            )
            e.packets, e.bytes, e.meter = es.packets, es.bytes, copy.deepcopy(es.meter)
            e.timeout_ns, e.last_hit_us = es.timeout_ns, es.last_hit_us
            if es.extra is not None:
                tables.extra[e] = dataclasses.replace(es.extra)
        for e, packets, nbytes, meter in ts.const:
            e.packets, e.bytes, e.meter = packets, nbytes, copy.deepcopy(meter)
        action, args, packets, nbytes, meter = ts.default
        engine.set_default(action, args, initial=True)
        d = engine.default
        d.packets, d.bytes, d.meter = packets, nbytes, copy.deepcopy(meter)
        if ts.default_extra is not None:
            tables.default_extra[name] = dataclasses.replace(ts.default_extra)
        else:
            tables.default_extra.pop(name, None)
        if ts.default_modified:
            tables.default_modified.add(name)
        else:
            tables.default_modified.discard(name)
    # one-shot records must point at the restored state's objects
    oneshots = {
        (o.profile, o.group): o
        for st in store.profiles.state.values()
        for o in st.oneshots.values()
    }
    for extra in tables.extra.values():
        if extra.oneshot is not None:
            extra.oneshot = oneshots.get((extra.oneshot.profile, extra.oneshot.group))
    for name, saved in snap.externs.items():
        engine = sw.externs[name]
        if hasattr(engine, "cells"):
            engine.cells = copy.deepcopy(saved)
        elif hasattr(engine, "packets"):
            engine.packets, engine.bytes = list(saved[0]), list(saved[1])
        else:
            engine.values = [_copy_value(v) for v in saved]
    for name, vs_members in snap.value_sets.items():
        sw.value_sets[name].members = list(vs_members)
    sw.mc_groups.clear()
    sw.mc_groups.update({k: list(v) for k, v in snap.mc_groups.items()})
    sw.clone_sessions.clear()
    sw.clone_sessions.update(
        {
            k: dataclasses.replace(s, replicas=list(s.replicas))
            for k, s in snap.clone_sessions.items()
        }
    )
    store.pre.groups, store.pre.sessions = dict(snap.pre[0]), dict(snap.pre[1])
    store.digests.configs = {k: copy.deepcopy(c) for k, c in snap.digests.items()}


def _copy_value(v: Any) -> Any:
    return v._copy() if hasattr(v, "_copy") else v
