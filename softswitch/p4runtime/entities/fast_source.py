"""The INSERT function of one table's fast path, written out as Python source.

`fast_tables` decides what the fast path accepts; this module writes that decision out
for one table, with the table's ids and widths as constants, so that an update is read
without loops or calls of our own: the key of a table keyed by one exact or lpm field is
read in line (other keys call the table's key decoder), and so are the parameters of each
action, in declaration order (parameters given in another order call the action's
decoder). About a quarter less time per entry than the same checks made by loops over
per-table specifications.

The generated function, `insert(te, now_us) -> bool`, carries out a plain INSERT and
returns True, or changes nothing and returns False (the general path then handles the
update); engine errors (SwitchError) come from `add`, which changes nothing when it
raises. It accepts exactly what `fast_tables` documents: no default entry, const flag,
idle timeout, direct resource data or time since last hit; the priority the key needs;
a direct action the table allows, every parameter once, every value non-empty and
within its width.

`delete(te) -> bool` does the same for a plain DELETE: not the default entry, the
priority the key needs, the key read as INSERT reads it (the rest of the entry is not
looked at, as the general path does not); engine errors (no such entry) come from
`remove`, which changes nothing when it raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from types import CodeType
from typing import Any

from ...engine import matches as M
from .info import FieldInfo

__all__ = ["ActionForm", "define_function", "delete_function", "insert_function"]

# (action id, action name, ((parameter id, bitwidth), ...) in declaration order)
ActionForm = tuple[int, str, tuple[tuple[int, int], ...]]


def insert_function(
    order: Sequence[FieldInfo],
    has_priority: bool,
    actions: Sequence[ActionForm],
    names: dict[str, Any],
) -> Callable[[Any, int], bool]:
    """The INSERT function of a table with key fields `order` and the `actions` an entry
    may name. `names` binds what the generated code calls: `plan` (its `stale` flag is
    set), `key` (the table's key decoder), `reorder` (action id -> parameter decoder for
    any order), `add` (the engine table's `add_plain`) and `remember` (cookies)."""
    lines = [
        "def insert(te, now_us):",
        "    if te.is_default_action or te.is_const or te.idle_timeout_ns:",
        "        return False",
        "    has = te.HasField",
        '    if has("counter_data") or has("meter_config") or has("time_since_last_hit") '
        'or has("meter_counter_data"):',
        "        return False",
        "    prio = te.priority",
        f"    if {'prio <= 0' if has_priority else 'prio'}:",
        "        return False",
    ]
    lines += _key_lines(order)
    lines += [
        "    msg = te.action.action  # unset (another kind of action): action id 0",
        "    aid = msg.action_id",
        "    ps = msg.params",
    ]
    for n, (aid, name, params) in enumerate(actions):
        lines.append(f"    {'if' if n == 0 else 'elif'} aid == {aid}:")
        lines += _action_lines(aid, name, params)
    if actions:
        lines += ["    else:", "        return False"]
    else:
        lines.append("    return False")
    lines += [
        "    e = add(matches, prio, name, args)",
        "    plan.stale = True",
        "    e.last_hit_us = now_us",
        "    cm = te.controller_metadata",
        "    md = te.metadata",
        "    if cm or md:",
        "        remember(e, cm, md)",
        "    return True",
    ]
    return define_function("insert", lines, names)  # type: ignore[return-value]


def delete_function(
    order: Sequence[FieldInfo], has_priority: bool, names: dict[str, Any]
) -> Callable[[Any], bool]:
    """The DELETE function of a table with key fields `order`. `names` binds `plan` (its
    `stale` flag is set), `key` (the table's key decoder), `remove` (the engine table's
    `delete_plain`), `extra` (the store's dict of what it keeps beside entries) and
    `forget` (drops a deleted entry's part of it)."""
    lines = [
        "def delete(te):",
        "    if te.is_default_action:",
        "        return False",
        "    prio = te.priority",
        f"    if {'prio <= 0' if has_priority else 'prio'}:",
        "        return False",
        *_key_lines(order),
        "    e = remove(matches, prio)",
        "    plan.stale = True",
        "    if extra:",
        "        forget(e)",
        "    return True",
    ]
    return define_function("delete", lines, names)  # type: ignore[return-value]


def define_function(
    name: str, lines: list[str], names: dict[str, Any], label: str = ""
) -> Callable[..., bool]:
    """The function `name` that `lines` define, with `names` (and int.from_bytes, Exact
    and Lpm) in its scope; `label` names its code (default: the function's name)."""
    scope = {"from_bytes": int.from_bytes, "Exact": M.Exact, "Lpm": M.Lpm, **names}
    exec(_compiled("\n".join(lines) + "\n", f"<fast table {label or name}>"), scope)  # noqa: S102
    return scope[name]  # type: ignore[no-any-return]


@lru_cache(maxsize=4096)
def _compiled(source: str, filename: str) -> CodeType:
    """The code of `source`: the switches of one program (a simulated fabric, a test
    session) write the same functions for the same tables, compiled once."""
    return compile(source, filename, "exec")


def _key_lines(order: Sequence[FieldInfo]) -> list[str]:
    """Read the key into `matches` (return False to decline)."""
    if len(order) != 1 or order[0].kind not in ("exact", "lpm"):
        return ["    matches = key(te)", "    if matches is None:", "        return False"]
    f = order[0]
    w = f.bitwidth
    head = [
        "    ms = te.match",
        "    if len(ms) != 1:",  # an omitted lpm field (a don't-care): the general path
        "        return False",
        "    fm = ms[0]",
    ]
    if f.kind == "exact":
        return head + [
            "    data = fm.exact.value",
            '    v = from_bytes(data, "big")',
            f"    if fm.field_id != {f.id} or not data or v >> {w}:",
            "        return False",
            "    matches = (Exact(v),)",
        ]
    # the bits past the prefix must be zero: value % 2**(w - plen) == 0
    return head + [
        "    m = fm.lpm",
        "    data = m.value",
        "    plen = m.prefix_len",
        '    v = from_bytes(data, "big")',
        f"    if fm.field_id != {f.id} or not data or not 0 < plen <= {w} or v >> {w} "
        f"or v & ((1 << ({w} - plen)) - 1):",
        "        return False",
        "    matches = (Lpm(v, plen),)",
    ]


def _action_lines(aid: int, name: str, params: Sequence[tuple[int, int]]) -> list[str]:
    """Inside `if aid == ...`: `name` and `args` of this action (return False to
    decline)."""
    n = len(params)
    out = [f"        name = {name!r}", f"        if len(ps) != {n}:", "            return False"]
    if n == 0:
        return [*out, "        args = ()"]
    ps = ", ".join(f"p{i}" for i in range(n))
    ids = " or ".join(f"p{i}.param_id != {pid}" for i, (pid, _w) in enumerate(params))
    out += [
        f"        {ps}, = ps",
        f"        if {ids}:",
        f"            args = reorder[{aid}](ps)",
        "            if args is None:",
        "                return False",
        "        else:",
    ]
    checks = []
    for i, (_pid, w) in enumerate(params):
        out += [f"            d{i} = p{i}.value", f'            a{i} = from_bytes(d{i}, "big")']
        checks.append(f"not d{i} or a{i} >> {w}")
    out += [
        f"            if {' or '.join(checks)}:",
        "                return False",
        f"            args = ({', '.join(f'a{i}' for i in range(n))},)",
    ]
    return out
