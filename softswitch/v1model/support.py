"""Helpers the generated code of v1model programs calls (hashes, checksums, field lists)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from .hashes import BMV2_ALGORITHMS, compute, hash_result, pack_fields

__all__ = ["_HASHES", "_checksum", "_crc32", "_hash", "_pack"]

Triple = tuple[int, int, bool]

# algorithm name -> function of the serialised field list (BMv2's calculations); generated
# code calls these directly when the algorithm is known at compile time
_HASHES = BMV2_ALGORITHMS

# BMv2's crc32 is zlib's (the standard reflected CRC-32), called without a wrapper
_crc32 = zlib.crc32


def _pack(fields: Sequence[Triple]) -> bytes:
    """Pack (value, width, valid) fields MSB-first; fields of invalid headers are left out."""
    return pack_fields([(v, w) for v, w, ok in fields if ok])


def _hash(algo: str, base: int, data: bytes, max_: int, width: int) -> int:
    return hash_result(algo, base, data, max_, width)


def _checksum(algo: str, data: bytes, width: int) -> int:
    """update_checksum's value over the serialised field list (and payload, if any)."""
    return compute(algo, data) & ((1 << width) - 1)
