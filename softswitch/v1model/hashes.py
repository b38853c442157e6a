"""Hash algorithms of BMv2 ``simple_switch`` as used by the v1model architecture.

Everything here is a pure function of its arguments, written to be bit-exact with
BMv2 (p4lang/behavioral-model, ``src/bm_sim/calculations.cpp``,
``src/bm_sim/extract.h``, ``targets/simple_switch/primitives.cpp``).

How BMv2 evaluates a hash / checksum calculation
------------------------------------------------
1. The input list (fields, constants, whole headers, optionally the payload) is
   serialised into a byte buffer by ``BufBuilder``: every element contributes
   exactly its bit width, packed MSB-first, one after the other with no
   alignment between elements.  The buffer is then zero-padded *at the end* to a
   whole number of bytes (see :func:`pack_fields`).  Fields of an *invalid*
   header contribute nothing at all (not even zero bits); callers must drop them
   before calling :func:`pack_fields`.  The payload, if requested, is appended
   after the padding.
2. The named algorithm maps the buffer to an unsigned 64-bit integer.
3. For ``hash()`` (BMv2 primitive ``modify_field_with_hash_based_offset``) the
   result is ``base + (h % max)``, with ``max == 0`` treated as ``1`` (so the
   result is ``base``), then written into the destination field, i.e.
   truncated to its width (see :func:`hash_result`).

The v1model ``HashAlgorithm`` member names are mapped by p4c one-to-one to BMv2
algorithm names: ``crc32``, ``crc32_custom``, ``crc16``, ``crc16_custom``,
``random``, ``identity``, ``csum16``, ``xor16``.  BMv2 does **not** register an
algorithm called ``random``: a JSON that uses it is rejected at load time with
``Unknown hash algorithm: random``.  ``random`` is therefore absent from
:data:`ALGORITHMS` and :func:`hash_result` raises :class:`UnknownHashAlgorithm`
for it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

__all__ = [
    "ALGORITHMS",
    "BMV2_ALGORITHMS",
    "CRC8_CUSTOM_DEFAULT",
    "CRC16_CUSTOM_DEFAULT",
    "CRC32_CUSTOM_DEFAULT",
    "CRC64_CUSTOM_DEFAULT",
    "U64_MASK",
    "CrcConfig",
    "UnknownHashAlgorithm",
    "V1MODEL_HASH_ALGORITHMS",
    "compute",
    "crc16",
    "crc16_custom",
    "crc32",
    "crc32_custom",
    "crc64_custom",
    "crc8_custom",
    "crc_ccitt",
    "crc_custom",
    "csum16",
    "csum16_int",
    "hash_result",
    "identity",
    "pack_fields",
    "xor16",
    "xor32",
]

U64_MASK = (1 << 64) - 1
"""BMv2 hash outputs, bases and maxima are ``uint64_t``."""

V1MODEL_HASH_ALGORITHMS: tuple[str, ...] = (
    "crc32",
    "crc32_custom",
    "crc16",
    "crc16_custom",
    "random",
    "identity",
    "csum16",
    "xor16",
)
"""Member names of the v1model ``HashAlgorithm`` enum, in declaration order."""


class UnknownHashAlgorithm(ValueError):
    """Raised for an algorithm name BMv2 would reject (including ``random``)."""


# ---------------------------------------------------------------------------
# Serialisation of a field list
# ---------------------------------------------------------------------------


def pack_fields(values_and_widths: Sequence[tuple[int, int]]) -> bytes:
    """Serialise ``(value, bit_width)`` pairs exactly like BMv2's ``BufBuilder``.

    Each value contributes its low ``bit_width`` bits, most significant bit first,
    immediately after the previous element (no per-element alignment).  The whole
    bit string is then zero-padded at the *end* (least significant side of the
    last byte) up to a byte boundary.  Example: widths 4, 16, 12 with values
    ``0x0, 0xffff, 0x9fd`` give ``b"\\x0f\\xff\\xf9\\xfd"``.

    Edge cases:

    * values are masked to their width, so negative values (signed ``int<N>``
      fields) are taken in two's complement and over-wide values are truncated;
    * a width of ``0`` contributes nothing; an empty sequence gives ``b""``;
    * a negative width raises :class:`ValueError`;
    * BMv2 skips fields whose header is invalid -- the caller must leave them
      out of ``values_and_widths``;
    * for ``with_payload`` checksums append the payload bytes to the result
      (BMv2 appends them after the padding).
    """
    acc = 0
    nbits = 0
    for value, width in values_and_widths:
        if width < 0:
            raise ValueError(f"negative field width {width}")
        if width == 0:
            continue
        acc = (acc << width) | (value & ((1 << width) - 1))
        nbits += width
    pad = -nbits % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big")


# ---------------------------------------------------------------------------
# CRCs
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CrcConfig:
    """Parameters of a CRC in the Rocksoft/Williams model, as BMv2's ``crc_config_t``.

    ``init`` is the initial register value of the *direct* (non-reflected)
    algorithm, as in the usual CRC catalogues; it is not reflected even when
    ``reflect_in`` is true.  ``poly`` is given without its implicit top bit.
    BMv2 only has widths 8, 16, 32 and 64 (``crc{8,16,32,64}_custom``); other
    widths (>= 1) are accepted here for completeness.
    """

    width: int
    poly: int
    init: int
    xor_out: int
    reflect_in: bool
    reflect_out: bool

    def __post_init__(self) -> None:
        if self.width < 1:
            raise ValueError(f"CRC width must be >= 1, got {self.width}")
        mask = (1 << self.width) - 1
        for name in ("poly", "init", "xor_out"):
            v = getattr(self, name)
            if v < 0 or v > mask:
                raise ValueError(f"CRC {name}={v:#x} does not fit in {self.width} bits")


# Defaults of BMv2's custom CRCs before any runtime reconfiguration
# (``crc_custom_init<T>::config`` in calculations.cpp).
CRC8_CUSTOM_DEFAULT = CrcConfig(8, 0x07, 0x00, 0x00, False, False)  # CRC-8
CRC16_CUSTOM_DEFAULT = CrcConfig(16, 0x8005, 0x0000, 0x0000, True, True)  # CRC-16/ARC
CRC32_CUSTOM_DEFAULT = CrcConfig(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)  # CRC-32
CRC64_CUSTOM_DEFAULT = CrcConfig(64, 0x1B, 0, 0, True, True)  # CRC-64/GO-ISO

_REV8: tuple[int, ...] = tuple(int(f"{i:08b}"[::-1], 2) for i in range(256))


def _reflect(value: int, nbits: int) -> int:
    """Mirror the low ``nbits`` bits of ``value``."""
    return int(f"{value & ((1 << nbits) - 1):0{nbits}b}"[::-1], 2)


@lru_cache(maxsize=64)
def _msb_table(width: int, poly: int) -> tuple[int, ...]:
    """Direct (MSB-first) byte table for ``width >= 8``."""
    top = 1 << (width - 1)
    mask = (1 << width) - 1
    table = []
    for byte in range(256):
        reg = byte << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) if reg & top else (reg << 1)
        table.append(reg & mask)
    return tuple(table)


def crc_custom(
    data: bytes,
    width: int,
    poly: int,
    init: int,
    xor_out: int,
    reflect_in: bool,
    reflect_out: bool,
) -> int:
    """Parameterised CRC, identical to BMv2's ``crc_custom<T>`` for widths 8/16/32/64.

    Algorithm: the register starts at ``init``; each input byte (bit-reversed if
    ``reflect_in``) is shifted in MSB-first; at the end the register is reversed
    over ``width`` bits if ``reflect_out`` and XORed with ``xor_out``.  Empty
    input returns ``(init, reflected if reflect_out) ^ xor_out``.
    """
    cfg = CrcConfig(width, poly, init, xor_out, reflect_in, reflect_out)
    return _crc(cfg, data)


def _crc(cfg: CrcConfig, data: bytes) -> int:
    width = cfg.width
    mask = (1 << width) - 1
    reg = cfg.init
    if width >= 8:
        table = _msb_table(width, cfg.poly)
        shift = width - 8
        if cfg.reflect_in:
            for b in data:
                reg = table[((reg >> shift) ^ _REV8[b]) & 0xFF] ^ ((reg << 8) & mask)
        else:
            for b in data:
                reg = table[((reg >> shift) ^ b) & 0xFF] ^ ((reg << 8) & mask)
    else:
        top = 1 << (width - 1)
        for b in data:
            if cfg.reflect_in:
                b = _REV8[b]
            for i in range(7, -1, -1):
                bit = (b >> i) & 1
                fb = bool(reg & top) ^ bit
                reg = (reg << 1) & mask
                if fb:
                    reg ^= cfg.poly
    if cfg.reflect_out:
        reg = _reflect(reg, width)
    return reg ^ cfg.xor_out


def crc16(data: bytes) -> int:
    """BMv2 ``crc16``: CRC-16/ARC (poly 0x8005, init 0, reflected in/out, xorout 0).

    Check value for ``b"123456789"`` is ``0xBB3D``; empty input gives ``0``.
    """
    return _crc(CRC16_CUSTOM_DEFAULT, data)


def crc32(data: bytes) -> int:
    """BMv2 ``crc32``: the standard reflected CRC-32 (same as :func:`zlib.crc32`).

    Poly 0x04C11DB7, init/xorout 0xFFFFFFFF, reflected in/out.  Check value for
    ``b"123456789"`` is ``0xCBF43926``; empty input gives ``0``.
    """
    return zlib.crc32(data) & 0xFFFFFFFF


def crc_ccitt(data: bytes) -> int:
    """BMv2 ``crcCCITT``: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection).

    Not reachable from v1model ``HashAlgorithm``; provided for BMv2 JSON parity.
    """
    return _crc(CrcConfig(16, 0x1021, 0xFFFF, 0x0000, False, False), data)


def crc8_custom(data: bytes, config: CrcConfig | None = None) -> int:
    """BMv2 ``crc8_custom``; ``config`` defaults to CRC-8 (poly 0x07, init 0)."""
    return _crc_with(config, CRC8_CUSTOM_DEFAULT, data)


def crc16_custom(data: bytes, config: CrcConfig | None = None) -> int:
    """BMv2 ``crc16_custom``; unconfigured it equals :func:`crc16` (CRC-16/ARC).

    ``config`` must have ``width == 16`` (BMv2 rejects other-width configs for
    this calculation with ``WRONG_TYPE_CALCULATION``).
    """
    return _crc_with(config, CRC16_CUSTOM_DEFAULT, data)


def crc32_custom(data: bytes, config: CrcConfig | None = None) -> int:
    """BMv2 ``crc32_custom``; unconfigured it equals :func:`crc32` (CRC-32).

    ``config`` must have ``width == 32``.
    """
    return _crc_with(config, CRC32_CUSTOM_DEFAULT, data)


def crc64_custom(data: bytes, config: CrcConfig | None = None) -> int:
    """BMv2 ``crc64_custom``; default CRC-64/GO-ISO (poly 0x1B, init 0, reflected).

    Not reachable from v1model ``HashAlgorithm``.
    """
    return _crc_with(config, CRC64_CUSTOM_DEFAULT, data)


def _crc_with(config: CrcConfig | None, default: CrcConfig, data: bytes) -> int:
    if config is None:
        config = default
    elif config.width != default.width:
        raise ValueError(
            f"crc{default.width}_custom needs a {default.width}-bit config, got width {config.width}"
        )
    return _crc(config, data)


# ---------------------------------------------------------------------------
# Checksums / xor / identity
# ---------------------------------------------------------------------------


def csum16(data: bytes) -> int:
    """BMv2 ``csum16`` (and ``cksum16``): the RFC 1071 Internet checksum.

    The data is read as big-endian 16-bit words (an odd trailing byte is padded
    with a zero byte *after* it), summed in ones' complement arithmetic
    (end-around carry) and the 16-bit sum is complemented.  The result is the
    value to store in a checksum field (e.g. ``0xB861`` for the classic IPv4
    header example).  Edge cases: empty or all-zero input gives ``0xFFFF``; data
    whose ones' complement sum is ``0xFFFF`` gives ``0x0000`` (BMv2 never
    returns ``0xFFFF`` for non-zero data).
    """
    return csum16_int(int.from_bytes(data, "big"), len(data))


def csum16_int(v: int, nbytes: int) -> int:
    """`csum16` of the `nbytes`-byte big-endian encoding of `v` (0 <= v < 256**nbytes),
    without making the bytes (`csum16` reads its bytes as such an int)."""
    # 2**16 = 1 (mod 0xFFFF): the end-around-carry sum of the words is the data, read as
    # one number, modulo 0xFFFF, except that non-zero data never sums to 0 but to 0xFFFF
    return csum16_sum(v << 8 if nbytes % 2 else v)


def csum16_sum(s: int) -> int:
    """`csum16` from a sum that is congruent, modulo 0xFFFF, to the data read as one
    number, and non-zero exactly when the data is (each field shifted left by its bit
    position modulo 16 and added up: 2**16 = 1 modulo 0xFFFF, so this needs neither the
    data's bytes nor one wide number; see csum16_int)."""
    total = s % 0xFFFF
    if total == 0 and s:
        total = 0xFFFF
    return ~total & 0xFFFF


def _xor_words(data: bytes, nbytes: int) -> int:
    rem = len(data) % nbytes
    if rem:
        data = data + b"\x00" * (nbytes - rem)
    acc = 0
    for i in range(0, len(data), nbytes):
        acc ^= int.from_bytes(data[i : i + nbytes], "big")
    return acc


def xor16(data: bytes) -> int:
    """BMv2 ``xor16``: XOR of the big-endian 16-bit words of ``data``.

    An odd trailing byte is zero-padded at its tail (it becomes the *high* byte of
    the last word), e.g. ``0b b8 1f 90 5a`` -> ``0x4e28``.  Empty input gives 0.
    """
    return _xor_words(data, 2)


def xor32(data: bytes) -> int:
    """BMv2 ``xor32``: XOR of big-endian 32-bit words, tail zero-padded at the end.

    Not reachable from v1model ``HashAlgorithm``.
    """
    return _xor_words(data, 4)


def identity(data: bytes) -> int:
    """BMv2 ``identity``: the first ``min(8, len(data))`` bytes as a big-endian integer.

    BMv2 returns a ``uint64_t``, so only the first 8 bytes matter: bytes beyond
    the 8th are ignored (it is *not* the low 64 bits of a longer input).  A
    shorter input is not padded (``b"\\x01\\x02"`` -> ``0x0102``); empty -> 0.
    """
    return int.from_bytes(data[:8], "big")


# ---------------------------------------------------------------------------
# Registries
# ---------------------------------------------------------------------------

ALGORITHMS: Mapping[str, Callable[[bytes], int]] = MappingProxyType(
    {
        "crc32": crc32,
        "crc32_custom": crc32_custom,
        "crc16": crc16,
        "crc16_custom": crc16_custom,
        "identity": identity,
        "csum16": csum16,
        "xor16": xor16,
    }
)
"""v1model ``HashAlgorithm`` names -> functions with BMv2's default configuration.

``random`` is deliberately missing: BMv2 has no such algorithm and refuses to
load a program whose JSON references it.  ``*_custom`` entries use the default
(unconfigured) parameters; use :func:`compute` with ``crc_config`` to apply a
runtime configuration.
"""

BMV2_ALGORITHMS: Mapping[str, Callable[[bytes], int]] = MappingProxyType(
    {
        **ALGORITHMS,
        "crcCCITT": crc_ccitt,
        "cksum16": csum16,
        "xor32": xor32,
        "crc8_custom": crc8_custom,
        "crc64_custom": crc64_custom,
    }
)
"""All BMv2 built-in algorithm names implemented here (``xxh64``, ``toeplitz``,
``round_robin*`` and the ``hash_ex``/``bmv2_hash`` targets' extras are not)."""

_CUSTOM = {
    "crc8_custom": crc8_custom,
    "crc16_custom": crc16_custom,
    "crc32_custom": crc32_custom,
    "crc64_custom": crc64_custom,
}


def compute(algo: str, data: bytes, crc_config: CrcConfig | None = None) -> int:
    """Raw BMv2 calculation output (``uint64_t``) of algorithm ``algo`` over ``data``.

    ``crc_config`` applies only to the ``*_custom`` CRCs (ignored for the others,
    ``None`` means BMv2's default).  Raises :class:`UnknownHashAlgorithm` for
    names BMv2 does not know, including ``"random"``.
    """
    if crc_config is not None and algo in _CUSTOM:
        return _CUSTOM[algo](data, crc_config)
    fn = BMV2_ALGORITHMS.get(algo)
    if fn is None:
        raise UnknownHashAlgorithm(f"Unknown hash algorithm: {algo}")
    return fn(data) & U64_MASK


def hash_result(
    algo: str,
    base: int,
    data: bytes,
    max_: int,
    out_width: int,
    *,
    crc_config: CrcConfig | None = None,
) -> int:
    """Result of v1model ``hash(out result, algo, base, data, max)`` in BMv2.

    BMv2 (primitive ``modify_field_with_hash_based_offset``) computes, in
    ``uint64_t`` arithmetic::

        h = algo(data); m = max if max != 0 else 1   # logs a warning for 0
        v = (h % m) + base                            # wraps modulo 2**64

    and assigns ``v`` to the destination field, i.e. keeps its low ``out_width``
    bits.  Consequently ``max_ == 0`` (and ``max_ == 1``) yield ``base``.

    ``data`` is the :func:`pack_fields` serialisation of the field list.
    ``base``/``max_`` are taken modulo 2**64 (BMv2 reads them with
    ``Data::get<uint64_t>()``; behaviour for values >= 2**64 not verified).
    ``out_width`` must be >= 0 (0 gives 0).  For a signed destination the
    returned value is the two's complement bit pattern.
    """
    if out_width < 0:
        raise ValueError(f"negative out_width {out_width}")
    h = compute(algo, data, crc_config)
    m = max_ & U64_MASK
    if m == 0:
        m = 1
    v = ((h % m) + (base & U64_MASK)) & U64_MASK
    return v & ((1 << out_width) - 1)
