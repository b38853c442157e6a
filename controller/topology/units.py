"""Rates, delays, loss ratios and MAC addresses as written in topology files.

Rates are bits per second: an integer, or a decimal number with an SI suffix and an
optional `bps`/`b/s` unit: `100G`, `25Gbps`, `1.5G`, `400M`, `10k`. Delays are
nanoseconds: an integer, or a number with `ns`, `us` (or `µs`), `ms` or `s`. Loss is a
fraction between 0 and 1 or a percentage (`"0.5%"`). Every parser raises `ValueError`
with a message that says what was expected.
"""

from __future__ import annotations

import re

__all__ = [
    "format_delay",
    "format_mac",
    "format_rate",
    "mac_from_int",
    "parse_delay",
    "parse_loss",
    "parse_mac",
    "parse_rate",
]

_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT]?)\s*(?:bps|b/s|bit/s)?\s*$")
_RATE_SCALE = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_DELAY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ns|us|µs|ms|s)\s*$")
_DELAY_SCALE = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9}
_MAC = re.compile(r"^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){4}$")


def _whole(value: float, what: str) -> int:
    if value != int(value):
        raise ValueError(f"{what} is not a whole number")
    return int(value)


def _scaled(number: str, scale: int, what: str) -> int:
    """Decimal `number` (`1.5`) times `scale`, exactly; it must come out whole."""
    whole, _, frac = number.partition(".")
    exact = int(frac or "0") * scale
    if exact % 10 ** len(frac):
        raise ValueError(f"{what} is not a whole number")
    return int(whole) * scale + exact // 10 ** len(frac)


def parse_rate(value: object) -> int:
    """A link rate in bits/s from `100G`, `25Gbps`, `1.5G`, `400M` or an integer (> 0)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a rate like 100G, got {value!r}")
    if isinstance(value, int | float):
        bps = _whole(value, f"rate {value!r}")
    elif isinstance(value, str):
        m = _RATE.match(value)
        if not m:
            raise ValueError(f"expected a rate like 100G, 25Gbps or 400M, got {value!r}")
        number, prefix = m.groups()
        bps = _scaled(number, _RATE_SCALE[prefix.lower()], f"rate {value!r} (bits/s)")
    else:
        raise ValueError(f"expected a rate like 100G, got {value!r}")
    if bps <= 0:
        raise ValueError(f"a rate must be positive, got {value!r}")
    return bps


def format_rate(bps: int) -> str:
    """The shortest exact spelling of a rate: 100000000000 -> `100G`, 1500000000 -> `1500M`."""
    for suffix, scale in (("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if bps % scale == 0:
            return f"{bps // scale}{suffix}"
    return str(bps)


def parse_delay(value: object) -> int:
    """A delay in nanoseconds from `1us`, `500ns`, `2ms`, `0.5us` or an integer (>= 0)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a delay like 1us, got {value!r}")
    if isinstance(value, int | float):
        ns = _whole(value, f"delay {value!r} (ns)")
    elif isinstance(value, str):
        m = _DELAY.match(value)
        if not m:
            raise ValueError(f"expected a delay like 500ns, 1us or 2ms, got {value!r}")
        number, unit = m.groups()
        ns = _scaled(number, _DELAY_SCALE[unit], f"delay {value!r} (ns)")
    else:
        raise ValueError(f"expected a delay like 1us, got {value!r}")
    if ns < 0:
        raise ValueError(f"a delay cannot be negative, got {value!r}")
    return ns


def format_delay(ns: int) -> str:
    """The shortest exact spelling of a delay: 1000 -> `1us`, 2500 -> `2500ns`."""
    for suffix, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns and ns % scale == 0:
            return f"{ns // scale}{suffix}"
    return f"{ns}ns"


def parse_loss(value: object) -> float:
    """A loss probability from a number in [0, 1] or a percentage string (`"0.5%"`)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a loss fraction between 0 and 1, got {value!r}")
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            loss = float(value.strip()[:-1]) / 100
        except ValueError:
            raise ValueError(f"expected a loss percentage like 0.5%, got {value!r}") from None
    elif isinstance(value, int | float):
        loss = float(value)
    else:
        raise ValueError(f"expected a loss fraction between 0 and 1, got {value!r}")
    if not 0.0 <= loss <= 1.0:
        raise ValueError(f"a loss must be between 0 and 1 (or 0% and 100%), got {value!r}")
    return loss


def parse_mac(value: object) -> int:
    """A MAC address (`02:00:00:00:00:01` or with `-`) as an integer."""
    if isinstance(value, int) and not isinstance(value, bool):
        raise ValueError(
            "YAML read this MAC address as a number: write it in quotes, e.g. '00:00:0a:00:00:01'"
        )
    if not isinstance(value, str) or not _MAC.match(value.strip()):
        raise ValueError(f"expected a MAC address like 02:00:00:00:00:01, got {value!r}")
    return int(value.strip().replace(":", "").replace("-", ""), 16)


def mac_from_int(value: int) -> str:
    """`0x020000000001` -> `02:00:00:00:00:01`."""
    h = f"{value:012x}"
    return f"{h[0:2]}:{h[2:4]}:{h[4:6]}:{h[6:8]}:{h[8:10]}:{h[10:12]}"


def format_mac(value: object) -> str:
    """The canonical (lower-case, colon-separated) spelling of a MAC address."""
    return mac_from_int(parse_mac(value))
