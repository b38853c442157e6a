"""Structured annotations (`@name[...]`) evaluated at compile time, as p4c does for P4Info.

The body is a list of expressions (`@a[1, "x", true]`) or of key=value pairs
(`@a[k=1, s="x"]`), a trailing comma allowed; each expression must come to an `int` (no
width), a `string` or a `bool`, from literals, constants of those types in scope and
operators. A width-typed value (`8w5`, a `bit<8>` constant) is refused as p4c refuses it
("illegal type for structured annotation"), and so is anything not constant. The result is
kept in the control-plane description (`program_info.structured_body`) for P4Info's
`structured_annotations`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import program_info as pinfo
from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError
from ..program_info import StructuredValue, structured_body
from .symbols import Const

__all__ = ["annots_ir", "structured_info_body"]

_TOKEN = re.compile(
    r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*")"""
    r"""|(?P<num>\d+[wsWS][0-9a-fA-FxXbBoO_]+|0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)"""
    r"""|(?P<id>[A-Za-z_][\w]*)"""
    r"""|(?P<op>\|\+\||\|-\||<<|>>|<=|>=|==|!=|&&|\|\||\+\+|[-+*/%&|^~!<>()=,.?:]))"""
)
# binary operators by precedence, loosest first (the P4 specification's table)
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-", "|+|", "|-|", "++"),
    ("*", "/", "%"),
)
_TYPE_ERROR = "illegal type for structured annotation; must be int, string or bool"
_NOT_CONSTANT = "structured annotation must be compile-time constant values"


class _Refused(Exception):
    """An expression the body may not hold (turned into a P4TypeError at the annotation)."""


def annots_ir(annots: A.Annots, lookup: Callable[[str], Any]) -> pinfo.Annotations:
    """Annotations as the control-plane description keeps them: (name, raw body) pairs, a
    structured annotation's body evaluated (`lookup(name)`: the symbol a name stands for
    in the annotations' scope)."""
    return tuple(
        (a.name, structured_info_body(a, lookup) if a.structured else a.body) for a in annots
    )


def structured_info_body(ann: A.Annotation, lookup: Callable[[str], Any]) -> str:
    """`ann`'s body evaluated (`lookup(name)`: the symbol a name stands for in the
    annotation's scope), encoded for the control-plane description. Raises P4TypeError at
    the annotation for a body p4c refuses."""
    try:
        tokens = _tokenize(ann.body)
        items = _split(tokens, ",")
        if items and not items[-1]:
            items.pop()  # a trailing comma
        if not items:
            return structured_body(None, kv=False)
        kv = [len(it) > 1 and it[0][0] == "id" and it[1] == ("op", "=") for it in items]
        if any(kv) and not all(kv):
            raise _Refused("either expressions or key=value pairs, not both")
        if not all(kv):
            return structured_body([_Expr(it, lookup).value() for it in items], kv=False)
        pairs: list[tuple[str, StructuredValue]] = []
        for it in items:
            key = it[0][1]
            if any(k == key for k, _ in pairs):
                raise _Refused(f"duplicate key {key}")
            pairs.append((key, _Expr(it[2:], lookup).value()))
        return structured_body(pairs, kv=True)
    except _Refused as e:
        raise P4TypeError.at(ann.pos, f"@{ann.name}: {e}") from None


