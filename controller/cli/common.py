"""What the subcommand modules share."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["CliError", "checked", "output", "read_json"]


class CliError(Exception):
    """A user error: printed as one line, exit status 1."""


def checked(convert: Callable[[str], Any], ok: Callable[[Any], bool], expected: str) -> Any:
    """An argparse type: `convert(text)`, refused with "expected ..." unless `ok`."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


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


def read_json(path: str | Path) -> Any:
    """The JSON document in file `path` (CliError naming the file when it is missing or
    not JSON, with the line and column)."""
    p = Path(path)
    if not p.is_file():
        raise CliError(f"{p}: no such file")
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise CliError(f"{p}: not JSON (line {e.lineno} column {e.colno}: {e.msg})") from None
