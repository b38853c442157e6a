"""Bytestrings as the spec's "Bytestrings" section defines them (its example tables)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from softswitch.p4runtime.bytestrings import decode_int, decode_uint, encode_int, encode_uint
from softswitch.p4runtime.errors import P4RuntimeError

from ._entities_util import Code

VALID = [  # (signed, width, value, bytestring, canonical)
    (False, 8, 0x63, b"\x63", True),
    (False, 16, 0x63, b"\x00\x63", False),
    (False, 16, 0x63, b"\x63", True),
    (False, 16, 0x3064, b"\x30\x64", True),
    (False, 16, 0x3064, b"\x00\x30\x64", False),
    (False, 12, 0x63, b"\x00\x63", False),
    (False, 12, 0x63, b"\x63", True),
    (False, 12, 0x63, b"\x00\x00\x63", False),
    (True, 8, 99, b"\x63", True),
    (True, 8, -99, b"\x9d", True),
    (True, 8, -99, b"\xff\x9d", False),
    (True, 12, -739, b"\xfd\x1d", True),
    (True, 16, 0, b"\x00\x00", False),
    (True, 16, 0, b"\x00", True),
]
INVALID = [
    (False, 8, b"\x01\x63"),
    (False, 8, b""),
    (False, 16, b"\x01\x00\x63"),
    (False, 12, b"\x10\x63"),
    (False, 12, b"\x01\x00\x63"),
    (False, 12, b"\x00\x40\x63"),
    (True, 8, b"\x00\x9d"),
    (True, 12, b"\x8d\x1d"),
    (True, 16, b""),
]


@pytest.mark.parametrize(("signed", "width", "value", "data", "canonical"), VALID)
def test_valid_examples(signed: bool, width: int, value: int, data: bytes, canonical: bool) -> None:
    decode = decode_int if signed else decode_uint
    assert decode(data, width, "x") == value
    encoded = encode_int(value, width) if signed else encode_uint(value)
    assert (encoded == data) == canonical


@pytest.mark.parametrize(("signed", "width", "data"), INVALID)
def test_invalid_examples_are_out_of_range(signed: bool, width: int, data: bytes) -> None:
    decode = decode_int if signed else decode_uint
    with pytest.raises(P4RuntimeError) as e:
        decode(data, width, "x")
    assert e.value.code == Code.OUT_OF_RANGE


@given(width=st.integers(1, 128), data=st.data(), pad=st.integers(0, 4))
def test_unsigned_round_trip(width: int, data: st.DataObject, pad: int) -> None:
    v = data.draw(st.integers(0, (1 << width) - 1))
    enc = encode_uint(v)
    assert len(enc) == max(1, (v.bit_length() + 7) // 8)
    assert decode_uint(b"\x00" * pad + enc, width, "x") == v


@given(width=st.integers(1, 128), data=st.data(), pad=st.integers(0, 4))
def test_signed_round_trip(width: int, data: st.DataObject, pad: int) -> None:
    v = data.draw(st.integers(-(1 << (width - 1)), (1 << (width - 1)) - 1))
    enc = encode_int(v, width)
    assert encode_int(v & ((1 << width) - 1), width) == enc  # the bit pattern, the same
    fill = b"\xff" if v < 0 else b"\x00"
    assert decode_int(fill * pad + enc, width, "x") == v
    # shortest: dropping the first byte would change the value
    assert len(enc) == 1 or int.from_bytes(enc[1:], "big", signed=True) != v


def test_empty_bytestring_allowed_where_asked() -> None:
    assert decode_uint(b"", 8, "x", allow_empty=True) == 0
    with pytest.raises(P4RuntimeError) as e:
        decode_uint(b"\x02", 1, "x", allow_empty=True)
    assert e.value.code == Code.OUT_OF_RANGE
