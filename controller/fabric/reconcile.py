"""Desired state vs what a switch holds: canonical keys, the difference, ordered batches.

A switch's desired state is a list of entities (`TableEntry`, `ActionProfileMember`,
`ActionProfileGroup`, `CloneSession`, `MulticastGroup`). `plan(desired, actual)` compares it
with what a wildcard Read returned and gives the updates that turn one into the other:
INSERT what is missing, MODIFY what differs, DELETE what nobody wants. Entities are compared
in canonical form (`identity` and `content` below): match fields as a sorted tuple with
don't-cares dropped, action parameters sorted, replicas and group members as sorted tuples,
direct counter data ignored. Equal state plans nothing, so a second reconcile writes nothing.

Order matters for references: members before the groups that hold them before the table
entries that point at either; deletes go the other way round, after every write (make
before break). `phases()` splits a plan into those steps; each step may be written as one
or more batches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..entities import (
    Action,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSession,
    Entity,
    Lpm,
    MulticastGroup,
    TableEntry,
    Ternary,
    Update,
    UpdateType,
)

__all__ = ["Plan", "content", "identity", "plan", "wildcards"]

# write order of entity kinds (deletes run in reverse)
_RANK = {ActionProfileMember: 0, ActionProfileGroup: 1, CloneSession: 2, MulticastGroup: 2}
_TABLE_RANK = 3


def _rank(e: Entity, table_order: Sequence[str]) -> int:
    if isinstance(e, TableEntry):
        try:
            return _TABLE_RANK + table_order.index(e.table)
        except ValueError:
            return _TABLE_RANK + len(table_order)
    return _RANK[type(e)]


def _dont_care(m: Any) -> bool:
    """A match the switch never returns (the specification says: omit it)."""
    return (isinstance(m, Ternary) and m.mask == 0) or (isinstance(m, Lpm) and m.prefix_len == 0)


def _action_key(a: Any) -> Any:
    if isinstance(a, Action):
        return ("action", a.name, tuple(sorted(a.params.items())))
    return a  # MemberRef / GroupRef / None: frozen dataclasses, hashable


def identity(e: Entity) -> tuple[Any, ...]:
    """What names an entity on the switch (two entities with the same identity are the same
    entry, possibly with different contents)."""
    if isinstance(e, TableEntry):
        # field names are unique, so sorting never compares the (hashable) match values
        matches = tuple(sorted((n, m) for n, m in e.match.items() if not _dont_care(m)))
        return ("table", e.table, matches, e.priority if not e.is_default else 0, e.is_default)
    if isinstance(e, ActionProfileMember):
        return ("member", e.profile, e.member_id)
    if isinstance(e, ActionProfileGroup):
        return ("group", e.profile, e.group_id)
    if isinstance(e, CloneSession):
        return ("clone", e.session_id)
    if isinstance(e, MulticastGroup):
        return ("mcast", e.group_id)
    raise TypeError(f"reconcile does not manage {type(e).__name__} entities")


def content(e: Entity) -> tuple[Any, ...]:
    """What an entry holds (compared once identities match)."""
    if isinstance(e, TableEntry):
        return (_action_key(e.action), e.meter)
    if isinstance(e, ActionProfileMember):
        return (_action_key(e.action),)
    if isinstance(e, ActionProfileGroup):
        members = tuple(sorted((m.member_id, m.weight) for m in e.members))
        return (members, e.max_size)
    if isinstance(e, CloneSession):
        reps = tuple(sorted((r.port, r.instance) for r in e.replicas))
        return (reps, e.class_of_service, e.packet_length_bytes)
    if isinstance(e, MulticastGroup):
        return (tuple(sorted((r.port, r.instance) for r in e.replicas)),)
    raise TypeError(f"reconcile does not manage {type(e).__name__} entities")


def _clean(e: Entity) -> Entity:
    """`e` as it is written: a table entry without read-back-only fields."""
    if isinstance(e, TableEntry) and (e.counter is not None or e.is_const):
        return TableEntry(e.table, e.match, e.action, e.priority, e.is_default, None, e.meter)
    return e


@dataclass(slots=True)
class Plan:
    """The updates that make a switch hold the desired state."""

    inserts: list[Entity] = field(default_factory=list)
    modifies: list[Entity] = field(default_factory=list)
    deletes: list[Entity] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.inserts) + len(self.modifies) + len(self.deletes)

    def phases(self, table_order: Sequence[str] = ()) -> list[list[Update]]:
        """The updates in make-before-break order: inserts/modifies of members, groups, PRE
        entries, table entries; then deletes of table entries, groups, members. Each phase
        depends only on the phases before it (a switch may apply the updates of one Write in
        any order), and at no point does an entry name one that is gone: a route moves to its
        new group before the old group is deleted, a group shrinks before its last members
        are deleted, so packets in flight while a plan is written find every reference (the
        price: a table must have room for the new entries while the old ones are still in).
        `table_order` names tables whose entries others refer to by value (fabric.p4:
        members and groups before the routes naming them): their writes come first, in that
        order, and their deletes last."""
        out: list[list[Update]] = []
        by_rank: dict[int, list[Update]] = {}
        for kind, items in ((UpdateType.MODIFY, self.modifies), (UpdateType.INSERT, self.inserts)):
            for e in items:
                by_rank.setdefault(_rank(e, table_order), []).append(Update(kind, e))
        for r in sorted(by_rank):
            out.append(by_rank[r])
        by_rank = {}
        for e in self.deletes:
            by_rank.setdefault(-_rank(e, table_order), []).append(Update.delete(e))
        for r in sorted(by_rank):
            out.append(by_rank[r])
        return out


def plan(desired: Iterable[Entity], actual: Iterable[Entity]) -> Plan:
    """Compare `desired` with `actual` (what the switch returned for the managed entities).

    A desired default entry (`is_default`) is MODIFIED when it differs and never deleted
    (a table always has a default action); the caller reads default entries separately."""
    want: dict[tuple[Any, ...], Entity] = {}
    for e in desired:
        key = identity(e)
        if key in want and content(want[key]) != content(e):
            raise ValueError(f"desired state names {key} twice with different contents")
        want[key] = e
    have = {identity(e): e for e in actual}
    p = Plan()
    for key, e in want.items():
        got = have.get(key)
        if got is None:
            if isinstance(e, TableEntry) and e.is_default:
                p.modifies.append(_clean(e))
            else:
                p.inserts.append(_clean(e))
        elif content(got) != content(e):
            p.modifies.append(_clean(e))
    for key, e in have.items():
        if key not in want and not (isinstance(e, TableEntry) and (e.is_default or e.is_const)):
            p.deletes.append(_clean(e))
    return p


def wildcards(
    tables: Sequence[str],
    profiles: Sequence[str] = (),
    clone_sessions: bool = True,
    multicast: bool = True,
) -> list[Entity]:
    """The wildcard Read entities for everything a controller manages."""
    out: list[Entity] = [TableEntry(t) for t in tables]
    for prof in profiles:
        out += [ActionProfileMember(prof), ActionProfileGroup(prof)]
    if clone_sessions:
        out.append(CloneSession())
    if multicast:
        out.append(MulticastGroup())
    return out
