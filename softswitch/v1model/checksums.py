"""v1model ``verify_checksum`` / ``update_checksum`` (and ``*_with_payload``) as in BMv2.

p4c turns each of these calls into a BMv2 ``checksum`` object backed by a
``calculation`` whose input is the field list (plus a ``payload`` element for the
``_with_payload`` variants).  BMv2 semantics (``src/bm_sim/checksums.cpp``,
``parser.cpp``, ``deparser.cpp``, ``calculations.cpp``):

* The calculation input is serialised with :func:`~softswitch.v1model.hashes.pack_fields`
  (fields of invalid headers are skipped), zero-padded to a byte boundary, then
  -- for ``_with_payload`` -- the packet payload is appended.  The payload is
  whatever the parser did not extract (at verify time, end of parsing) or the
  part of the packet that is not a deparsed header (at update time, start of the
  deparser, before the headers are emitted).
* The algorithm's raw ``uint64_t`` output is used.  The checksum field itself is
  *not* part of the data unless the program lists it.

``verify_checksum`` (run by the parser after parsing, in program order):
  returns "ok" without computing anything if the header holding the checksum
  field is invalid, or if the ``condition`` is false.  Otherwise it is ok iff
  the computed value equals the field's value -- compared as full ``uint64_t``
  values, the computed one *not* truncated to the field width.  On failure BMv2
  sets ``standard_metadata.checksum_error = 1`` (and keeps processing).

``update_checksum`` (run at the start of the deparser, in program order):
  does nothing if the ``condition`` is false; otherwise writes the computed value
  into the field, truncated to the field width.  The validity of the target
  field's header is *not* checked (writing into an invalid header is harmless
  because it is not emitted).
"""

from __future__ import annotations

from collections.abc import Sequence

from softswitch.v1model.hashes import CrcConfig, compute, csum16, pack_fields

__all__ = [
    "checksum_data",
    "compute_checksum",
    "ipv4_style_csum16",
    "update_checksum_value",
    "verify_checksum_ok",
]


def checksum_data(fields: Sequence[tuple[int, int]], payload: bytes | None = None) -> bytes:
    """Byte buffer BMv2 feeds to the checksum algorithm.

    ``fields`` are ``(value, bit_width)`` pairs (already excluding fields of
    invalid headers); they are packed MSB-first and zero-padded at the end to a
    byte boundary, and ``payload`` (if not ``None``) is appended after that.
    """
    data = pack_fields(fields)
    if payload:
        data += payload
    return data


def ipv4_style_csum16(fields: Sequence[tuple[int, int]], payload: bytes | None = None) -> int:
    """``csum16`` over the packed ``fields`` (+ optional ``payload``).

    For an IPv4 header list without ``hdrChecksum`` this is the value
    ``update_checksum`` stores, e.g. ``0xB861`` for the Wikipedia example
    header.  Result is in ``[0, 0xFFFF]``; all-zero/empty data gives ``0xFFFF``.
    """
    return csum16(checksum_data(fields, payload))


def compute_checksum(
    algo: str,
    fields: Sequence[tuple[int, int]],
    payload: bytes | None = None,
    *,
    crc_config: CrcConfig | None = None,
) -> int:
    """Raw (untruncated, ``uint64_t``) calculation output for a checksum object.

    Raises :class:`~softswitch.v1model.hashes.UnknownHashAlgorithm` for
    ``"random"`` and other names BMv2 rejects.
    """
    return compute(algo, checksum_data(fields, payload), crc_config)


def update_checksum_value(
    algo: str,
    fields: Sequence[tuple[int, int]],
    field_width: int,
    payload: bytes | None = None,
    *,
    crc_config: CrcConfig | None = None,
) -> int:
    """Value ``update_checksum`` writes into a checksum field of ``field_width`` bits.

    The caller must skip the update entirely when the condition is false.  The
    computed value is truncated to ``field_width`` bits (BMv2 ``Field::set``).
    """
    if field_width < 0:
        raise ValueError(f"negative field width {field_width}")
    value = compute_checksum(algo, fields, payload, crc_config=crc_config)
    return value & ((1 << field_width) - 1)


def verify_checksum_ok(
    algo: str,
    fields: Sequence[tuple[int, int]],
    checksum_value: int,
    payload: bytes | None = None,
    *,
    condition: bool = True,
    target_header_valid: bool = True,
    crc_config: CrcConfig | None = None,
) -> bool:
    """Whether BMv2's ``verify_checksum`` passes (``False`` -> set ``checksum_error``).

    Returns ``True`` without computing when ``target_header_valid`` is false or
    ``condition`` is false (BMv2 checks validity first).  Otherwise compares the
    *untruncated* computed value with ``checksum_value`` (the field's unsigned
    value): e.g. a ``crc32`` verified against a 16-bit field fails whenever the
    CRC's upper 16 bits are non-zero, even if the low 16 bits match.
    """
    if not target_header_valid or not condition:
        return True
    return compute_checksum(algo, fields, payload, crc_config=crc_config) == checksum_value
