"""STF commands as `simple_switch_CLI` lines, with the names and key layout of p4c's BMv2 JSON.

The translation follows what p4c's own BMv2 STF runner sends, so the BMv2 side of a
differential run sees the same entries as `run-stf` would:

* `add`: the table by exact name or unique suffix, the action among the table's actions
  likewise; key fields by p4c's rules (`$N` -> `[N]`, `.valid`/`$valid$`, `.NAME`
  suffix); missing keys are `0` (exact), `0/0` (lpm), `0&&&0` (ternary); a ternary value
  gets a mask of one all-ones digit per written non-`*` digit; an lpm value a prefix of 4
  bits per written hex digit (1 per binary digit), `*` digits not counted; priorities are
  inverted (`10000 - p`: in STF a larger priority wins, in BMv2's CLI a smaller one);
* `setdefault`: names as written (the CLI resolves them);
* PRE, mirroring, register, counter and meter commands pass through unchanged;
  `mc_node_update`, reads and `check_counter` are not sent (p4c does not send them).

Whatever the CLI then refuses (a value too wide, a duplicate entry) it refuses on its own:
that is BMv2's behaviour, and the comparison sees its effect on the packets.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from softswitch.stf import parser as P

__all__ = ["CliTranslator", "Untranslatable"]

PRIORITY_BASE = 10000  # p4c's runner sends 10000 - priority


class Untranslatable(Exception):
    """The command cannot be expressed for BMv2 (p4c's runner would fail the test)."""


@dataclass(slots=True, frozen=True)
class _Key:
    name: str
    kind: str  # exact | lpm | ternary | optional | range | valid


@dataclass(slots=True, frozen=True)
class _Table:
    name: str
    keys: tuple[_Key, ...]
    actions: tuple[str, ...]


def _by_suffix(name: str, names: list[str], what: str) -> str:
    """Exact name, else the one name that ends with `name` (p4c's runner's lookup)."""
    if name in names:
        return name
    hits = [n for n in names if n.endswith(name)]
    if len(hits) != 1:
        why = "ambiguous" if hits else "unknown"
        raise Untranslatable(f"{why} {what} {name}")
    return hits[0]


def _key_index(key: str, names: list[str]) -> int:
    """Which key field an STF key name means (p4c's `TableKeyInstance.set` rules)."""
    m = re.fullmatch(r"(.*)\$(\d+)(.*)", key)
    if m:
        key = f"{m[1]}[{m[2]}]{m[3]}"
    for cand in (key, key + "$", key + ".$valid$"):
        if cand in names:
            return names.index(cand)
    if key.endswith(".valid") and key[:-5] + "$valid$" in names:
        return names.index(key[:-5] + "$valid$")
    found = None
    for i, n in enumerate(names):  # the last matching field wins, as in p4c's loop
        suffix = n.endswith("." + key) or n.endswith("." + key + "$")
        if suffix or (key == "valid" and n.endswith(".$valid$")):
            found = i
    if found is None and key == "valid" and "$valid$" in names:
        found = names.index("$valid$")
    if found is None:
        raise Untranslatable(f"unexpected key field {key} (keys: {', '.join(names)})")
    return found


def _key_name(key: dict[str, object]) -> str:
    """A JSON key field's name (older p4c JSON has only its target: header, field)."""
    name = key.get("name")
    if isinstance(name, str):
        return name
    target = key.get("target")
    return ".".join(map(str, target)) if isinstance(target, list) else str(target)


def _ternary(text: str) -> str:
    base = {"0x": "f", "0b": "1"}.get(text[:2].lower())
    if base is None:
        raise Untranslatable(f"decimal value {text} for a ternary key")
    digits = text[2:]
    mask = "".join("0" if c == "*" else base for c in digits)
    return f"{text[:2]}{digits.replace('*', '0')}&&&{text[:2]}{mask}"


def _lpm(text: str) -> str | None:
    if "/" in text:
        return text
    bits = {"0x": 4, "0b": 1}.get(text[:2].lower())
    if bits is None:
        return None  # p4c writes "0x0x...", which the CLI rejects: no entry
    digits = text[2:]
    return f"{text[:2]}{digits.replace('*', '0')}/{bits * (len(digits) - digits.count('*'))}"


class CliTranslator:
    """Translate parsed STF commands for one program's BMv2 JSON."""

    def __init__(self, bmv2_json: Path) -> None:
        doc = json.loads(bmv2_json.read_text())
        self.params: dict[str, list[str]] = {}
        for a in doc.get("actions", []):
            self.params.setdefault(a["name"], [p["name"] for p in a.get("runtime_data", [])])
        self.tables: dict[str, _Table] = {}
        for pipe in doc.get("pipelines", []):
            for t in pipe.get("tables", []):
                keys = tuple(_Key(_key_name(k), k["match_type"]) for k in t.get("key", []))
                self.tables[t["name"]] = _Table(t["name"], keys, tuple(t.get("actions", [])))

    def line(self, c: P.Command) -> str | None:  # noqa: C901 - one branch per command
        """The CLI line for `c`, None when nothing is sent."""
        if isinstance(c, P.Add):
            return self._add(c)
        if isinstance(c, P.SetDefault):
            return self._set_default(c)
        if isinstance(c, P.MirroringAdd):
            return f"mirroring_add {c.session} {c.port}"
        if isinstance(c, P.MirroringAddMc):
            return f"mirroring_add_mc {c.session} {c.group}"
        if isinstance(c, P.MirroringDelete):
            return f"mirroring_delete {c.session}"
        if isinstance(c, P.McMgrpCreate):
            return f"mc_mgrp_create {c.gid}"
        if isinstance(c, P.McNodeCreate):
            return f"mc_node_create {c.rid} {' '.join(map(str, c.ports))}".rstrip()
        if isinstance(c, P.McNodeAssociate):
            return f"mc_node_associate {c.gid} {c.handle}"
        if isinstance(c, P.CounterWrite):
            return f"counter_write {c.name} {c.index} {c.packets} {c.bytes}"
        if isinstance(c, P.RegisterWrite):
            return f"register_write {c.name} {c.index} {c.value}"
        if isinstance(c, P.RegisterReset):
            return f"register_reset {c.name}"
        if isinstance(c, P.MeterSetRates):
            return f"meter_set_rates {c.name} {c.index} {_rates(c.rates)}"
        if isinstance(c, P.MeterArraySetRates):
            return f"meter_array_set_rates {c.name} {_rates(c.rates)}"
        if isinstance(c, P.NoPacket | P.RemoveAll):
            raise Untranslatable(f"{type(c).__name__} (p4c's BMv2 runner cannot run it)")
        return None

    def _table(self, name: str) -> _Table:
        return self.tables[_by_suffix(name, list(self.tables), "table")]

    def _action(self, table: _Table, action: str) -> str:
        return _by_suffix(action, list(table.actions), f"action (table {table.name})")

    def _args(self, full: str, args: tuple[tuple[str, str], ...]) -> list[str]:
        """The values of `args` in the order of action `full`'s parameters."""
        names = self.params.get(full, [])
        given = dict(args)
        unknown = set(given) - set(names)
        if unknown:
            raise Untranslatable(f"unexpected argument {sorted(unknown)} for {full}")
        missing = [n for n in names if n not in given]
        if missing:
            raise Untranslatable(f"missing argument {missing} for {full}")
        return [given[n] for n in names]

    def _add(self, c: P.Add) -> str | None:
        t = self._table(c.table)
        names = [k.name for k in t.keys]
        values = {
            "exact": "0",
            "valid": "0",
            "lpm": "0/0",
            "ternary": "0&&&0",
            "optional": "0&&&0",
        }
        cells: list[str | None] = []
        for k in t.keys:
            if k.kind not in values:
                raise Untranslatable(f"table {t.name}: {k.kind} key {k.name} (STF cannot fill it)")
            cells.append(values[k.kind])
        for kname, text in c.keys:
            i = _key_index(kname, names)
            kind = t.keys[i].kind
            if kind in ("ternary", "optional"):
                cells[i] = _ternary(text)
            elif kind == "lpm":
                cells[i] = _lpm(text)
            else:
                cells[i] = text
        if any(v is None for v in cells):
            return None
        full = self._action(t, c.action)
        args = self._args(full, c.args)
        out = f"table_add {t.name} {full} {' '.join(v for v in cells if v)} => {' '.join(args)}"
        if c.priority is not None and any(k.kind in ("ternary", "optional") for k in t.keys):
            out += f" {PRIORITY_BASE - c.priority}"
        return out.rstrip()

    def _set_default(self, c: P.SetDefault) -> str:
        t = self._table(c.table)
        args = self._args(self._action(t, c.action), c.args)
        return f"table_set_default {c.table} {c.action} {' '.join(args)}".rstrip()


def _rates(rates: tuple[tuple[float, int], ...]) -> str:
    return " ".join(f"{r:g}:{b}" for r, b in rates)
