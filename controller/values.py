"""Values <-> P4Runtime bytestrings.

P4Runtime carries every bit<W> value as a bytestring ("Bytestrings" in the specification).
This client always sends the canonical form: the shortest big-endian string that holds the
value, at least one byte; servers (softswitch, BMv2's PI) also accept zero-padded strings,
and `decode` reads either.

A value may be given as:

* an `int` (must fit the width);
* `bytes` (big-endian; leading zero bytes are ignored, the rest must fit);
* a MAC address string `"00:11:22:33:44:55"` (or with `-`);
* an IPv4 or IPv6 address string (`"10.0.0.1"`, `"2001:db8::1"`).

Anything else, or a value wider than the field, raises `ValueError` naming the field.
"""

from __future__ import annotations

import ipaddress
import re

__all__ = ["Value", "decode", "encode", "mac_str", "to_int"]

Value = int | bytes | str

_MAC = re.compile(r"^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$")


def to_int(value: Value, what: str = "value") -> int:
    """The integer a value stands for (see the module docstring for the accepted forms)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{what}: negative value {value}")
        return value
    if isinstance(value, bytes | bytearray):
        return int.from_bytes(value, "big")
    if isinstance(value, str):
        s = value.strip()
        if _MAC.match(s):
            return int(s.replace(":", "").replace("-", ""), 16)
        try:
            return int(ipaddress.ip_address(s))
        except ValueError:
            pass
        raise ValueError(f"{what}: {value!r} is neither a MAC nor an IP address")
    raise TypeError(f"{what}: cannot use a {type(value).__name__} as a P4 value")


def encode(value: Value, bitwidth: int, what: str = "value") -> bytes:
    """The canonical bytestring of `value` for a field of `bitwidth` bits."""
    v = to_int(value, what)
    if v >> bitwidth:
        raise ValueError(f"{what}: {value!r} does not fit in {bitwidth} bits")
    return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")


def decode(data: bytes) -> int:
    """The unsigned integer of a bytestring (canonical or padded)."""
    return int.from_bytes(data, "big")


def mac_str(value: int) -> str:
    """A 48-bit integer as `"00:11:22:33:44:55"`."""
    return value.to_bytes(6, "big").hex(":")
