"""What the subcommand modules share: the command tree they add their commands to, user
errors, argparse types and output files."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["CliError", "CommandTree", "checked", "output", "read_json"]


class CliError(Exception):
    """A user error: printed as one line, exit status 1."""


class CommandTree:
    """The `sprayfabric` command tree, noun verb. A subcommand module adds its commands with
    `add_parser(name, ...)` as on argparse's subparsers; `places` puts a name under a noun
    with another verb (`set-lb` -> `lb set`), other names stay top-level nouns. `group(noun)`
    is a noun's own subparsers, made on first use."""

    def __init__(
        self, sub: argparse._SubParsersAction, places: Mapping[str, tuple[str, str]]
    ) -> None:
        self._sub = sub
        self._places = places
        self._groups: dict[str, argparse._SubParsersAction] = {}

    def group(self, noun: str, help: str | None = None) -> argparse._SubParsersAction:
        if noun not in self._groups:
            p = self._sub.add_parser(noun, help=help)
            self._groups[noun] = p.add_subparsers(
                dest=f"{noun}_command", metavar="ACTION", required=True
            )
        return self._groups[noun]

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        place = self._places.get(name)
        if place is None:
            return self._sub.add_parser(name, **kwargs)  # type: ignore[no-any-return]
        noun, verb = place
        return self.group(noun).add_parser(verb, **kwargs)  # type: ignore[no-any-return]


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
