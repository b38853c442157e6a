"""Tests for softswitch.v1model.hashes (expected values from BMv2's test_calculations.cpp)."""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from softswitch.v1model import hashes as H
from softswitch.v1model.hashes import (
    ALGORITHMS,
    CrcConfig,
    UnknownHashAlgorithm,
    crc16,
    crc16_custom,
    crc32,
    crc32_custom,
    crc_ccitt,
    crc_custom,
    csum16,
    hash_result,
    identity,
    pack_fields,
    xor16,
    xor32,
)

CHECK = b"123456789"
SAMPLE = bytes([0x0B, 0xB8, 0x1F, 0x90])  # BMv2 HashTest input


# ---------------------------------------------------------------- pack_fields


def test_pack_fields_aligned() -> None:
    assert pack_fields([(0x1234, 16), (0xAB, 8)]) == b"\x12\x34\xab"


def test_pack_fields_bmv2_constant_non_aligned() -> None:
    # BMv2 CalculationTest.WithConstantNonAligned: 4 zero bits, f16 = 0xffff,
    # 12-bit constant 0x9fd -> identity = 0x0ffff9fd
    data = pack_fields([(0, 4), (0xFFFF, 16), (0x9FD, 12)])
    assert data == bytes.fromhex("0ffff9fd")
    assert identity(data) == 0x0FFFF9FD


def test_pack_fields_bmv2_extra() -> None:
    # BMv2 CalculationTest.Extra: f6=0x3d, f8=0x3e, f9=1, f9=0 -> 0xf4f80200
    data = pack_fields([(0x3D, 6), (0x3E, 8), (1, 9), (0, 9)])
    assert identity(data) == 0xF4F80200


def test_pack_fields_pads_at_end() -> None:
    assert pack_fields([(0b101, 3)]) == bytes([0b1010_0000])
    assert pack_fields([(1, 1), (0x1FF, 9)]) == bytes([0xFF, 0xC0])


def test_pack_fields_masks_and_edge_cases() -> None:
    assert pack_fields([]) == b""
    assert pack_fields([(5, 0)]) == b""
    assert pack_fields([(0x1FF, 8)]) == b"\xff"  # truncated
    assert pack_fields([(-1, 4), (0, 4)]) == b"\xf0"  # two's complement
    with pytest.raises(ValueError):
        pack_fields([(0, -1)])


# ---------------------------------------------------------------- CRCs


def test_crc_check_values() -> None:
    assert crc32(CHECK) == 0xCBF43926
    assert crc16(CHECK) == 0xBB3D
    assert crc_ccitt(CHECK) == 0x29B1


def test_crc_bmv2_vectors() -> None:
    assert crc16(SAMPLE) == 0x5D8A
    assert crc32(SAMPLE) == 0x005D6A6F
    assert crc_ccitt(SAMPLE) == 0x5D75


def test_crc_empty() -> None:
    assert crc16(b"") == 0
    assert crc32(b"") == 0


def test_crc16_table_matches_bmv2() -> None:
    table = H._msb_table(16, 0x8005)
    assert table[:8] == (0x0000, 0x8005, 0x800F, 0x000A, 0x801B, 0x001E, 0x0014, 0x8011)
    assert table[-8:] == (0x8213, 0x0216, 0x021C, 0x8219, 0x0208, 0x820D, 0x8207, 0x0202)


def test_custom_defaults_equal_standard() -> None:
    for data in (b"", CHECK, SAMPLE, bytes(range(256))):
        assert crc16_custom(data) == crc16(data)
        assert crc32_custom(data) == crc32(data)


def test_custom_reconfigured_bmv2_vectors() -> None:
    assert crc16_custom(SAMPLE, CrcConfig(16, 0x1021, 0xFFFF, 0, False, False)) == 0x5D75
    assert crc16_custom(SAMPLE, CrcConfig(16, 0x1021, 0x0000, 0, False, False)) == 0xD9B5
    mpeg2 = CrcConfig(32, 0x04C11DB7, 0xFFFFFFFF, 0, False, False)
    assert crc32_custom(SAMPLE, mpeg2) == 0x125E1592
    with pytest.raises(ValueError):
        crc16_custom(SAMPLE, mpeg2)


