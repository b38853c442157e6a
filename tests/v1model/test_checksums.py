"""Tests for softswitch.v1model.checksums."""

from __future__ import annotations

import pytest

from softswitch.v1model.checksums import (
    checksum_data,
    compute_checksum,
    ipv4_style_csum16,
    update_checksum_value,
    verify_checksum_ok,
)
from softswitch.v1model.hashes import UnknownHashAlgorithm, crc32

# IPv4 header of the Wikipedia checksum example, as v1model's usual field list
# (everything but hdrChecksum).
IPV4_FIELDS = [
    (4, 4),  # version
    (5, 4),  # ihl
    (0, 8),  # diffserv
    (0x0073, 16),  # totalLen
    (0, 16),  # identification
    (0b010, 3),  # flags
    (0, 13),  # fragOffset
    (0x40, 8),  # ttl
    (0x11, 8),  # protocol
    (0xC0A80001, 32),  # srcAddr
    (0xC0A800C7, 32),  # dstAddr
]


def test_ipv4_update() -> None:
    assert ipv4_style_csum16(IPV4_FIELDS) == 0xB861
    assert update_checksum_value("csum16", IPV4_FIELDS, 16) == 0xB861


def test_ipv4_verify() -> None:
    assert verify_checksum_ok("csum16", IPV4_FIELDS, 0xB861)
    assert not verify_checksum_ok("csum16", IPV4_FIELDS, 0xB862)


def test_verify_skipped_when_invalid_or_condition_false() -> None:
    assert verify_checksum_ok("csum16", IPV4_FIELDS, 0x1234, condition=False)
    assert verify_checksum_ok("csum16", IPV4_FIELDS, 0x1234, target_header_valid=False)


def test_checksum_field_included_sums_to_zero() -> None:
    fields = IPV4_FIELDS[:8] + [(0x11, 8), (0xB861, 16)] + IPV4_FIELDS[9:]
    assert ipv4_style_csum16(fields) == 0


def test_with_payload_appended_after_padding() -> None:
    fields = [(0xABC, 12)]
    payload = b"\x01\x02\x03"
    data = checksum_data(fields, payload)
    assert data == b"\xab\xc0\x01\x02\x03"
    assert ipv4_style_csum16(fields, payload) == ipv4_style_csum16([(0xABC0, 16), (0x010203, 24)])
    assert compute_checksum("crc32", fields, payload) == crc32(data)


def test_update_truncates_verify_does_not() -> None:
    fields = [(0x31323334, 32)]
    full = crc32(b"1234")
    assert full >> 16  # upper bits non-zero for this input
    assert update_checksum_value("crc32", fields, 16) == full & 0xFFFF
    # BMv2 compares the untruncated value with the field value
    assert not verify_checksum_ok("crc32", fields, full & 0xFFFF)
    assert verify_checksum_ok("crc32", fields, full)


def test_random_rejected() -> None:
    with pytest.raises(UnknownHashAlgorithm):
        compute_checksum("random", IPV4_FIELDS)
