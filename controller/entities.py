"""Typed P4Runtime entities: what a controller writes and reads, by P4Info name.

Names are full P4Info names (the builders in `codec.py` resolve aliases and suffixes);
values are plain integers. `codec.encode_entity` turns any of these into a `p4.v1.Entity`,
`codec.decode_entity` turns what a Read returns back into them.

The match values (`Exact`, `Lpm`, `Ternary`, `Range`, `OptionalMatch`) are the classes
softswitch's tables take too, from `p4rt_proto.matches`; `OptionalMatch` is its `Optional`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from p4rt_proto import p4runtime_pb2 as p4r
from p4rt_proto.matches import Exact, Lpm, Range, Ternary
from p4rt_proto.matches import Optional as OptionalMatch

__all__ = [
    "Action",
    "ActionProfileGroup",
    "ActionProfileMember",
    "CloneSession",
    "CounterData",
    "CounterEntry",
    "DigestEntry",
    "DigestList",
    "DirectCounterEntry",
    "DirectMeterEntry",
    "Entity",
    "Exact",
    "GroupMember",
    "GroupRef",
    "Lpm",
    "Match",
    "MemberRef",
    "MeterConfig",
    "MeterEntry",
    "MulticastGroup",
    "OptionalMatch",
    "PacketIn",
    "Range",
    "RegisterEntry",
    "Replica",
    "TableEntry",
    "Ternary",
    "Update",
    "UpdateType",
]


# ---------------------------------------------------------------- matches
# The classes are p4rt_proto's, shared with the switch; a P4Runtime entry has no wildcard
# object (a don't-care is an omitted field), so a controller `Match` is one of these five.
Match = Exact | Lpm | Ternary | Range | OptionalMatch


# ---------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class Action:
    name: str
    params: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MemberRef:
    """A table entry's action: an action profile member."""

    member_id: int


@dataclass(frozen=True, slots=True)
class GroupRef:
    """A table entry's action: an action selector group."""

    group_id: int


@dataclass(frozen=True, slots=True)
class CounterData:
    packets: int = 0
    bytes: int = 0


@dataclass(frozen=True, slots=True)
class MeterConfig:
    """Two-rate three-colour meter: rates in units/s, bursts in units (packets or bytes)."""

    cir: int
    cburst: int
    pir: int
    pburst: int


# ---------------------------------------------------------------- entities
@dataclass(frozen=True, slots=True)
class TableEntry:
    table: str
    match: Mapping[str, Match] = field(default_factory=dict)
    action: Action | MemberRef | GroupRef | None = None
    priority: int = 0
    is_default: bool = False
    counter: CounterData | None = None  # direct counter data (read back, or initial)
    meter: MeterConfig | None = None  # direct meter config
    is_const: bool = False  # read back only


@dataclass(frozen=True, slots=True)
class ActionProfileMember:
    profile: str
    member_id: int = 0  # 0: every member (read)
    action: Action | None = None


@dataclass(frozen=True, slots=True)
class GroupMember:
    member_id: int
    weight: int = 1


@dataclass(frozen=True, slots=True)
class ActionProfileGroup:
    profile: str
    group_id: int = 0  # 0: every group (read)
    members: tuple[GroupMember, ...] = ()
    max_size: int = 0


@dataclass(frozen=True, slots=True)
class Replica:
    port: int
    instance: int = 0


@dataclass(frozen=True, slots=True)
class MulticastGroup:
    group_id: int = 0  # 0: every group (read)
    replicas: tuple[Replica, ...] = ()


@dataclass(frozen=True, slots=True)
class CloneSession:
    session_id: int = 0  # 0: every session (read)
    replicas: tuple[Replica, ...] = ()
    class_of_service: int = 0
    packet_length_bytes: int = 0  # 0: no truncation


@dataclass(frozen=True, slots=True)
class CounterEntry:
    counter: str
    index: int | None = None  # None: every index (read)
    data: CounterData | None = None


@dataclass(frozen=True, slots=True)
class DirectCounterEntry:
    table_entry: TableEntry
    data: CounterData | None = None


@dataclass(frozen=True, slots=True)
class MeterEntry:
    meter: str
    index: int | None = None
    config: MeterConfig | None = None  # None: the default (all packets green)


@dataclass(frozen=True, slots=True)
class DirectMeterEntry:
    table_entry: TableEntry
    config: MeterConfig | None = None


@dataclass(frozen=True, slots=True)
class RegisterEntry:
    register: str
    index: int | None = None  # None: every index (read)
    value: int | None = None


@dataclass(frozen=True, slots=True)
class DigestEntry:
    """Enables a digest: lists of up to `max_list_size` messages (0: any), sent at the
    latest `max_timeout_ns` after their first message; a sent message is suppressed until
    acknowledged or `ack_timeout_ns` passed."""

    digest: str
    max_timeout_ns: int = 0
    max_list_size: int = 1
    ack_timeout_ns: int = 1_000_000_000


Entity = (
    TableEntry
    | ActionProfileMember
    | ActionProfileGroup
    | MulticastGroup
    | CloneSession
    | CounterEntry
    | DirectCounterEntry
    | MeterEntry
    | DirectMeterEntry
    | RegisterEntry
    | DigestEntry
)


# ---------------------------------------------------------------- writes and stream messages
class UpdateType(Enum):
    INSERT = p4r.Update.INSERT
    MODIFY = p4r.Update.MODIFY
    DELETE = p4r.Update.DELETE


@dataclass(frozen=True, slots=True)
class Update:
    type: UpdateType
    entity: Entity

    @classmethod
    def insert(cls, entity: Entity) -> Update:
        return cls(UpdateType.INSERT, entity)

    @classmethod
    def modify(cls, entity: Entity) -> Update:
        return cls(UpdateType.MODIFY, entity)

    @classmethod
    def delete(cls, entity: Entity) -> Update:
        return cls(UpdateType.DELETE, entity)


@dataclass(frozen=True, slots=True)
class PacketIn:
    payload: bytes
    metadata: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class DigestList:
    """One DigestList from the switch; `messages` are decoded P4Data (a struct is a dict
    by member name, a tuple a tuple, bit<W> an int, bool a bool)."""

    digest: str
    digest_id: int
    list_id: int
    timestamp_ns: int
    messages: tuple[Any, ...]
