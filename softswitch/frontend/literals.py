"""P4_16 integer literals: `8w255`, `4s-1` is not a literal (that is `-4s1`), `0x_ff`, ..."""

from __future__ import annotations

import re

_LIT = re.compile(r"(?:(\d+)([ws]))?(.*)", re.S)
_BASES = {"x": 16, "X": 16, "b": 2, "B": 2, "o": 8, "O": 8, "d": 10, "D": 10}


def parse_int_literal(text: str) -> tuple[int, int | None, bool, int]:
    """Return (value, width or None, signed, base written in) for a P4 integer literal.

    A value too wide for its width is kept as written; the checker warns and wraps it,
    as p4c does ("8w300" is a warning and means 44).
    """
    m = _LIT.fullmatch(text)
    if m is None:
        raise ValueError(f"bad integer literal {text!r}")
    width_s, sign, digits = m.groups()
    digits = digits.replace("_", "")
    base = 10
    if len(digits) > 2 and digits[0] == "0" and digits[1] in _BASES:
        base = _BASES[digits[1]]
        digits = digits[2:]
    value = int(digits, base)
    if width_s is None:
        return value, None, False, base
    width = int(width_s)
    if width == 0 and sign == "s":
        raise ValueError("a signed integer needs a width of at least 1")
    return value, width, sign == "s", base
