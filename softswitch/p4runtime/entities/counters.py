"""`CounterEntry` and `DirectCounterEntry`.

Spec sections followed ("CounterEntry & DirectCounterEntry"):

* Only MODIFY writes (INSERT/DELETE: INVALID_ARGUMENT). `data` unset leaves the value;
  set, it replaces both counts (negative counts: INVALID_ARGUMENT). A CounterEntry
  without `index` writes every cell; a negative index is INVALID_ARGUMENT, one past the
  array OUT_OF_RANGE.
* Reads: counter_id 0 reads all counters, no `index` the whole array. Both counts are
  returned whatever the unit, as BMv2 does (softswitch counts both).
* DirectCounterEntry: the table entry is named by its key (NOT_FOUND if missing; the
  default entry with `is_default_action`). Reads accept the table-entry wildcards
  (table_id 0, no match) and return the key with the counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from p4rt_proto import p4runtime_pb2

from .codec import Code, fail
from .info import IndexedInfo

MODIFY = p4runtime_pb2.Update.MODIFY

__all__ = ["Counters", "indexes"]


def indexes(msg: Any, size: int, what: str, lenient: bool = False) -> range:
    """The cells an `index` field names: all of them when unset. `lenient` (a read of
    every array) skips arrays too small for the index instead of failing."""
    if not msg.HasField("index"):
        return range(size)
    i = msg.index.index
    if i < 0:
        raise fail(Code.INVALID_ARGUMENT, f"{what}: negative index {i}")
    if i >= size:
        if lenient:
            return range(0)
        raise fail(Code.OUT_OF_RANGE, f"{what}: index {i} out of range (size {size})")
    return range(i, i + 1)


class Counters:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index

    @staticmethod
    def values_of(data: Any, what: str) -> tuple[int, int]:
        """(packets, bytes) of a CounterData message."""
        if data.packet_count < 0 or data.byte_count < 0:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: negative counter value")
        return data.packet_count, data.byte_count

    def _counter(self, counter_id: int, what: str) -> tuple[IndexedInfo, Any]:
        info = self.index.counters.get(counter_id)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown counter id {counter_id}")
        engine = self.switch.externs.get(info.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"counter {info.name} is not instantiated")
        return info, engine

    # ------------------------------------------------------------ indexed counters
    def write(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "counter entries can only be modified")
        if msg.counter_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "counter entry: counter id missing")
        info, engine = self._counter(msg.counter_id, "counter entry")
        cells = indexes(msg, info.size, info.name)
        if not msg.HasField("data"):
            return
        packets, nbytes = self.values_of(msg.data, info.name)
        for i in cells:
            engine.packets[i] = packets
            engine.bytes[i] = nbytes

    def read(self, msg: Any) -> Iterator[Any]:
        if msg.counter_id:
            selected = [self._counter(msg.counter_id, "counter read")]
        else:
            selected = []
            for info in self.index.counters.values():
                engine = self.switch.externs.get(info.name)
                if engine is not None:
                    selected.append((info, engine))
        for info, engine in selected:
            for i in indexes(msg, info.size, info.name, lenient=not msg.counter_id):
                out = p4runtime_pb2.CounterEntry(counter_id=info.id)
                out.index.index = i
                out.data.packet_count = engine.packets[i]
                out.data.byte_count = engine.bytes[i]
                yield out

    # ------------------------------------------------------------ direct counters
    def write_direct(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "direct counter entries can only be modified")
        t, _engine, e, _default = self.store.tables.locate(msg.table_entry, "direct counter")
        if not t.direct_counter:
            raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct counter")
        if msg.HasField("data"):
            e.packets, e.bytes = self.values_of(msg.data, t.name)

    def read_direct(self, msg: Any) -> Iterator[Any]:
        te = msg.table_entry
        tables = self.store.tables
        if te.table_id:
            t, _engine = tables.table(te.table_id, "direct counter read")
            if not t.direct_counter:
                raise fail(Code.INVALID_ARGUMENT, f"{t.name} has no direct counter")
        found = False
        for t, _engine, e, default in tables.select(te):
            if not t.direct_counter:
                continue
            found = True
            out = p4runtime_pb2.DirectCounterEntry()
            out.table_entry.CopyFrom(tables.key_message(t, e, default))
            out.data.packet_count = e.packets
            out.data.byte_count = e.bytes
            yield out
        if te.table_id and (te.match or te.is_default_action) and not found:
            raise fail(Code.NOT_FOUND, "direct counter read: no such table entry")

    # ------------------------------------------------------------ reconcile
    def reconcile_into(self, new: Any) -> None:
        """Indexed counter values into same-named counters (cells that still exist)."""
        targets = new.index.by_name("counters")
        for out in self.read(p4runtime_pb2.CounterEntry()):
            info = self.index.counters[out.counter_id]
            target = targets.get(info.name)
            if target is None or out.index.index >= target.size:
                continue
            if out.data.packet_count or out.data.byte_count:
                out.counter_id = target.id
                new.try_write(MODIFY, "counter_entry", out)
