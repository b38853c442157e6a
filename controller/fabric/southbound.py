"""The core's two southbounds (`core.Southbound`): P4Runtime Write and Read of one switch.

- `SessionsSouthbound`: the gRPC sessions of a running fabric (`FabricSessions`, as
  `sprayfabric up` keeps them): one Write RPC per `batch_size` updates (the switch's, as
  its syncs write), on the switch's primary session.
- `StoreSouthbound`: in-process entity stores, one per switch (fabricsim: softswitch's
  P4Runtime entity store, `softswitch.p4runtime.entities.EntityStore`): each update encoded
  to a `p4.v1.Update` by `controller.codec` and applied as a Write RPC would apply it,
  without a socket; reads the same way.

`FabricController` is a `FabricCore` and the southbound its updates are written to (what
fabricsim drives); `read_counter` reads an indexed counter's cells through either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from p4rt_proto import p4runtime_pb2 as p4r

from ..codec import decode_entity, encode_entity
from ..entities import CounterEntry, Entity, Update
from ..p4info import P4Schema
from .core import FabricCore, Southbound, write_all
from .switch import ManagedSwitch

__all__ = [
    "EntityStore",
    "FabricController",
    "SessionsSouthbound",
    "StoreSouthbound",
    "counter_name",
    "read_counter",
]


class EntityStore(Protocol):
    """A switch's P4Runtime entities in process: one update at a time, reads by entity."""

    def write(self, update: p4r.Update) -> None: ...

    def read(self, entity: p4r.Entity) -> Iterable[p4r.Entity]: ...


class StoreSouthbound:
    """One in-process `EntityStore` per switch, all with one P4Info (`schema`)."""

    def __init__(self, schema: P4Schema, stores: Mapping[str, EntityStore]) -> None:
        self.schema = schema
        self.stores = stores
        self.writes = 0  # updates applied

    def write(self, switch: str, updates: Sequence[Update]) -> None:
        """Apply `updates` to `switch`'s store one by one, in order."""
        store = self.stores[switch]
        for u in updates:
            up = p4r.Update(type=u.type.value)
            up.entity.CopyFrom(encode_entity(self.schema, u.entity))
            store.write(up)
            self.writes += 1

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]:
        store = self.stores[switch]
        return [
            decode_entity(self.schema, got)
            for e in entities
            for got in store.read(encode_entity(self.schema, e))
        ]

    def read_raw(self, switch: str, entity: Entity) -> Iterable[p4r.Entity]:
        """What `switch`'s store returns for `entity`, not decoded."""
        return self.stores[switch].read(encode_entity(self.schema, entity))


class Sessions(Protocol):
    """A running fabric's switches by name (`FabricSessions`)."""

    def __getitem__(self, name: str) -> ManagedSwitch: ...


class SessionsSouthbound:
    """A running fabric's gRPC sessions (each switch's primary session, opened if needed)."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    def write(self, switch: str, updates: Sequence[Update]) -> None:
        """Write `updates` in order, in Write RPCs of at most the switch's `batch_size`
        (as its syncs do)."""
        self.sessions[switch].write(updates)

    def read(self, switch: str, entities: Sequence[Entity]) -> list[Entity]:
        return list(self.sessions[switch].connect().read(*entities))


def read_counter(
    southbound: Southbound, schema: P4Schema, switch: str, name: str
) -> dict[int, tuple[int, int]]:
    """The cells of counter `name` (its P4Info name or its last component) on `switch` that
    counted something: index -> (packets, bytes)."""
    full = counter_name(schema, name)
    if isinstance(southbound, StoreSouthbound):
        # most cells are zero: an in-process read decodes only the others
        raw = southbound.read_raw(switch, CounterEntry(full))
        cells: Iterable[Entity] = (
            decode_entity(schema, got)
            for got in raw
            if got.counter_entry.data.packet_count or got.counter_entry.data.byte_count
        )
    else:
        cells = southbound.read(switch, [CounterEntry(full)])
    out: dict[int, tuple[int, int]] = {}
    for ce in cells:
        # a counter's cells, each with its data
        assert isinstance(ce, CounterEntry) and ce.index is not None and ce.data is not None
        if ce.data.packets or ce.data.bytes:
            out[ce.index] = (ce.data.packets, ce.data.bytes)
    return out


def counter_name(schema: P4Schema, short: str) -> str:
    """The P4Info name of the counter whose name is or ends in `short`."""
    for c in schema.p4info.counters:
        if c.preamble.name == short or c.preamble.name.split(".")[-1] == short:
            return c.preamble.name
    raise KeyError(f"no counter {short}")


class FabricController:
    """A `FabricCore` whose every change is written at once through `southbound`; each
    operation returns the number of updates written."""

    def __init__(self, core: FabricCore, southbound: Southbound, schema: P4Schema) -> None:
        self.core = core
        self.southbound = southbound
        self.schema = schema

    def install(self) -> int:
        return write_all(self.southbound, self.core.install())

    def port_down(self, a: str, b: str) -> int:
        return write_all(self.southbound, self.core.port_down(a, b))

    def port_up(self, a: str, b: str) -> int:
        return write_all(self.southbound, self.core.port_up(a, b))

    def reroute(self, a: str, b: str) -> int:
        return write_all(self.southbound, self.core.reroute(a, b))

    def restore(self, a: str, b: str) -> int:
        return write_all(self.southbound, self.core.restore(a, b))

    def skew(self, switch: str, toward: str, weight: int) -> int:
        return write_all(self.southbound, self.core.skew(switch, toward, weight))

    def blackhole(self, switch: str, prefix: str) -> int:
        return write_all(self.southbound, self.core.blackhole(switch, prefix))

    def counter(self, switch: str, name: str) -> dict[int, tuple[int, int]]:
        """`read_counter` of `switch`."""
        return read_counter(self.southbound, self.schema, switch, name)
