"""P4Runtime bytestrings <-> integers: the one codec of the server.

The rules are the P4Runtime specification's ("Bytestrings"):

* A received bytestring may have any length: canonical, or padded with leading zero
  bytes (as p4runtime-shell and many clients send them); it is judged by its value.
* A value that does not fit the field's bitwidth is OUT_OF_RANGE; so is an empty
  bytestring, except where a caller allows it (BMv2 reads an empty packet-out metadata
  value as 0).
* Signed values (`int<W>`, in `P4Data` and register/digest data) are two's complement,
  sign-extended to whole bytes.
* Every bytestring the server produces is canonical: the shortest one holding the value,
  at least one byte.

Table entries, action parameters, multicast replicas, registers, packet-in/packet-out
metadata and digests all go through these functions.
"""

from __future__ import annotations

import grpc

from .errors import P4RuntimeError

__all__ = ["decode_int", "decode_uint", "encode_int", "encode_uint"]

_OUT_OF_RANGE = grpc.StatusCode.OUT_OF_RANGE


def decode_uint(data: bytes, width: int, what: str, allow_empty: bool = False) -> int:
    """The unsigned value of a bytestring for a `bit<width>` field.

    OUT_OF_RANGE if the value needs more than `width` bits, or if `data` is empty and
    `allow_empty` is false (an allowed empty string is 0)."""
    if not data:
        if allow_empty:
            return 0
        raise P4RuntimeError(_OUT_OF_RANGE, f"{what}: empty bytestring")
    v = int.from_bytes(data, "big")
    if v >> width:
        raise P4RuntimeError(
            _OUT_OF_RANGE, f"{what}: value 0x{data.hex()} does not fit in {width} bits"
        )
    return v


def decode_int(data: bytes, width: int, what: str) -> int:
    """The value of a two's-complement bytestring for an `int<width>` field (OUT_OF_RANGE
    if it is empty or outside the field's range)."""
    if not data:
        raise P4RuntimeError(_OUT_OF_RANGE, f"{what}: empty bytestring")
    v = int.from_bytes(data, "big", signed=True)
    if not -(1 << (width - 1)) <= v < (1 << (width - 1)):
        raise P4RuntimeError(_OUT_OF_RANGE, f"{what}: value {v} does not fit in int<{width}>")
    return v


def encode_uint(value: int) -> bytes:
    """The canonical bytestring of an unsigned value (0 is one zero byte)."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def encode_int(value: int, width: int) -> bytes:
    """The canonical (shortest two's-complement) bytestring of an `int<width>` value.

    `value` may be the signed value or its `width`-bit pattern (-1 and 0xFF are the same
    `int<8>`)."""
    value &= (1 << width) - 1
    if value >> (width - 1):
        value -= 1 << width
    bits = (value if value >= 0 else ~value).bit_length() + 1
    return value.to_bytes(max(1, (bits + 7) // 8), "big", signed=True)
