"""Positioned errors for P4 programs: every message reads `file:line:col: error: text`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True, slots=True)
class Pos:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Pos("<builtin>", 0, 0)


class P4Error(Exception):
    """An error in a P4 program, with the position it refers to."""

    kind = "error"

    def __init__(self, message: str, file: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col

    @classmethod
    def at(cls, pos: Pos, message: str) -> Self:
        return cls(message, pos.file, pos.line, pos.col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.kind}: {self.message}"


class P4SyntaxError(P4Error):
    """The program does not follow the P4_16 grammar."""


class P4TypeError(P4Error):
    """The program is well-formed but breaks a typing or naming rule."""


class P4Unsupported(P4Error):
    """The program uses a construct softswitch does not implement (yet)."""

    kind = "unsupported"
