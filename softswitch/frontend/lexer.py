"""Tokenizer for P4_16, plugged into lark as a custom lexer.

The P4_16 grammar needs the lexer to tell type names from other identifiers (the
specification's TYPE_IDENTIFIER). p4c does this with a symbol table fed back from the
parser; softswitch does it in two passes over the token list: the first collects every name
the program declares as a type (headers, structs, enums, typedefs, externs, parsers,
controls, packages and type parameters) with where its declaration is, the second retags
those identifiers from their declaration on, as p4c's symbol table does. Annotations
(`@name`, `@name(...)`, `@name[...]`) are folded into single ANNOTATION tokens whose value
is the annotation's source text; the AST builder parses their bodies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lark import Token
from lark.common import LexerConf
from lark.lexer import Lexer

from .errors import P4SyntaxError

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<int>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[0-9_]*))
  | (?P<str>"(?:[^"\\]|\\[\s\S])*")
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>\|\+\|=|\|-\|=|<<=|>>=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|&&&|\|\+\||\|-\||\.\.|<<|<=|>=|==|!=|&&|\|\||\+\+|[-+*/%&|^~!<>=?:;,.(){}\[\]@#])
  | (?P<other>\S)  # only inside an annotation's body (any token may stand there)
    """,
    re.VERBOSE,
)

_TYPE_DECL_KEYWORDS = frozenset(
    {"header", "header_union", "struct", "enum", "parser", "control", "package"}
)


@dataclass(slots=True)
class RawToken:
    kind: str  # int, str, id, punct
    text: str
    pos: int
    line: int
    col: int
    end_pos: int


def raw_tokens(text: str, filename: str = "<input>") -> list[RawToken]:
    """Split `text` into raw tokens with 1-based line and column numbers."""
    out: list[RawToken] = []
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        assert m is not None  # every character is some token (`other` at worst)
        kind = m.lastgroup or ""
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind != "ws":
            out.append(RawToken(kind, m.group(), pos, line, pos - line_start + 1, m.end()))
            if kind == "str" and "\n" in m.group():  # p4c's strings may span lines
                line += m.group().count("\n")
                line_start = pos + m.group().rindex("\n") + 1
        pos = m.end()
    return out


def _skip_angle(tokens: list[RawToken], i: int) -> int:
    """Given tokens[i] == '<', return the index just after the matching '>'."""
    depth = 0
    while i < len(tokens):
        t = tokens[i].text
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif t in (";", "{", "}"):
            return i
        i += 1
    return i


def collect_type_names(tokens: list[RawToken], keywords: frozenset[str]) -> dict[str, int]:
    """Names the program declares as types, each with the index of the token from which on
    it is one: its declaration's name (p4c's lexer knows a name as a type from there, so
    a value may have the name of a type declared further down). Type parameters are
    types everywhere (0): a function's return type stands before its `<T>`."""
    names: dict[str, int] = {}
    params_seen: set[str] = set()

    def declared(j: int) -> None:
        names.setdefault(tokens[j].text, j)
    n = len(tokens)
    for i, tok in enumerate(tokens):
        t = tok.text
        if tok.kind != "id" and t != "<":
            continue
        if t in _TYPE_DECL_KEYWORDS:
            j = i + 1
            if t == "enum" and j < n and tokens[j].text in ("bit", "int"):
                j = _skip_angle(tokens, j + 1)
            elif t == "enum" and j + 1 < n and tokens[j + 1].kind == "id":
                j += 1  # enum of a typedef'd underlying type
            if j < n and tokens[j].kind == "id" and tokens[j].text not in keywords:
                declared(j)
        elif t == "extern" and i + 2 < n and tokens[i + 1].kind == "id":
            if tokens[i + 2].text in ("{", "<") and tokens[i + 1].text not in keywords:
                declared(i + 1)
        elif t in ("typedef", "type") and (
            # where a declaration starts: first, after a declaration or a block, or after
            # an annotation (`@hidden`, `@a(...)`, `@a[...]`)
            i == 0 or tokens[i - 1].text in ";{})]" or (i >= 2 and tokens[i - 2].text == "@")
        ):
            j = i + 1
            depth = 0
            while j < n and not (depth == 0 and tokens[j].text == ";"):
                if tokens[j].text in "({[":
                    depth += 1
                elif tokens[j].text in ")}]":
                    depth -= 1
                j += 1
            if j < n and tokens[j - 1].kind == "id" and depth == 0:
                declared(j - 1)
        elif t == "<" and i > 0 and tokens[i - 1].kind == "id":
            # type parameters: name < A, B, ... > ( or {
            j = i + 1
            params: list[str] = []
            while j + 1 < n and tokens[j].kind == "id" and tokens[j].text not in keywords:
                params.append(tokens[j].text)
                if tokens[j + 1].text == ",":
                    j += 2
                    continue
                j += 1
                break
            if (
                params
                and j + 1 < n
                and tokens[j].text == ">"
                and tokens[j + 1].text in ("(", "{")
                and _declares_type_params(tokens, i - 1)
            ):
                params_seen.update(params)
    names.update(dict.fromkeys(params_seen, 0))
    return names