def _tokenize(body: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while body[pos:].strip():
        m = _TOKEN.match(body, pos)
        if m is None or m.lastgroup is None:
            raise _Refused(f"unexpected {body[pos:].strip()[:10]!r}")
        out.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    return out


def _split(tokens: list[tuple[str, str]], sep: str) -> list[list[tuple[str, str]]]:
    """`tokens` split at the top-level `sep` operators."""
    parts: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for t in tokens:
        if t == ("op", "("):
            depth += 1
        elif t == ("op", ")"):
            depth -= 1
        if t == ("op", sep) and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return parts if parts != [[]] else []


class _Expr:
    """A recursive-descent evaluator of one expression's tokens."""

    def __init__(self, tokens: list[tuple[str, str]], lookup: Callable[[str], Any]) -> None:
        self.toks = tokens
        self.i = 0
        self.lookup = lookup

    def value(self) -> StructuredValue:
        if not self.toks:
            raise _Refused("an expression is missing")
        v = self._ternary()
        if self.i != len(self.toks):
            raise _Refused(f"unexpected {self.toks[self.i][1]!r}")
        if isinstance(v, _Bits):
            raise _Refused(f"{v}: {_TYPE_ERROR}")
        return v

    def _peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def _take(self, op: str) -> None:
        if self._peek() != op:
            raise _Refused(f"{op!r} expected")
        self.i += 1

    def _ternary(self) -> Any:
        cond = self._binary(0)
        if self._peek() != "?":
            return cond
        self.i += 1
        yes = self._ternary()
        self._take(":")
        no = self._ternary()
        if not isinstance(cond, bool):
            raise _Refused("the condition of ?: must be a bool")
        return yes if cond else no

    def _binary(self, level: int) -> Any:
        if level == len(_LEVELS):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in _LEVELS[level] and self.toks[self.i][0] == "op":
            op = self.toks[self.i][1]
            self.i += 1
            left = _apply(op, left, self._binary(level + 1))
        return left

    def _unary(self) -> Any:
        op = self._peek()
        if op in ("!", "-", "+", "~") and self.toks[self.i][0] == "op":
            self.i += 1
            v = self._unary()
            if op == "!":
                if not isinstance(v, bool):
                    raise _Refused("! applies to a bool")
                return not v
            if isinstance(v, _Bits):
                n = ~v.value if op == "~" else -v.value if op == "-" else v.value
                return _Bits(v.width, v.signed, n).wrapped()
            if isinstance(v, bool) or not isinstance(v, int):
                raise _Refused(f"{op} applies to an int")
            if op == "~":
                raise _Refused("~ needs a value of known width")
            return -v if op == "-" else v
        return self._primary()

    def _primary(self) -> Any:
        if self.i >= len(self.toks):
            raise _Refused("an expression is missing")
        kind, text = self.toks[self.i]
        self.i += 1
        if kind == "str":
            return text[1:-1]  # escapes kept as written, as p4c keeps them
        if kind == "num":
            m = re.match(r"(\d+)([wsWS])(.*)", text)
            if m:
                width, signed = int(m[1]), m[2] in "sS"
                return _Bits(width, signed, _literal(m[3])).wrapped()
            return _literal(text)
        if kind == "id":
            if text in ("true", "false"):
                return text == "true"
            return _constant(text, self.lookup(text))
        if text == "(":
            v = self._ternary()
            self._take(")")
            return v
        raise _Refused(f"unexpected {text!r}")


def _constant(name: str, sym: Any) -> Any:
    if not isinstance(sym, Const):
        raise _Refused(f"{name}: {_NOT_CONSTANT}")
    t = sym.type
    if isinstance(t, T.IntLiteralType) and isinstance(sym.value, int):
        return int(sym.value)
    if isinstance(t, T.BoolType):
        return bool(sym.value)
    if isinstance(t, T.StringType) and isinstance(sym.value, str):
        return sym.value
    if isinstance(t, T.BitType) and isinstance(sym.value, int):
        return _Bits(t.width, t.signed, int(sym.value)).wrapped()
    raise _Refused(f"{name}: {_NOT_CONSTANT}")


def _literal(text: str) -> int:
    t = text.replace("_", "")
    return int(t, 0) if not re.fullmatch(r"0\d+", t) else int(t, 10)


@dataclass(frozen=True, slots=True)
class _Bits:
    """A width-typed value (`8w5`, a `bit<8>` constant): it may be computed with, but a
    structured annotation may not hold one."""

    width: int
    signed: bool
    value: int

    def wrapped(self) -> _Bits:
        v = self.value & ((1 << self.width) - 1)
        if self.signed and self.width and v >> (self.width - 1):
            v -= 1 << self.width
        return _Bits(self.width, self.signed, v)

    def __str__(self) -> str:
        return f"{self.width}{'s' if self.signed else 'w'}{self.value}"


def _apply(op: str, a: Any, b: Any) -> Any:
    if isinstance(a, _Bits) or isinstance(b, _Bits):
        return _apply_bits(op, a, b)
    if op in ("&&", "||"):
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise _Refused(f"{op} applies to bools")
        return (a and b) if op == "&&" else (a or b)
    if op in ("==", "!="):
        if type(a) is not type(b):
            raise _Refused(f"{op} compares values of one type")
        return (a == b) if op == "==" else (a != b)
    if (
        isinstance(a, bool)
        or isinstance(b, bool)
        or not (isinstance(a, int) and isinstance(b, int))
    ):
        raise _Refused(f"{op} applies to ints")
    if op in ("++", "|+|", "|-|"):
        raise _Refused(f"{op} needs values of known width")
    if op in ("/", "%", "<<", ">>") and (a < 0 or b < 0 or (op in "/%" and b == 0)):
        raise _Refused(f"{op} of {a} and {b}")
    ops: dict[str, Callable[[int, int], StructuredValue]] = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "/": lambda x, y: x // y,
        "%": lambda x, y: x % y,
        "<<": lambda x, y: x << y,
        ">>": lambda x, y: x >> y,
        "&": lambda x, y: x & y,
        "|": lambda x, y: x | y,
        "^": lambda x, y: x ^ y,
        "<": lambda x, y: x < y,
        ">": lambda x, y: x > y,
        "<=": lambda x, y: x <= y,
        ">=": lambda x, y: x >= y,
    }
    return ops[op](a, b)


def _apply_bits(op: str, a: Any, b: Any) -> Any:
    """`op` where a width-typed value takes part: an int takes the other side's type."""
    t = a if isinstance(a, _Bits) else b
    if op in ("<<", ">>"):
        shift = b.value if isinstance(b, _Bits) else b
        if not isinstance(a, _Bits) or isinstance(shift, bool) or shift < 0:
            raise _Refused(f"{op} of {a} and {b}")
        n = a.value << shift if op == "<<" else a.value >> shift
        return _Bits(a.width, a.signed, n).wrapped()
    x, y = _as_bits(a, t), _as_bits(b, t)
    if (x.width, x.signed) != (y.width, y.signed):
        raise _Refused(f"{op}: {x} and {y} are of different types")
    if op in ("==", "!=", "<", ">", "<=", ">="):
        return _apply(op, x.value, y.value)
    if op in ("&&", "||", "++", "|+|", "|-|") or (
        op in ("/", "%") and (y.value <= 0 or x.value < 0)
    ):
        raise _Refused(f"{op} of {x} and {y}")
    return _Bits(x.width, x.signed, _apply(op, x.value, y.value)).wrapped()


def _as_bits(v: Any, like: _Bits) -> _Bits:
    if isinstance(v, _Bits):
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Refused(f"{v!r} and {like} are of different types")
    return _Bits(like.width, like.signed, v).wrapped()
