"""A fast reader for the one-entry-per-line YAML the dumper writes (and people keep
writing by hand):

    name: fab
    defaults: {rate: 100G, delay: 1us, loss: 0}
    switches:
      - {name: leaf1, role: leaf, device_id: 1, subnets: [10.0.0.0/24]}

It gives exactly what PyYAML gives for such text, or None as soon as a line or value is
outside the simple subset (then the caller uses PyYAML): entry lines `  - {key: value,
...}` whose values are decimal integers, decimals, double-quoted strings, flat lists,
or plain words that YAML cannot read as anything but a string; top-level lines are left
to PyYAML. Fabrics with a hundred thousand links load in a second instead of a minute.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

__all__ = ["fast_load"]

_ENTRY = re.compile(r"^ *- \{(.*)\}\s*$")
_SECTION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\s*$")
_PAIR = re.compile(
    r'\s*([A-Za-z_][A-Za-z0-9_]*): (\[[^\[\]{}"]*\]|"(?:[^"\\]|\\.)*"|[^,\[\]{}"#]*[^,\[\]{}"#\s])\s*(,|$)'
)
_INT = re.compile(r"^(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[0-9]+\.[0-9]+$")
# plain words YAML 1.1 reads as strings: names, addresses, prefixes, rates, delays
_WORD = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_./-]*|[0-9]+(?:\.[0-9]+){2,}(?:/[0-9]+)?|[0-9]+(?:\.[0-9]+)?[A-Za-zµ/]+)$"
)
_SPECIAL = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


class _Bail(Exception):
    pass


def _scalar(text: str, cache: dict[str, Any]) -> Any:
    v = cache.get(text)
    if v is not None:
        return v
    if _INT.match(text):
        v = int(text)
    elif _FLOAT.match(text):
        v = float(text)
    elif text.startswith('"'):
        try:
            v = json.loads(text)
        except ValueError:
            raise _Bail from None
    elif _WORD.match(text) and text.lower() not in _SPECIAL:
        # a word of letters like "1e5" is a string for YAML 1.1 (no dot), as here
        v = text
    else:
        raise _Bail
    cache[text] = v
    return v


_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _entry(body: str, cache: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "[" not in body and '"' not in body and "#" not in body:
        # the common case (hosts, links): plain `key: value` pairs
        for pair in body.split(","):
            key, sep, raw = pair.partition(": ")
            key = key.strip()
            raw = raw.strip()
            if not sep or not raw or not _KEY.match(key) or "{" in raw or "}" in raw:
                raise _Bail
            out[key] = _scalar(raw, cache)
        return out
    pos = 0
    end = len(body)
    while pos < end:
        m = _PAIR.match(body, pos)
        if not m:
            raise _Bail
        key, raw, comma = m.groups()
        if raw.startswith("["):
            inner = raw[1:-1].strip()
            out[key] = [_scalar(x.strip(), cache) for x in inner.split(",")] if inner else []
        else:
            out[key] = _scalar(raw, cache)
        pos = m.end()
        if not comma and pos < end:
            raise _Bail
    return out


def fast_load(text: str) -> dict[str, Any] | None:
    """The document as PyYAML would load it, or None when it is not in the simple form."""
    head: list[str] = []
    sections: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    cache: dict[str, Any] = {}
    try:
        for line in text.splitlines():
            if line.startswith(" "):
                m = _ENTRY.match(line)
                if not m or current is None:
                    return None
                current.append(_entry(m.group(1), cache))
                continue
            if not line or line.startswith("#"):
                continue
            m = _SECTION.match(line)
            if m:
                if m.group(1) in sections:
                    return None
                current = sections[m.group(1)] = []
                head.append(f"{m.group(1)}: []")
            else:
                current = None
                head.append(line)
    except _Bail:
        return None
    try:
        top = yaml.safe_load("\n".join(head))
    except yaml.YAMLError:
        return None
    if not isinstance(top, dict):
        return None
    for key, entries in sections.items():
        top[key] = entries if entries else None
    return top
