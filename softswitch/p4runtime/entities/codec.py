"""Bytestrings, match fields and action specifications <-> softswitch values.

The rules are those of the P4Runtime specification:

* "Bytestrings": `softswitch.p4runtime.bytestrings` (any length in, value checked against
  the bitwidth, OUT_OF_RANGE if it does not fit; canonical out).
* "Match Format": a don't-care match is the omission of the field; a ternary mask of 0,
  an lpm prefix length of 0 or a range covering every value is INVALID_ARGUMENT, as are
  value bits outside the ternary mask or the lpm prefix, `low > high`, a missing exact
  field, an unknown or repeated field id, and a match kind that differs from the P4Info.
* "Action Specification": every parameter exactly once, ids from the P4Info
  (INVALID_ARGUMENT otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import grpc

from ...engine import matches as M
from ..bytestrings import decode_uint, encode_uint
from ..errors import P4RuntimeError
from .info import ActionInfo, FieldInfo, P4InfoIndex

__all__ = [
    "decode_action",
    "decode_matches",
    "encode_action",
    "encode_matches",
    "fail",
]

Code = grpc.StatusCode


def fail(code: grpc.StatusCode, message: str) -> P4RuntimeError:
    """The error to raise (`raise fail(Code.NOT_FOUND, "...")`)."""
    return P4RuntimeError(code, message)


# ---------------------------------------------------------------- match fields


def decode_matches(
    fields: dict[int, FieldInfo],
    order: Sequence[FieldInfo],
    msgs: Iterable,
    what: str,
) -> tuple[M.Match, ...]:
    """FieldMatch messages -> one engine match per field in `order` (omitted: Wildcard)."""
    got: dict[int, M.Match] = {}
    for fm in msgs:
        f = fields.get(fm.field_id)
        if f is None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown match field id {fm.field_id}")
        if fm.field_id in got:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: match field {f.name} given twice")
        got[fm.field_id] = _decode_match(f, fm, what)
    out: list[M.Match] = []
    for f in order:
        m = got.get(f.id)
        if m is None:
            if f.kind == "exact":
                raise fail(Code.INVALID_ARGUMENT, f"{what}: exact match field {f.name} missing")
            m = M.Wildcard()
        out.append(m)
    return tuple(out)


def _decode_match(f: FieldInfo, fm, what: str) -> M.Match:  # noqa: C901 - one case per kind
    kind = fm.WhichOneof("field_match_type")
    if kind == "exact" == f.kind:  # the common case, without building messages
        data = fm.exact.value
        v = int.from_bytes(data, "big")
        if data and not v >> f.bitwidth:
            return M.Exact(v)
    elif kind == "lpm" == f.kind:
        data, plen, w = fm.lpm.value, fm.lpm.prefix_len, f.bitwidth
        v = int.from_bytes(data, "big")
        if data and 0 < plen <= w and not v >> w and not v & ~M.lpm_mask(plen, w):
            return M.Lpm(v, plen)
    where = f"{what}: match field {f.name}"
    if kind != f.kind:
        raise fail(Code.INVALID_ARGUMENT, f"{where} is {f.kind}, got {kind or 'nothing'}")
    w = f.bitwidth
    if kind == "exact":
        return M.Exact(decode_uint(fm.exact.value, w, where))
    if kind == "optional":
        return M.Optional(decode_uint(fm.optional.value, w, where))
    if kind == "lpm":
        plen = fm.lpm.prefix_len
        if not 0 < plen <= w:
            detail = "a don't-care lpm match must be omitted" if plen == 0 else "out of range"
            raise fail(Code.INVALID_ARGUMENT, f"{where}: prefix length {plen}: {detail}")
        v = decode_uint(fm.lpm.value, w, where)
        if v & ~M.lpm_mask(plen, w):
            raise fail(Code.INVALID_ARGUMENT, f"{where}: bits beyond the /{plen} prefix are set")
        return M.Lpm(v, plen)
    if kind == "ternary":
        v = decode_uint(fm.ternary.value, w, where)
        mask = decode_uint(fm.ternary.mask, w, where)
        if mask == 0:
            raise fail(Code.INVALID_ARGUMENT, f"{where}: a don't-care match must be omitted")
        if v & ~mask:
            raise fail(Code.INVALID_ARGUMENT, f"{where}: value bits outside the mask are set")
        return M.Ternary(v, mask)
    if kind == "range":
        lo = decode_uint(fm.range.low, w, where)
        hi = decode_uint(fm.range.high, w, where)
        if lo > hi:
            raise fail(Code.INVALID_ARGUMENT, f"{where}: low bound {lo} above high bound {hi}")
        if lo == 0 and hi == (1 << w) - 1:
            raise fail(Code.INVALID_ARGUMENT, f"{where}: a don't-care range must be omitted")
        return M.Range(lo, hi)
    raise fail(Code.INVALID_ARGUMENT, f"{where}: unsupported match kind {kind}")


def encode_matches(order: Sequence[FieldInfo], matches: Sequence[M.Match], out) -> None:
    """Append the canonical FieldMatch of every non-don't-care match to `out` (a repeated
    field), by field id order."""
    pairs = sorted(zip(order, matches, strict=True), key=lambda p: p[0].id)
    for f, m in pairs:
        _encode_match(f, m, out)


def _encode_match(f: FieldInfo, m: M.Match, out) -> None:  # noqa: C901 - one case per kind
    w = f.bitwidth
    full = (1 << w) - 1
    if isinstance(m, M.Wildcard):
        return
    if f.kind == "exact":
        value = m.value if isinstance(m, M.Exact | M.Optional) else _point(m)
        out.add(field_id=f.id).exact.value = encode_uint(value)
    elif f.kind == "optional":
        out.add(field_id=f.id).optional.value = encode_uint(_point(m))
    elif f.kind == "lpm":
        if isinstance(m, M.Lpm):
            v, plen = m.value & M.lpm_mask(m.prefix_len, w), m.prefix_len
        else:
            v, plen = _point(m), w
        if plen == 0:
            return
        fm = out.add(field_id=f.id)
        fm.lpm.value = encode_uint(v)
        fm.lpm.prefix_len = plen
    elif f.kind == "ternary":
        if isinstance(m, M.Ternary):
            v, mask = m.value & m.mask, m.mask
        elif isinstance(m, M.Lpm):
            mask = M.lpm_mask(m.prefix_len, w)
            v = m.value & mask
        else:
            v, mask = _point(m), full
        if mask == 0:
            return
        fm = out.add(field_id=f.id)
        fm.ternary.value = encode_uint(v)
        fm.ternary.mask = encode_uint(mask)
    elif f.kind == "range":
        lo, hi = (m.low, m.high) if isinstance(m, M.Range) else (_point(m), _point(m))
        if lo == 0 and hi == full:
            return
        fm = out.add(field_id=f.id)
        fm.range.low = encode_uint(lo)
        fm.range.high = encode_uint(hi)


def _point(m: M.Match) -> int:
    if isinstance(m, M.Exact | M.Optional):
        return m.value
    if isinstance(m, M.Ternary | M.Lpm):
        return m.value
    if isinstance(m, M.Range):
        return m.low
    raise TypeError(m)


# ---------------------------------------------------------------- actions


def decode_action(index: P4InfoIndex, msg, what: str) -> tuple[ActionInfo, tuple[int, ...]]:
    """An `Action` message -> (action, arguments in declaration order)."""
    if msg.action_id == 0:
        raise fail(Code.INVALID_ARGUMENT, f"{what}: action id missing")
    a = index.actions.get(msg.action_id)
    if a is None:
        raise fail(Code.INVALID_ARGUMENT, f"{what}: unknown action id {msg.action_id}")
    by_id = a.params_by_id
    args: list[int | None] = [None] * len(a.params)
    for p in msg.params:
        pi = by_id.get(p.param_id)
        if pi is None:
            raise fail(
                Code.INVALID_ARGUMENT, f"{what}: action {a.name} has no parameter id {p.param_id}"
            )
        pos = pi.position
        if args[pos] is not None:
            raise fail(Code.INVALID_ARGUMENT, f"{what}: parameter {pi.name} given twice")
        data = p.value
        v = int.from_bytes(data, "big")
        if not data or v >> pi.bitwidth:
            decode_uint(data, pi.bitwidth, f"{what}: parameter {pi.name}")  # raises
        args[pos] = v
    if None in args:
        pi = a.params[args.index(None)]
        raise fail(Code.INVALID_ARGUMENT, f"{what}: action {a.name}: parameter {pi.name} missing")
    return a, tuple(args)  # type: ignore[arg-type]


def encode_action(a: ActionInfo, args: Sequence[int], out) -> None:
    """Fill the `Action` message `out` canonically."""
    out.action_id = a.id
    for pi, v in zip(a.params, args, strict=False):
        out.params.add(param_id=pi.id, value=encode_uint(v))
