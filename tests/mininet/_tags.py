"""Interface-name prefixes for the Mininet tests: unique per test process, so that test
runs side by side on one machine (xdist workers, other checkouts) never share a name."""

from __future__ import annotations

import os

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def unique_tag(prefix: str) -> str:
    """`prefix` + two characters from this process's PID (4 characters with a 2-character
    prefix, which keeps `<tag>spine1-eth1` within Linux's 15)."""
    n = os.getpid() % (36 * 36)
    return prefix + _DIGITS[n // 36] + _DIGITS[n % 36]
