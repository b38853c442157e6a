"""Source text -> AST: the lark LALR parser with softswitch's lexer."""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from functools import cache
from pathlib import Path

import lark
from lark import Lark
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from . import ast as A
from . import lexer as lexer_module
from .builder import AstBuilder, Locate
from .cachedir import cache_dir
from .errors import P4Error, P4SyntaxError
from .lexer import P4Lexer

GRAMMAR = Path(__file__).with_name("p4_16.lark")
log = logging.getLogger("softswitch.frontend")


def _build() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer=P4Lexer,
        propagate_positions=True,
        maybe_placeholders=False,
    )


@cache
def _parser() -> Lark:
    """The LALR parser. Its grammar analysis (about a second) is saved in the cache
    directory, keyed by the grammar, the lexer, lark's and Python's versions, so later
    processes load it in milliseconds; a missing, stale or unreadable cache is rebuilt."""
    key = hashlib.sha256()
    for part in (
        GRAMMAR.read_bytes(),
        Path(lexer_module.__file__ or "").read_bytes(),
        lark.__version__.encode(),
        sys.version.encode(),
    ):
        key.update(part)
    path = cache_dir() / f"p4_16-{key.hexdigest()[:20]}.lark"
    try:
        with path.open("rb") as f:
            return Lark.load(f)
    except FileNotFoundError:
        pass
    except Exception as e:  # a damaged file: rebuild it
        log.warning("grammar cache %s unreadable (%s): rebuilding it", path, e)
    parser = _build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            parser.save(f)
        os.replace(tmp, path)  # readers see the old file or the whole new one
    except OSError as e:
        log.debug("grammar cache %s not written: %s", path, e)
    return parser


def _identity_locate(filename: str) -> Locate:
    return lambda line: (filename, line)


def parse_text(text: str, filename: str = "<input>", locate: Locate | None = None) -> A.Program:
    """Parse preprocessed P4 text. `locate` maps a text line to its original (file, line)."""
    loc = locate or _identity_locate(filename)
    parser = _parser()
    try:
        tree = parser.parse(text)  # positions are lines of `text`: remapped through `loc`
    except P4Error as e:
        f, ln = loc(e.line)
        raise type(e)(e.message, f, ln, e.col) from None
    except UnexpectedInput as e:
        f, ln = loc(getattr(e, "line", 0) or 0)
        raise P4SyntaxError(_describe(e), f, ln, getattr(e, "column", 0) or 0) from None
    try:
        return AstBuilder(loc).transform(tree)
    except VisitError as e:  # an error the builder raised, wrapped by lark
        if isinstance(e.orig_exc, P4Error):
            raise e.orig_exc from None
        raise


def _describe(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "unexpected end of input"
        return f"syntax error, unexpected '{tok}'"
    if isinstance(e, UnexpectedCharacters):
        return f"unexpected character {e.char!r}"
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of input"
    return "syntax error"
