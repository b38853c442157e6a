"""Moving entities from one P4Info to another (RECONCILE_AND_COMMIT).

Entities are re-encoded under the old P4Info, their ids translated by name (table, match
fields, action, parameters) and written into the new store with the ordinary checks: an
entity that no longer fits (a name is gone, a value is too wide for a narrower field, a
table shrank) is simply dropped. Bytestrings are canonical, so a field that widened or
narrowed keeps every value that still fits.
"""

from __future__ import annotations

from typing import Any

from p4rt_proto import p4runtime_pb2

from .info import FieldInfo, P4InfoIndex

__all__ = ["remap_action", "remap_matches", "remap_table_entry"]


def remap_action(old: P4InfoIndex, new: P4InfoIndex, action: Any) -> Any:
    """An `Action` with the new ids, or None when the action or a parameter is gone."""
    a = old.actions.get(action.action_id)
    b = new.action_names.get(a.name) if a is not None else None
    if a is None or b is None:
        return None
    new_params = {p.name: p for p in b.params}
    out = p4runtime_pb2.Action(action_id=b.id)
    for p in action.params:
        old_p = a.params_by_id.get(p.param_id)
        new_p = new_params.get(old_p.name) if old_p is not None else None
        if new_p is None:
            return None
        out.params.add(param_id=new_p.id, value=p.value)
    return out


def remap_matches(
    old_fields: dict[int, FieldInfo], new_order: tuple[FieldInfo, ...], matches: Any
) -> list[Any] | None:
    """FieldMatches with the new field ids (same name and match kind), or None."""
    by_name = {f.name: f for f in new_order}
    out = []
    for fm in matches:
        f = old_fields.get(fm.field_id)
        g = by_name.get(f.name) if f is not None else None
        if f is None or g is None or g.kind != f.kind:
            return None
        moved = p4runtime_pb2.FieldMatch()
        moved.CopyFrom(fm)
        moved.field_id = g.id
        out.append(moved)
    return out


def remap_table_entry(old: P4InfoIndex, new: P4InfoIndex, te: Any) -> Any:
    """A TableEntry under the new P4Info, or None when its table/fields/action are gone."""
    t = old.tables[te.table_id]
    n = new.by_name("tables").get(t.name)
    if n is None or n.is_const:
        return None
    out = p4runtime_pb2.TableEntry()
    out.CopyFrom(te)
    out.table_id = n.id
    out.is_const = False
    del out.match[:]
    matches = remap_matches(t.fields, n.order, te.match)
    if matches is None:
        return None
    out.match.extend(matches)
    kind = te.action.WhichOneof("type")
    if kind == "action":
        action = remap_action(old, new, te.action.action)
        if action is None:
            return None
        out.action.action.CopyFrom(action)
    elif kind == "action_profile_action_set":
        for apa in out.action.action_profile_action_set.action_profile_actions:
            action = remap_action(old, new, apa.action)
            if action is None:
                return None
            apa.action.CopyFrom(action)
    if not n.idle_timeout:
        out.idle_timeout_ns = 0
    if not n.direct_counter:
        out.ClearField("counter_data")
    if not n.direct_meter:
        out.ClearField("meter_config")
    return out