# (width, poly, init, xorout, refin/refout, check) from BMv2 crc_map.cpp + test
CATALOGUE = [
    (8, 0x07, 0x00, 0x00, False, 0xF4),
    (8, 0x39, 0x00, 0x00, True, 0x15),
    (8, 0x1D, 0xFD, 0x00, False, 0x7E),
    (8, 0x07, 0x00, 0x55, False, 0xA1),
    (8, 0x31, 0x00, 0x00, True, 0xA1),
    (8, 0x07, 0xFF, 0x00, True, 0xD0),
    (8, 0x9B, 0x00, 0x00, True, 0x25),
    (16, 0x8005, 0x0000, 0x0000, True, 0xBB3D),
    (16, 0x8005, 0x0000, 0x0000, False, 0xFEE8),
    (16, 0x8005, 0x800D, 0x0000, False, 0x9ECF),
    (16, 0x0589, 0x0000, 0x0001, False, 0x007E),
    (16, 0x3D65, 0x0000, 0xFFFF, True, 0xEA82),
    (16, 0x3D65, 0x0000, 0xFFFF, False, 0xC2B7),
    (16, 0x1021, 0xFFFF, 0xFFFF, False, 0xD64E),
    (16, 0x8005, 0x0000, 0xFFFF, True, 0x44C2),
    (16, 0x1021, 0xFFFF, 0x0000, True, 0x6F91),
    (16, 0x1021, 0xB2AA, 0x0000, True, 0x63D0),
    (16, 0x8BB7, 0x0000, 0x0000, False, 0xD0DB),
    (16, 0xA097, 0x0000, 0x0000, False, 0x0FB3),
    (16, 0x8005, 0xFFFF, 0xFFFF, True, 0xB4C8),
    (16, 0x1021, 0xFFFF, 0xFFFF, True, 0x906E),
    (16, 0x1021, 0x0000, 0x0000, False, 0x31C3),
    (16, 0x8005, 0xFFFF, 0x0000, True, 0x4B37),
    (16, 0x1021, 0x0000, 0x0000, True, 0x2189),
    (16, 0x1021, 0xFFFF, 0x0000, False, 0x29B1),
    (16, 0x1021, 0x1D0F, 0x0000, False, 0xE5CC),
    (32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, 0xCBF43926),
    (32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, False, 0xFC891918),
    (32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, True, 0xE3069283),
    (32, 0xA833982B, 0xFFFFFFFF, 0xFFFFFFFF, True, 0x87315576),
    (32, 0x04C11DB7, 0xFFFFFFFF, 0x00000000, False, 0x0376E6E7),
    (32, 0x04C11DB7, 0x00000000, 0xFFFFFFFF, False, 0x765E7680),
    (32, 0x814141AB, 0x00000000, 0x00000000, False, 0x3010BF7F),
    (32, 0x04C11DB7, 0xFFFFFFFF, 0x00000000, True, 0x340BC6D9),
    (32, 0x000000AF, 0x00000000, 0x00000000, False, 0xBD0BE338),
    (64, 0x1B, 0, 0, True, 0x46A5A9388A5BEFFE),
    (64, 0x42F0E1EBA9EA3693, (1 << 64) - 1, (1 << 64) - 1, False, 0x62EC59E3F1A4F00A),
    (64, 0xAD93D23594C935A9, (1 << 64) - 1, 0, True, 0xCAA717168609F281),
]


@pytest.mark.parametrize(("width", "poly", "init", "xorout", "ref", "check"), CATALOGUE)
def test_crc_custom_catalogue(
    width: int, poly: int, init: int, xorout: int, ref: bool, check: int
) -> None:
    assert crc_custom(CHECK, width, poly, init, xorout, ref, ref) == check


def test_crc64_custom_default() -> None:
    assert H.crc64_custom(CHECK) == 0x46A5A9388A5BEFFE
    assert H.crc8_custom(CHECK) == 0xF4


def test_crc_small_width_bitwise() -> None:
    # CRC-5/USB: poly 0x05, init 0x1f, refin/refout, xorout 0x1f, check 0x19
    assert crc_custom(CHECK, 5, 0x05, 0x1F, 0x1F, True, True) == 0x19
    # CRC-3/GSM: poly 0x3, init 0, no reflection, xorout 0x7, check 0x4
    assert crc_custom(CHECK, 3, 0x3, 0x0, 0x7, False, False) == 0x4


@given(st.binary(max_size=64))
def test_crc32_matches_zlib_and_custom(data: bytes) -> None:
    assert crc32(data) == zlib.crc32(data)
    assert crc_custom(data, 32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True) == crc32(data)


# ---------------------------------------------------------------- csum16


IPV4_HDR = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")


def test_csum16_ipv4_example() -> None:
    assert csum16(IPV4_HDR) == 0xB861
    with_cksum = IPV4_HDR[:10] + b"\xb8\x61" + IPV4_HDR[12:]
    assert csum16(with_cksum) == 0


def test_csum16_edges() -> None:
    assert csum16(b"") == 0xFFFF
    assert csum16(b"\x00\x00\x00") == 0xFFFF
    assert csum16(b"\x01") == 0xFEFF  # odd byte padded after it
    assert csum16(b"\xff\xff") == 0x0000
    assert csum16(b"\xff\xff\xff\xff") == 0x0000
    assert csum16(b"\x00\x01\xff\xff") == 0xFFFE  # end-around carry


