"""Helpers the generated code of v1model programs calls (hashes, checksums, field lists)."""

from __future__ import annotations

from collections.abc import Sequence

from .hashes import compute, hash_result, pack_fields

__all__ = ["_checksum", "_hash", "_pack"]

Triple = tuple[int, int, bool]


def _pack(fields: Sequence[Triple]) -> bytes:
    """Pack (value, width, valid) fields MSB-first; fields of invalid headers are left out."""
    return pack_fields([(v, w) for v, w, ok in fields if ok])


def _hash(algo: str, base: int, data: bytes, max_: int, width: int) -> int:
    return hash_result(algo, base, data, max_, width)


def _checksum(algo: str, fields: Sequence[Triple], width: int, payload: bytes | None) -> int:
    data = _pack(fields)
    if payload:
        data += payload
    return compute(algo, data) & ((1 << width) - 1)
