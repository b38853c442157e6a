"""P4Runtime ids, as p4c assigns them.

A P4Info id is `prefix << 24 | low24`: the prefix byte says what kind of object it is
(`P4Ids.Prefix` in p4info.proto), the low 24 bits come from Bob Jenkins' one-at-a-time hash
of the object's fully qualified control-plane name. An `@id(N)` annotation overrides the
hash (the kind's prefix is added when N has none). Ids are given kind by kind in ascending
prefix order and, within a kind, in sorted name order; a hash that lands on an id already
taken moves on to the next hash value (linear probing), so which of two colliding names
keeps its natural id is deterministic.

Aliases are the shortest `.`-separated suffix of a name that no other name of the program
(of any kind) shares.

Fields inside an object (match fields, action parameters, controller-header fields, value
set fields) are numbered 1, 2, 3... by position, after the `@id`-annotated ones, see
`field_ids`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

from p4rt_proto.errors import P4InfoError  # a program whose P4Info cannot be built

__all__ = [
    "IdAllocator",
    "P4InfoError",
    "Prefix",
    "SuffixSet",
    "field_ids",
    "jenkins_hash",
    "natural_id",
]

_M32 = 0xFFFFFFFF


class Prefix(enum.IntEnum):
    """The top byte of a P4Info id (p4info.proto `P4Ids.Prefix`)."""

    UNSPECIFIED = 0x00
    ACTION = 0x01
    TABLE = 0x02
    VALUE_SET = 0x03
    CONTROLLER_HEADER = 0x04
    PSA_EXTERNS_START = 0x10
    ACTION_PROFILE = 0x11
    COUNTER = 0x12
    DIRECT_COUNTER = 0x13
    METER = 0x14
    DIRECT_METER = 0x15
    REGISTER = 0x16
    DIGEST = 0x17
    OTHER_EXTERNS_START = 0x80
    MAX = 0xFF


def jenkins_hash(name: str | bytes) -> int:
    """Bob Jenkins' one-at-a-time hash (uint32) of `name`'s UTF-8 bytes."""
    data = name.encode("utf-8") if isinstance(name, str) else name
    h = 0
    for b in data:
        h = (h + b) & _M32
        h = (h + (h << 10)) & _M32
        h ^= h >> 6
    h = (h + (h << 3)) & _M32
    h ^= h >> 11
    h = (h + (h << 15)) & _M32
    return h


def natural_id(prefix: int, name: str) -> int:
    """The id `name` gets when nothing collides with it."""
    return (int(prefix) << 24) | (jenkins_hash(name) & 0xFFFFFF)


def _with_prefix(prefix: int, value: int, what: str) -> int:
    if not 0 <= value <= _M32:
        raise P4InfoError(f"{what}: @id should be an unsigned 32-bit integer")
    top = value & 0xFF000000
    if top and top != int(prefix) << 24:
        raise P4InfoError(f"{what}: @id has the wrong 8-bit prefix")
    return value | (int(prefix) << 24)


class IdAllocator:
    """The P4Runtime symbol table: names of each kind -> ids, plus aliases.

    `add` every symbol first (a name already present in its kind is ignored: the first
    declaration wins), then call `assign` once, then ask `id` and `alias`.
    """

    def __init__(self) -> None:
        self._kinds: dict[Prefix, dict[str, int | None]] = {}
        self._taken: set[int] = set()
        self._suffixes = SuffixSet()
        self._assigned = False

    def add(self, prefix: Prefix, name: str, id_override: int | None = None) -> None:
        table = self._kinds.setdefault(prefix, {})
        if name in table:
            return
        ident: int | None = None
        if id_override is not None:
            ident = _with_prefix(prefix, id_override, name)
            if ident in self._taken:
                raise P4InfoError(f"@id {ident} is assigned to multiple declarations")
            self._taken.add(ident)
        table[name] = ident
        self._suffixes.add(name)

    def __contains__(self, key: tuple[Prefix, str]) -> bool:
        prefix, name = key
        return name in self._kinds.get(prefix, {})

    def assign(self) -> None:
        for prefix in sorted(self._kinds):
            table = self._kinds[prefix]
            for name in sorted(n for n, i in table.items() if i is None):
                h = jenkins_hash(name)
                for _ in range(1 << 24):
                    ident = (int(prefix) << 24) | (h & 0xFFFFFF)
                    if ident not in self._taken:
                        break
                    h = (h + 1) & _M32
                else:  # pragma: no cover - 16M objects of one kind
                    raise P4InfoError(f"no available id to represent {name} in P4Runtime")
                self._taken.add(ident)
                table[name] = ident
        self._assigned = True

    def id(self, prefix: Prefix, name: str) -> int:
        if not self._assigned:
            self.assign()
        ident = self._kinds.get(prefix, {}).get(name)
        if ident is None:
            raise KeyError(f"{prefix.name} {name!r} was not collected")
        return ident

    def alias(self, name: str) -> str:
        return self._suffixes.shortest_unique_suffix(name)


class SuffixSet:
    """Distinct names, for their shortest unique `.`-separated suffixes."""

    def __init__(self) -> None:
        self._names: set[str] = set()
        self._counts: dict[tuple[str, ...], int] = {}

    def add(self, name: str) -> None:
        if name in self._names:
            return
        self._names.add(name)
        parts = tuple(name.split("."))
        for i in range(len(parts)):
            suffix = parts[len(parts) - 1 - i :]
            self._counts[suffix] = self._counts.get(suffix, 0) + 1

    def shortest_unique_suffix(self, name: str) -> str:
        parts = tuple(name.split("."))
        for n in range(1, len(parts) + 1):
            if self._counts.get(parts[len(parts) - n :], 0) < 2:
                return ".".join(parts[len(parts) - n :])
        return name


def field_ids(overrides: Sequence[int | None], what: Iterable[str] = ()) -> list[int]:
    """Ids of the fields of one object: `@id` values first, the rest 1, 2, ... by position.

    The running position advances over every field (annotated ones included); an id an
    annotation already took is skipped.
    """
    names = list(what)
    taken: set[int] = set()
    for i, v in enumerate(overrides):
        if v is None:
            continue
        label = names[i] if i < len(names) else f"field {i + 1}"
        if v == 0:
            raise P4InfoError(f"{label}: 0 is not a valid @id value")
        if v in taken:
            raise P4InfoError(f"{label}: @id {v} is used multiple times")
        taken.add(v)
    out: list[int] = []
    index = 1
    for v in overrides:
        if v is not None:
            out.append(v)
            index += 1
            continue
        while index in taken:
            index += 1
        out.append(index)
        taken.add(index)
    return out
