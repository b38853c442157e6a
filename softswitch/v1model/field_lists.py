"""Field lists of hash and checksum calls -> generated code for BMv2's byte string.

BMv2 serialises a field list by concatenating each field's bits, most significant first,
leaving out the fields of invalid headers, and padding the end with zero bits to a whole
byte (`hashes.pack_fields`). When every field has a fixed width and the fields share one
validity condition (the usual `{ hdr.ipv4.version, ..., hdr.ipv4.dst_addr }`), the
generated code builds that string with one shift-or expression and one `to_bytes`; other
lists go through `_pack` at run time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..codegen.arch_api import ArchContext, V, as_bits, field_py
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError

__all__ = ["Part", "bytes_code", "csum16_code", "flatten", "int_code", "triples_code", "valid_of"]

_SIMPLE = re.compile(r"[A-Za-z_][\w.]*|\d+")
# the local that holds a field list's header or struct while its fields are read
_OWNER = "_fl_owner"


@dataclass(slots=True, frozen=True)
class Part:
    """One field of a flattened list: its unsigned value, width and validity (code)."""

    code: str
    width: int
    valid: str
    fixed: bool  # a plain bit<W>/int<W>/bool value (no varbit or other run-time width)


def valid_of(cx: ArchContext, e: A.Expr | None) -> str:
    """Code for the validity of the header a field belongs to ("True" if none)."""
    if isinstance(e, A.Member):
        base = cx.expr(e.base)
        bt = T.strip_newtype(base.type)
        if isinstance(bt, T.StructLikeType) and bt.is_header:
            return f"{base.code}._v"
    return "True"


def flatten(cx: ArchContext, e: A.Expr | None) -> list[Part]:
    """The fields of a field-list argument, structs and headers expanded in order."""
    parts: list[Part] = []
    if e is not None:
        _flatten(cx, e, parts)
    return parts


def _flatten(cx: ArchContext, e: A.Expr, parts: list[Part]) -> None:
    if isinstance(e, A.ListExpr):
        for i in e.items:
            _flatten(cx, i, parts)
        return
    if isinstance(e, A.StructExpr):
        for _n, i in e.fields:
            _flatten(cx, i, parts)
        return
    _flatten_value(cx.expr(e), valid_of(cx, e), parts)


def _flatten_value(v: V, valid: str, parts: list[Part]) -> None:
    t = T.strip_newtype(v.type)
    if isinstance(t, T.StructLikeType):
        inner_valid = f"{v.code}._v" if t.is_header else valid
        for n, ft in t.fields.items():
            _flatten_value(V(f"{v.code}.{field_py(n)}", ft), inner_valid, parts)
        return
    if isinstance(t, T.IntLiteralType):
        raise P4TypeError("int values in a field list need a width", "<program>", 0, 0)
    fixed = isinstance(t, T.BitType | T.BoolType)
    parts.append(Part(as_bits(v.code, t), T.width_of(t), valid, fixed))


def triples_code(parts: list[Part]) -> str:
    """A Python tuple of (value, width, valid) triples (what `_pack` takes)."""
    return "(" + "".join(f"({p.code}, {p.width}, {p.valid}), " for p in parts) + ")"


def bytes_code(parts: list[Part]) -> str:
    """Code for the serialised field list (a `bytes` value)."""
    if not parts:
        return 'b""'
    valids = {p.valid for p in parts}
    if len(valids) != 1 or not all(p.fixed for p in parts):
        return f"_pack({triples_code(parts)})"
    terms, nbytes = _packed_terms(parts)
    if not terms:
        return 'b""'
    packed = f"({' | '.join(terms)}).to_bytes({nbytes}, 'big')"
    (valid,) = valids
    return packed if valid == "True" else f"({packed} if {valid} else b'')"


def int_code(parts: list[Part]) -> tuple[str, int, str] | None:
    """The serialised field list as one int without making bytes: (code, its length in
    bytes, the fields' validity code), or None where the list needs `bytes_code` (fields
    of several headers, varbits, no fields)."""
    if not parts or len({p.valid for p in parts}) != 1 or not all(p.fixed for p in parts):
        return None
    terms, nbytes = _packed_terms(parts)
    if not terms:
        return None
    code = terms[0] if len(terms) == 1 else f"({' | '.join(terms)})"
    return code, nbytes, parts[0].valid


def csum16_code(parts: list[Part], known_valid: str = "True") -> str | None:
    """Code for csum16 of the serialised field list without making its bytes: the fields
    packed as one int (0 when their header is invalid, which sums as no bytes do), or
    None where the list needs `bytes_code` (fields of several headers, varbits, none).
    `known_valid`: a validity the code runs under (its test is then left out)."""
    if not parts or len({p.valid for p in parts}) != 1 or not all(p.fixed for p in parts):
        return None
    terms = _summed_terms(parts)
    if not terms:
        return None
    summed = " + ".join(terms)
    valid = parts[0].valid
    if valid not in ("True", known_valid):
        summed = f"(({summed}) if {valid} else 0)"
    # csum16_sum written out (a call less per checksum): the sum folded modulo 0xFFFF,
    # where a non-zero sum that folds to 0 stands for 0xFFFF, then complemented
    return f"(~((_cs := {summed}) % 0xFFFF or (0xFFFF if _cs else 0)) & 0xFFFF)"


def _placed(parts: list[Part], nbits: int) -> list[tuple[str, int]]:
    """(code, shift) of each field of the list laid out in an `nbits`-bit whole: the field
    sits `shift` bits above its last bit. Zero-width fields take no place. Fields read
    from one header or struct (`hdr.ipv4.version`, `hdr.ipv4.ihl`, ...) take it in a
    local once, in the first field read (the terms are evaluated in order)."""
    placed = []
    shift = nbits
    for p in parts:
        if p.width == 0:
            continue
        shift -= p.width
        placed.append((p.code if _SIMPLE.fullmatch(p.code) else f"({p.code})", shift))
    return _one_read_of_the_owner(placed)


def _one_read_of_the_owner(placed: list[tuple[str, int]]) -> list[tuple[str, int]]:
    owners = {code.rpartition(".")[0] for code, _ in placed}
    if len(placed) < 3 or len(owners) != 1:
        return placed
    (owner,) = owners
    if "." not in owner or not _SIMPLE.fullmatch(owner):
        return placed  # a plain local already, or not a chain of field reads
    first, shift0 = placed[0]
    out = [(f"({_OWNER} := {owner}).{first.rpartition('.')[2]}", shift0)]
    out.extend((f"{_OWNER}.{code.rpartition('.')[2]}", shift) for code, shift in placed[1:])
    return out


def _summed_terms(parts: list[Part]) -> list[str]:
    """Each field shifted left by its bit position in the list modulo 16 (the list padded
    to whole 16-bit words as csum16 reads it): their sum is what `hashes.csum16_sum`
    folds (`csum16_code` writes that fold out)."""
    nbytes = (sum(p.width for p in parts) + 7) // 8
    placed = _placed(parts, nbytes * 8 + (8 if nbytes % 2 else 0))
    return [f"({code} << {shift % 16})" if shift % 16 else code for code, shift in placed]


def _packed_terms(parts: list[Part]) -> tuple[list[str], int]:
    """The shifted fields whose OR is the field list as one int, and its bytes (BMv2
    pads the list with zero bits after its last field to whole bytes)."""
    nbits = sum(p.width for p in parts)
    nbits += -nbits % 8
    terms = [f"{code} << {shift}" if shift else code for code, shift in _placed(parts, nbits)]
    return terms, nbits // 8
