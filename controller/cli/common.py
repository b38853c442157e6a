"""What the subcommand modules share."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

__all__ = ["CliError", "output"]


class CliError(Exception):
    """A user error: printed as one line, exit status 1."""


@contextmanager
def output(path: str | None) -> Iterator[TextIO]:
    """A text stream for `-o PATH` (written to a temporary name and renamed when complete),
    or stdout when PATH is None or `-`."""
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/null, a FIFO: write in place
        with target.open("w") as f:
            yield f
        return
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        with tmp.open("w") as f:
            yield f
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