_TYPE_KEYWORDS = frozenset({"bit", "int", "varbit", "bool", "tuple", "error", "string", "void"})


def _opens_type_args(
    tokens: list[RawToken], i: int, types: dict[str, int], keywords: frozenset[str]
) -> bool:
    """True when tokens[i] == '<' starts explicit type arguments of a call: `f<T>(`."""
    if i == 0 or i + 1 >= len(tokens) or tokens[i - 1].kind != "id":
        return False
    first = tokens[i + 1].text
    if first not in _TYPE_KEYWORDS and types.get(first, len(tokens)) > i + 1:
        return False
    j = _skip_angle(tokens, i)
    return j < len(tokens) and tokens[j - 1].text == ">" and tokens[j].text == "("


def _declares_type_params(tokens: list[RawToken], name_index: int) -> bool:
    """True when tokens[name_index] is the name in a declaration (not a call)."""
    if name_index == 0:
        return False
    prev = tokens[name_index - 1]
    if prev.text in ("extern", "control", "parser", "package", "void", ">"):
        return True
    # `Type name<T>(` in a function or method prototype: previous token is a type
    return prev.kind == "id" and prev.text not in ("return",)


class P4Lexer(Lexer):
    """lark custom lexer: raw tokens -> lark Tokens with P4 type-name classification."""

    def __init__(self, lexer_conf: LexerConf) -> None:
        self.literal_names: dict[str, str] = {}
        for term in lexer_conf.terminals:
            if term.pattern.type == "str":
                self.literal_names[term.pattern.value] = term.name
        self.patterns = [
            (term.name, re.compile(term.pattern.to_regexp()))
            for term in lexer_conf.terminals
            if term.pattern.type == "re"
            and term.name not in ("INTEGER", "STRING_LITERAL", "IDENTIFIER", "WS")
        ]
        self.keywords = frozenset(
            v for v in self.literal_names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v)
        )
        self.filename = "<input>"

    def lex(self, lexer_state: object, parser_state: object = None) -> Iterator[Token]:
        text: str = lexer_state if isinstance(lexer_state, str) else lexer_state.text  # type: ignore[attr-defined]
        toks = raw_tokens(text, self.filename)
        types = collect_type_names(toks, self.keywords)
        i = 0
        n = len(toks)
        while i < n:
            tok = toks[i]
            if tok.text == "@":
                i, ann = self._annotation(toks, i, text)
                yield ann
                continue
            kind = self._classify(tok, types.get(tok.text, n) <= i)
            if tok.text == ">" and i + 1 < n and toks[i + 1].text == ">":
                if toks[i + 1].pos == tok.end_pos:
                    kind = "_R_ANGLE_SHIFT"
            elif tok.text == "<" and _opens_type_args(toks, i, types, self.keywords):
                kind = "_L_ANGLE_ARGS"
            yield Token(kind, tok.text, tok.pos, tok.line, tok.col, None, None, tok.end_pos)
            i += 1

    def _classify(self, tok: RawToken, is_type: bool) -> str:
        if tok.kind == "other":
            raise P4SyntaxError(
                f"unexpected character {tok.text!r}", self.filename, tok.line, tok.col
            )
        if tok.kind == "int":
            return "INTEGER"
        if tok.kind == "str":
            return "STRING_LITERAL"
        if tok.kind == "id":
            if tok.text in self.keywords:
                return self.literal_names[tok.text]
            return "TYPE_IDENTIFIER" if is_type else "IDENTIFIER"
        name = self.literal_names.get(tok.text)
        if name is None:
            name = next((n for n, rx in self.patterns if rx.fullmatch(tok.text)), None)
        if name is None:
            raise P4SyntaxError(f"unexpected '{tok.text}'", self.filename, tok.line, tok.col)
        return name

    def _annotation(self, toks: list[RawToken], i: int, text: str) -> tuple[int, Token]:
        at = toks[i]
        if i + 1 >= len(toks) or toks[i + 1].kind != "id":
            raise P4SyntaxError(
                "annotation name expected after '@'", self.filename, at.line, at.col
            )
        j = i + 2
        end = toks[i + 1].end_pos
        # the body may stand after spaces (`@name (".start")`), as the grammar has it
        if j < len(toks) and toks[j].text in ("(", "["):
            close = ")" if toks[j].text == "(" else "]"
            depth = 0
            while j < len(toks):
                if toks[j].text == toks[i + 2].text:
                    depth += 1
                elif toks[j].text == close:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= len(toks):
                raise P4SyntaxError("unterminated annotation", self.filename, at.line, at.col)
            end = toks[j].end_pos
            j += 1
        value = text[at.pos + 1 : end]
        return j, Token("ANNOTATION", value, at.pos, at.line, at.col, None, None, end)
