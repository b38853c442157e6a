"""Stateful v1model externs at run time: registers, counters, meters, action profiles."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import AlreadyExists, InvalidArgument, NotFound, OutOfRange, ResourceExhausted
from .context import DATAPLANE_LOGGER
from .hashes import hash_result, pack_fields
from .meters import Meter as MeterCore
from .meters import MeterType, RateConfig


class Register:
    """`register<T>(size)`: an array of `size` values of `width` bits, all zero at start.

    Edge cases (as BMv2): a read with an out-of-range index logs an error and leaves the
    destination unchanged; a write out of range does nothing.
    """

    def __init__(
        self, name: str, size: int, width: int, signed: bool = False, log: Any = None
    ) -> None:
        self.name = name
        self.size = size
        self.width = width
        self.signed = signed
        self.values = [0] * size
        self.log = log if log is not None else logging.getLogger(DATAPLANE_LOGGER)

    def read(self, index: int, current: Any) -> Any:
        if 0 <= index < self.size:
            return self.values[index]
        self.log.error(
            "register %s: read index %d out of range (size %d)", self.name, index, self.size
        )
        return current

    def write(self, index: int, value: int) -> None:
        if 0 <= index < self.size:
            self.values[index] = value

    def check_index(self, index: int) -> None:
        if not 0 <= index < self.size:
            raise OutOfRange(f"{self.name}: index {index} out of range (size {self.size})")


class Counter:
    """`counter(size, type)`: packet and byte counts per index.

    An out-of-range index is ignored (BMv2 logs an error). Bytes count the packet length
    as received (`standard_metadata.packet_length`).
    """

    def __init__(self, name: str, size: int, kind: str, ctx: Any) -> None:
        self.name = name
        self.size = size
        self.kind = kind  # packets, bytes, packets_and_bytes
        self.ctx = ctx
        self.packets = [0] * size
        self.bytes = [0] * size

    def count(self, index: int) -> None:
        if 0 <= index < self.size:
            self.packets[index] += 1
            self.bytes[index] += self.ctx.packet_length

    def check_index(self, index: int) -> None:
        if not 0 <= index < self.size:
            raise OutOfRange(f"{self.name}: index {index} out of range (size {self.size})")


class DirectCounter:
    """`direct_counter(type)`: the counts live in the table entries; `count()` is a no-op."""

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self.kind = kind
        self.table: Any = None


class Meter:
    """`meter(size, type)`: two-rate three-colour meters, GREEN=0, YELLOW=1, RED=2.

    An unconfigured meter marks every packet GREEN (BMv2). An out-of-range index gives
    GREEN as well.
    """

    def __init__(self, name: str, size: int, kind: str, ctx: Any, clock: Callable[[], int]) -> None:
        self.name = name
        self.size = size
        self.kind = kind
        self.ctx = ctx
        self.clock = clock
        mtype = MeterType.BYTES if kind == "bytes" else MeterType.PACKETS
        self.cells = [MeterCore(2, mtype, clock()) for _ in range(size)]

    def execute(self, index: int) -> int:
        if not 0 <= index < self.size:
            return 0
        return self.cells[index].execute_packet(self.clock(), self.ctx.packet_length)

    def configure(self, index: int, cir: int, cburst: int, pir: int, pburst: int) -> None:
        """Rates in units (packets or bytes) per second, bursts in units."""
        if not 0 <= index < self.size:
            raise OutOfRange(f"{self.name}: index {index} out of range")
        self.cells[index].set_rates(
            [RateConfig.from_per_second(cir, cburst), RateConfig.from_per_second(pir, pburst)]
        )


class DirectMeter:
    """`direct_meter<T>(type)`: one meter per table entry, executed on a hit; `read`
    returns the colour of the last execution."""

    def __init__(self, name: str, kind: str, clock: Callable[[], int]) -> None:
        self.name = name
        self.kind = kind
        self.clock = clock
        self.color = 0

    def execute_entry(self, entry: Any, length: int) -> int:
        if entry.meter is None:
            self.color = 0
        else:
            self.color = entry.meter.execute_packet(self.clock(), length)
        return self.color

    def configure_entry(self, entry: Any, cir: int, cburst: int, pir: int, pburst: int) -> None:
        mtype = MeterType.BYTES if self.kind == "bytes" else MeterType.PACKETS
        m = MeterCore(2, mtype, self.clock())
        m.set_rates(
            [RateConfig.from_per_second(cir, cburst), RateConfig.from_per_second(pir, pburst)]
        )
        entry.meter = m


@dataclass(slots=True)
class Member:
    action: str
    args: tuple[int, ...]
    result: Any = None


@dataclass(slots=True)
class Group:
    members: list[int] = field(default_factory=list)
    weights: dict[int, int] = field(default_factory=dict)
    max_size: int = 0


class ActionProfile:
    """`action_profile(size)` / `action_selector(algo, size, width)`.

    Tables using it hold member or group references. For a group, the member is chosen as
    BMv2 does: hash the selector key fields with the selector's algorithm, then take it
    modulo the number of members (members in the order they were added).
    """

    def __init__(self, name: str, size: int, algo: str | None, width: int) -> None:
        self.name = name
        self.size = size
        self.algo = algo  # None: plain action profile (no groups)
        self.width = width
        self.members: dict[int, Member] = {}
        self.groups: dict[int, Group] = {}
        self.tables: list[Any] = []
        self.selector_widths: tuple[int, ...] = ()

    def add_member(self, mid: int, action: str, args: tuple[int, ...]) -> None:
        if mid in self.members:
            raise AlreadyExists(f"{self.name}: member {mid} exists")
        if len(self.members) >= self.size:
            raise ResourceExhausted(f"{self.name} is full")
        for t in self.tables:
            t.check_action(action, args, default=False)
        self.members[mid] = Member(action, tuple(args))

    def modify_member(self, mid: int, action: str, args: tuple[int, ...]) -> None:
        if mid not in self.members:
            raise NotFound(f"{self.name}: no member {mid}")
        for t in self.tables:
            t.check_action(action, args, default=False)
        self.members[mid] = Member(action, tuple(args))

    def delete_member(self, mid: int) -> None:
        if mid not in self.members:
            raise NotFound(f"{self.name}: no member {mid}")
        self.members.pop(mid)
        for g in self.groups.values():
            if mid in g.members:
                g.members.remove(mid)

    def set_group(
        self, gid: int, members: list[int], weights: dict[int, int], create: bool, max_size: int = 0
    ) -> None:
        if self.algo is None:
            raise InvalidArgument(f"{self.name} is an action profile without groups")
        if create and gid in self.groups:
            raise AlreadyExists(f"{self.name}: group {gid} exists")
        if not create and gid not in self.groups:
            raise NotFound(f"{self.name}: no group {gid}")
        for m in members:
            if m not in self.members:
                raise NotFound(f"{self.name}: no member {m}")
        if max_size and len(members) > max_size:
            raise ResourceExhausted(f"{self.name}: group {gid} is limited to {max_size} members")
        self.groups[gid] = Group(list(members), dict(weights), max_size)

    def delete_group(self, gid: int) -> None:
        if gid not in self.groups:
            raise NotFound(f"{self.name}: no group {gid}")
        del self.groups[gid]

    def resolve(self, table: Any, entry: Any, sel: tuple[int, ...]) -> Any:
        if entry.member is not None:
            m = self.members.get(entry.member)
        else:
            g = self.groups.get(entry.group)
            if g is None or not g.members:
                return table.default.result
            ids = g.members
            if len(ids) == 1:
                m = self.members.get(ids[0])
            else:
                data = pack_fields(list(zip(sel, self.selector_widths, strict=False)))
                h = hash_result(self.algo or "crc16", 0, data, len(ids), 64)
                m = self.members.get(ids[h])
        if m is None:
            return table.default.result
        if m.result is None or m.result[4] is not entry:
            m.result = table._result(m.action, m.args, True, entry)
        return m.result
