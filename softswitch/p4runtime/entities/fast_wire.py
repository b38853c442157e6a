"""A plain INSERT read from its update's wire encoding, without protobuf objects.

Reading an update through the protobuf API makes a Python object for every sub-message
and a name lookup for every field read: for a table entry, about twenty of them, which
cost more than everything else the fast path does. For the most common entries — a table
keyed by exact fields and at most one lpm field, a direct action — this module reads the
encoding instead: the update is serialised again (the protobuf runtime writes known fields
in field-number order and unknown ones last, so the bytes do not depend on the order of
the client's fields, except that match fields and parameters keep theirs) and matched,
with one regular expression per table, against the only encodings such an update can
have:

    Update      08 01 (type INSERT)  12 len Entity
    Entity      12 len TableEntry
    TableEntry  08 table_id  (12 len FieldMatch)...  1a len TableAction
    FieldMatch  08 field_id  22 len LPM{0a len value  10 prefix_len}   (exact: 12 len {0a len value})
    TableAction 0a len Action{08 action_id  (22 len Param{10 param_id  1a len value})...}

with the table's ids as constants, every value 1 to as many bytes as its width needs, and
every length a one-byte varint. The expression spells out each value length with the
lengths of the messages around it, so a match places every field exactly; the lengths
of the four messages that run to the end (Entity, TableEntry, TableAction, Action) are
checked after the match, so that no bytes outside them (unknown fields) pass unread.

Anything else — a priority, cookies, another field set, match fields or parameters in
another order than the P4Info's, an omitted (don't-care) lpm field, an unknown field, a value too wide, a zero prefix length — does not match, and the update
goes to the protobuf path (`fast_source`), which accepts or declines it as before. Where
this path accepts, it makes the same checks (a value within its width, no bits past the
prefix) and the same `add` call as the INSERT function of `fast_source`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .fast_source import ActionForm, define_function
from .info import FieldInfo

__all__ = ["dispatch_key", "wire_insert_function"]

_MAX_LEN = 0x7F  # a one-byte varint


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def dispatch_key(table_id: int) -> bytes:
    """What an INSERT of an entry of `table_id` holds at [6:11]: the table id's tag and
    its varint (four bytes for P4Info table ids, which lie in [2**21, 2**28))."""
    return b"\x08" + varint(table_id)


def _lit(data: bytes) -> bytes:
    return re.escape(data)


def _value(prefix: Callable[[int], bytes], nbytes: int) -> tuple[bytes, int]:
    """Alternatives, one per value length k (1..nbytes), each `prefix(k)` then a group of
    k bytes; and the number of groups."""
    alts = [_lit(prefix(k)) + b"(.{%d})" % k for k in range(1, nbytes + 1)]
    return b"(?:" + b"|".join(alts) + b")", nbytes


def _field_match(fid: bytes, tag: int, after: int) -> Callable[[int], bytes]:
    """The bytes of a FieldMatch{08 fid <tag> len {0a k value ...}} before its k-byte value,
    for each k: `tag` 12 for Exact, 22 for LPM; `after`: the bytes its inner message holds
    after the value (LPM: 10 plen, 2). One-byte lengths (checked by the caller)."""

    def prefix(k: int) -> bytes:
        inner = k + 2 + after
        return bytes([0x12, len(fid) + 3 + inner, 0x08, *fid, tag, inner, 0x0A, k])

    return prefix


def _key(order: Sequence[FieldInfo]) -> tuple[bytes, int, list[str]] | None:
    """For a key of exact fields and at most one lpm field: the expression of its
    FieldMatches, all present and in key order (a client may send them in any order; it
    then takes the protobuf path), the number of groups it has, and the lines that read
    `matches` from the groups `g` (declining with False); None for other keys."""
    kinds = [f.kind for f in order]
    if not kinds or any(k not in ("exact", "lpm") for k in kinds) or kinds.count("lpm") > 1:
        return None
    pattern = b""
    group = 0  # groups before this field's
    lines: list[str] = []
    made = []
    for i, f in enumerate(order):
        fid = varint(f.id)
        nb = (f.bitwidth + 7) // 8
        w = f.bitwidth
        if len(fid) + nb + 7 > _MAX_LEN:
            return None
        value = " or ".join(f"g[{group + j}]" for j in range(nb))
        lines.append(f'    v{i} = from_bytes({value}, "big")')
        if f.kind == "lpm":
            # FieldMatch{08 fid 22 len LPM{0a k value 10 plen}}
            alt, n = _value(_field_match(fid, 0x22, 2), nb)
            # the prefix length (0, a don't-care, is not sent: the field is omitted)
            pattern += alt + b"\\x10([\\x01-\\x7f])"
            lines += [
                f"    plen = g[{group + nb}][0]",
                f"    if plen > {w} or v{i} >> {w} or v{i} & ((1 << ({w} - plen)) - 1):",
                "        return False",
            ]
            made.append(f"Lpm(v{i}, plen)")
            group += n + 1
        else:
            # FieldMatch{08 fid 12 len Exact{0a k value}}
            alt, n = _value(_field_match(fid, 0x12, 0), nb)
            pattern += alt
            lines += [f"    if v{i} >> {w}:", "        return False"]
            made.append(f"Exact(v{i})")
            group += n
    lines.append(f"    matches = ({''.join(m + ', ' for m in made)})")
    return pattern, group, lines


def wire_insert_function(
    table_id: int,
    order: Sequence[FieldInfo],
    actions: Sequence[ActionForm],
    names: dict[str, Any],
) -> Callable[[bytes, int], bool] | None:
    """`insert(update_bytes, now_us) -> bool` for a table keyed by exact fields and at
    most one lpm field (None for other tables, or when an id or a length would not fit
    the encodings above). `names` binds `plan` (its `stale` flag is set) and `add` (the
    engine table's `add_plain`)."""
    tid = dispatch_key(table_id)
    made = _key(order)
    if made is None or len(tid) != 5:
        return None
    key, ngroups, key_lines = made
    parts: list[bytes] = []
    lines = [
        "def insert(b, now_us):",
        "    m = match(b)",
        "    if m is None:",
        "        return False",
        "    n = len(b)",
        "    p = m.start(ACTION)  # where TableAction starts",
        "    if b[3] != n - 4 or b[5] != n - 6 or b[p + 1] != n - p - 2 or b[p + 3] != n - p - 4:",
        "        return False",
        "    g = m.groups()",
        *key_lines,
    ]
    group = ngroups + 1  # 1-based: the ACTION group comes next
    action_group = group
    group += 1
    first = True
    for aid, name, params in actions:
        marker = group  # a group around the action id: set when this action matched
        group += 1
        body = b"(" + _lit(b"\x08" + varint(aid)) + b")"
        picks = []
        for pid, pw in params:
            pnb = (pw + 7) // 8
            pidv = varint(pid)
            if len(pidv) + pnb + 3 > _MAX_LEN:
                return None

            def param_prefix(k: int, pidv: bytes = pidv) -> bytes:
                return b"\x22" + bytes([len(pidv) + k + 3]) + b"\x10" + pidv + b"\x1a" + bytes([k])

            alt, n = _value(param_prefix, pnb)
            body += alt
            picks.append((group, n, pw))
            group += n
        parts.append(body)
        lines.append(f"    {'if' if first else 'elif'} g[{marker - 1}] is not None:")
        first = False
        lines.append(f"        name = {name!r}")
        for i, (g0, n, _pw) in enumerate(picks):
            data = " or ".join(f"g[{g0 - 1 + j}]" for j in range(n))
            lines.append(f'        a{i} = from_bytes({data}, "big")')
        if picks:
            fits = " or ".join(f"a{i} >> {pw}" for i, (_g, _n, pw) in enumerate(picks))
            lines += [f"        if {fits}:", "            return False"]
        lines.append(f"        args = ({''.join(f'a{i}, ' for i in range(len(picks)))})")
    if not parts:
        return None
    lines += [
        "    else:",
        "        return False",
        "    e = add(matches, 0, name, args)",
        "    plan.stale = True",
        "    e.last_hit_us = now_us",
        "    return True",
    ]
    # Update{08 01 12 len Entity{12 len TableEntry{08 tid, FieldMatch, 1a len {0a len Action}}}}
    pattern = (
        b"\\x08\\x01\\x12[\\x00-\\x7f]\\x12[\\x00-\\x7f]"
        + _lit(tid)
        + key
        + b"(\\x1a)[\\x00-\\x7f]\\x0a[\\x00-\\x7f]"
        + b"(?:"
        + b"|".join(parts)
        + b")"
    )
    rx = re.compile(pattern, re.DOTALL)
    scope = {"match": rx.fullmatch, "ACTION": action_group, **names}
    return define_function("insert", lines, scope, "wire insert")
