"""A reconcile's read-back compared by encoding: what a Read returned against the desired
state, without decoding the entries that are as they should be.

A no-op reconcile of a large fabric reads every entry of every switch back and finds each
one unchanged. Decoding each into an entity (`codec.decode_entity`) and comparing canonical
forms (`reconcile.identity`, `reconcile.content`) cost the controller more than the Read
itself. Here each desired entity is encoded once as a switch returns it in a Read (match
fields in field-id order, canonical bytestrings); a read-back entity with one of those
encodings is that desired entry, unchanged, and is neither decoded nor planned. The rest is
decoded and planned by `reconcile.plan`, so the plan is the one `plan(desired,
decoded read)` gives:

* an entity takes part only if decoding its encoding gives back its identity and content
  (a table named by alias, a don't-care match written out, a counter or meter the Read does
  not return... do not): equal encodings then mean equal identities and contents;
* when a read-back entity the comparison left over has the identity of one it matched (a
  switch that returned one entry twice), the whole read goes to `reconcile.plan`.

`ReadKeys` memoises the encodings per entity object (the controller's encoder hands the
same objects to many switches and to every recomputation); `DesiredIndex` holds one
switch's desired state keyed for the comparison, made once per desired state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p4rt_proto import p4runtime_pb2 as p4r

from .. import codec
from ..entities import Entity, TableEntry
from ..p4info import P4Schema
from .reconcile import Plan, content, identity, plan

__all__ = ["DesiredIndex", "ReadKeys"]

Decode = Callable[[p4r.Entity], Entity]


class ReadKeys:
    """The encoding of entities as a switch returns them in a Read, memoised per object."""

    _MAX = 1 << 18  # entities kept before the memo starts afresh

    def __init__(self, schema: P4Schema) -> None:
        self.schema = schema
        self._made: dict[int, tuple[Entity, bytes | None]] = {}  # id(entity) -> it, key

    def key(self, e: Entity) -> bytes | None:
        """The encoding of `e`, or None when it cannot be compared by encoding (see the
        module docstring)."""
        got = self._made.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        made = self._encode(e)
        if len(self._made) >= self._MAX:
            self._made.clear()
        self._made[id(e)] = (e, made)  # the entity is kept: its id is not reused meanwhile
        return made

    def _encode(self, e: Entity) -> bytes | None:
        schema = self.schema
        try:
            written = e
            if isinstance(e, TableEntry) and len(e.match) > 1:  # a switch sorts by field id
                t = schema.table(e.table)
                match = dict(sorted(e.match.items(), key=lambda nm: t.field(nm[0]).id))
                written = TableEntry(
                    e.table,
                    match,
                    e.action,
                    e.priority,
                    e.is_default,
                    e.counter,
                    e.meter,
                    e.is_const,
                )
            data = codec.encode_entity(schema, written).SerializeToString()
            back = codec.decode_entity(schema, p4r.Entity.FromString(data))
        except (LookupError, ValueError, TypeError):
            return None  # the general path meets (and reports) what is wrong with it
        if identity(back) != identity(e) or content(back) != content(e):
            return None
        return data


class DesiredIndex:
    """One switch's desired state, keyed by identity and by encoding."""

    def __init__(self, desired: Sequence[Entity], keys: ReadKeys) -> None:
        self.desired = desired  # the list it was made from
        self.size = len(desired)
        self.want: dict[tuple[Any, ...], Entity] = {}
        self.by_key: dict[bytes, tuple[Any, ...]] = {}
        for e in desired:
            ident = identity(e)
            if ident in self.want and content(self.want[ident]) != content(e):
                raise ValueError(f"desired state names {ident} twice with different contents")
            self.want[ident] = e
            data = keys.key(e)
            if data is not None:
                self.by_key[data] = ident
        # tables whose default entry is desired: a Read asks for those separately
        self.defaults = sorted(
            {e.table for e in desired if isinstance(e, TableEntry) and e.is_default}
        )

    def plan(self, read: Iterable[p4r.Entity], decode: Decode) -> Plan:
        """`reconcile.plan(desired, [decode(m) for m in read])`, decoding only what the
        encodings do not match."""
        messages = list(read)
        by_key = self.by_key
        matched: set[tuple[Any, ...]] = set()
        rest: list[p4r.Entity] = []
        for m in messages:
            ident = by_key.get(m.SerializeToString())
            if ident is None:
                rest.append(m)
            else:
                matched.add(ident)
        if not rest and len(matched) == len(self.want):
            return Plan()
        actual = [decode(m) for m in rest]
        if any(identity(e) in matched for e in actual):
            return plan(self.want.values(), [decode(m) for m in messages])
        return plan([e for k, e in self.want.items() if k not in matched], actual)
