"""A small indentation-aware buffer for generated Python source."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def line(self, text: str = "") -> None:
        self.lines.append("    " * self.depth + text if text else "")

    def extend(self, other: Emitter) -> None:
        pad = "    " * self.depth
        self.lines.extend(pad + ln if ln else ln for ln in other.lines)

    @contextmanager
    def indent(self) -> Iterator[None]:
        self.depth += 1
        start = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.line("pass")
            self.depth -= 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
