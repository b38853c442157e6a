"""The values a table entry matches a key field with, one class per P4Runtime match kind
(`p4.v1.FieldMatch`: exact, lpm, ternary, range, optional), as plain integers.

One definition for both ends: softswitch's tables take them (`softswitch.engine.matches`
adds its `Wildcard` and the matching itself) and the controller writes and reads them
(`controller.entities`, where `Optional` is `OptionalMatch`). Standard library only; not
loaded by the package's start-up import.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Exact", "Lpm", "Optional", "Range", "Ternary"]


@dataclass(frozen=True, slots=True)
class Exact:
    value: int


@dataclass(frozen=True, slots=True)
class Lpm:
    value: int
    prefix_len: int


@dataclass(frozen=True, slots=True)
class Ternary:
    value: int
    mask: int


@dataclass(frozen=True, slots=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Optional:
    value: int
