"""Source text -> AST: the lark LALR parser with softswitch's lexer."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from .builder import AstBuilder, Locate
from .errors import P4Error, P4SyntaxError
from .lexer import P4Lexer

GRAMMAR = Path(__file__).with_name("p4_16.lark")


@cache
def _parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer=P4Lexer,
        propagate_positions=True,
        maybe_placeholders=False,
    )


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
    return AstBuilder(loc).transform(tree)


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
