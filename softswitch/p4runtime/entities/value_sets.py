"""`ValueSetEntry`: the members of a parser value set.

Spec section "ValueSetEntry": only MODIFY (INSERT/DELETE: INVALID_ARGUMENT), which
replaces all members (an empty list empties the set); more members than the P4Info `size`
is RESOURCE_EXHAUSTED, a duplicate member ALREADY_EXISTS. Each member's matches follow the
table "Match Format" rules (see `codec`), without priorities. softswitch's parser matches
value sets by (value, mask) per field, so exact, ternary, lpm and optional fields are
supported and range fields are UNIMPLEMENTED (as in BMv2). Reads rebuild the canonical
matches from the switch's members.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from p4rt_proto import p4runtime_pb2

from ...engine import matches as M
from .codec import Code, decode_matches, encode_matches, fail
from .info import FieldInfo, ValueSetInfo

MODIFY = p4runtime_pb2.Update.MODIFY

__all__ = ["ValueSets"]


class ValueSets:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.switch = store.switch
        self.index = store.index

    def _value_set(self, vs_id: int, what: str) -> tuple[ValueSetInfo, Any]:
        info = self.index.value_sets.get(vs_id)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown value set id {vs_id}")
        engine = self.switch.value_sets.get(info.name)
        if engine is None:
            raise fail(Code.FAILED_PRECONDITION, f"value set {info.name} is not instantiated")
        return info, engine

    def write(self, utype: int, msg: Any) -> None:
        if utype != MODIFY:
            raise fail(Code.INVALID_ARGUMENT, "value set entries can only be modified")
        if msg.value_set_id == 0:
            raise fail(Code.INVALID_ARGUMENT, "value set entry: value set id missing")
        info, engine = self._value_set(msg.value_set_id, "value set entry")
        if any(f.kind == "range" for f in info.order):
            raise fail(Code.UNIMPLEMENTED, f"{info.name}: range matches in value sets")
        if len(msg.members) > info.size:
            raise fail(
                Code.RESOURCE_EXHAUSTED,
                f"{info.name}: {len(msg.members)} members, size {info.size}",
            )
        members: list[tuple[tuple[int, int], ...]] = []
        for vm in msg.members:
            matches = decode_matches(info.fields, info.order, vm.match, info.name)
            member = tuple(_value_mask(f, m) for f, m in zip(info.order, matches, strict=True))
            if member in members:
                raise fail(Code.ALREADY_EXISTS, f"{info.name}: duplicate member")
            members.append(member)
        engine.members = members

    def read(self, msg: Any) -> Iterator[Any]:
        if msg.value_set_id:
            selected = [self._value_set(msg.value_set_id, "value set read")]
        else:
            selected = []
            for info in self.index.value_sets.values():
                engine = self.switch.value_sets.get(info.name)
                if engine is not None:
                    selected.append((info, engine))
        for info, engine in selected:
            out = p4runtime_pb2.ValueSetEntry(value_set_id=info.id)
            for member in engine.members:
                matches = [_match(f, vm) for f, vm in zip(info.order, member, strict=False)]
                encode_matches(info.order[: len(matches)], matches, out.members.add().match)
            yield out

    def reconcile_into(self, new: Any) -> None:
        """Members of same-named value sets whose fields (names, kinds) still fit."""
        from .reconcile import remap_matches

        targets = new.index.by_name("value_sets")
        for out in self.read(p4runtime_pb2.ValueSetEntry()):
            info = self.index.value_sets[out.value_set_id]
            target = targets.get(info.name)
            if target is None:
                continue
            moved = p4runtime_pb2.ValueSetEntry(value_set_id=target.id)
            for vm in out.members:
                matches = remap_matches(info.fields, target.order, vm.match)
                if matches is not None:
                    moved.members.add().match.extend(matches)
            new.try_write(MODIFY, "value_set_entry", moved)


def _value_mask(f: FieldInfo, m: M.Match) -> tuple[int, int]:
    full = (1 << f.bitwidth) - 1
    if isinstance(m, M.Wildcard):
        return (0, 0)
    if isinstance(m, M.Exact | M.Optional):
        return (m.value, full)
    if isinstance(m, M.Ternary):
        return (m.value, m.mask)
    if isinstance(m, M.Lpm):
        return (m.value, M.lpm_mask(m.prefix_len, f.bitwidth))
    raise fail(Code.UNIMPLEMENTED, f"value set field {f.name}: {type(m).__name__} matches")


def _match(f: FieldInfo, vm: tuple[int, int]) -> M.Match:
    value, mask = vm
    full = (1 << f.bitwidth) - 1
    if f.kind in ("exact", "optional"):
        return M.Wildcard() if mask == 0 else M.Exact(value & full)
    if f.kind == "lpm":
        plen = M.prefix_len_of_mask(mask, f.bitwidth)
        if plen is not None:
            return M.Lpm(value & mask, plen)
    return M.Ternary(value & mask, mask)