def _bmv2_cksum16_model(buf: bytes) -> int:
    """Literal model of BMv2's little-endian 64-bit cksum16 loop (x86)."""
    total = 0
    i = 0
    n = len(buf)

    def add(s: int) -> None:
        nonlocal total
        total += s
        if total >= 1 << 64:
            total = (total - (1 << 64)) + 1

    while n - i >= 8:
        add(struct.unpack_from("<Q", buf, i)[0])
        i += 8
    rem = n - i
    if rem & 4:
        add(struct.unpack_from("<I", buf, i)[0])
        i += 4
    if rem & 2:
        add(struct.unpack_from("<H", buf, i)[0])
        i += 2
    if rem & 1:
        add(buf[i])
    t1 = (total & 0xFFFFFFFF) + (total >> 32)
    if t1 >= 1 << 32:
        t1 = (t1 & 0xFFFFFFFF) + 1
    t3 = (t1 & 0xFFFF) + (t1 >> 16)
    if t3 >= 1 << 16:
        t3 = (t3 & 0xFFFF) + 1
    neg = ~t3 & 0xFFFF
    return ((neg & 0xFF) << 8) | (neg >> 8)  # ntohs on little-endian


@given(st.binary(max_size=80))
def test_csum16_matches_bmv2_le_model(data: bytes) -> None:
    assert csum16(data) == _bmv2_cksum16_model(data)


# ---------------------------------------------------------------- xor / identity


def test_xor16_bmv2_vectors() -> None:
    assert xor16(SAMPLE) == 0x1428
    assert xor16(SAMPLE + b"\x5a") == 0x4E28
    assert xor16(b"") == 0


def test_xor32_bmv2_vectors() -> None:
    base = bytes([0x0B, 0x0B, 0xB8, 0xB8, 0x1F, 0x1F, 0x90, 0x90])
    assert xor32(base) == 0x14142828
    assert xor32(base + b"\x5a") == 0x4E142828
    assert xor32(base + b"\x5a\x5a") == 0x4E4E2828
    assert xor32(base + b"\x5a\x5a\xbd") == 0x4E4E9528


def test_identity() -> None:
    assert identity(bytes([1, 2, 3, 4, 5])) == 0x0102030405
    assert identity(b"") == 0
    # only the first 8 bytes count
    assert identity(bytes(range(1, 11))) == 0x0102030405060708


# ---------------------------------------------------------------- registry / hash()


def test_registry_names() -> None:
    assert set(ALGORITHMS) == set(H.V1MODEL_HASH_ALGORITHMS) - {"random"}
    assert ALGORITHMS["crc16"](CHECK) == 0xBB3D


def test_hash_random_rejected() -> None:
    with pytest.raises(UnknownHashAlgorithm):
        hash_result("random", 0, b"x", 10, 16)
    with pytest.raises(UnknownHashAlgorithm):
        hash_result("nope", 0, b"x", 10, 16)


def test_hash_result_max_zero_and_one_give_base() -> None:
    assert hash_result("crc32", 7, CHECK, 0, 16) == 7
    assert hash_result("crc32", 7, CHECK, 1, 16) == 7


def test_hash_result_base_and_modulo() -> None:
    h = 0xCBF43926
    assert hash_result("crc32", 0, CHECK, 1 << 16, 16) == h & 0xFFFF
    assert hash_result("crc32", 100, CHECK, 1000, 32) == 100 + h % 1000
    assert hash_result("crc16", 5, CHECK, 0x10000, 16) == (5 + 0xBB3D) & 0xFFFF  # truncation
    assert hash_result("crc32", 0, CHECK, 1 << 32, 8) == h & 0xFF


def test_hash_result_u64_wrap() -> None:
    # (h % max) + base wraps at 2**64 before truncation to the output width
    base = (1 << 64) - 1
    assert hash_result("identity", base, b"\x02", 10, 64) == 1


def test_hash_result_custom_config() -> None:
    xmodem = CrcConfig(16, 0x1021, 0, 0, False, False)
    assert hash_result("crc16_custom", 0, SAMPLE, 1 << 16, 16, crc_config=xmodem) == 0xD9B5
    assert hash_result("crc16_custom", 0, SAMPLE, 1 << 16, 16) == 0x5D8A


def test_hash_result_csum16_xor16() -> None:
    assert hash_result("csum16", 0, IPV4_HDR, 1 << 16, 16) == 0xB861
    assert hash_result("xor16", 1, SAMPLE, 0x1000, 16) == 1 + 0x1428 % 0x1000
