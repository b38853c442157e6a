"""A small C-style preprocessor for P4_16 sources.

p4c runs the system ``cpp`` (``-undef -nostdinc -x assembler-with-cpp``) over a
program before parsing it.  This module reproduces the parts of that behaviour
that P4 programs rely on, in pure Python:

* ``#include "file"`` / ``#include <file>`` (quoted includes search the
  including file's directory first, then ``include_dirs``, then the bundled
  system directory holding ``core.p4`` and ``v1model.p4``);
* object-like and function-like ``#define`` (variadic parameters, ``#``
  stringizing, ``##`` pasting, nested expansion with the usual rule that a
  macro is never re-expanded inside its own expansion), ``#undef``;
* ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif`` with integer
  constant expressions;
* ``#error`` (raises :class:`PreprocessError`), ``#warning`` (stderr),
  ``#line`` / GNU line markers and ``#pragma once`` (other pragmas are
  dropped); any other directive is an error;
* the built-in macros ``__FILE__`` and ``__LINE__`` (no other macro is
  predefined, as with ``-undef``);
* line splicing and removal of ``//`` and ``/* */`` comments.

Instead of emitting ``#line`` markers, the result carries an explicit origin
for every output line (:class:`Preprocessed`).  Every physical source line
yields exactly one output line; directive lines and lines in skipped
conditional regions become empty lines, and an ``#include`` line is followed
by the included file's lines.  Comments are replaced by the same number of
spaces, so columns on an output line match the source line it came from
(except after a line splice or a macro invocation spanning several lines,
whose expansion is placed on its first line).

As in ``cpp -x assembler-with-cpp``, ``#`` in a function-like macro body that
is not followed by a parameter is kept literally, a ``##`` paste that does not
form a single token leaves the two tokens side by side, and a quote that is not
closed on its line quotes the rest of the line.

A string literal may span lines (p4c's lexer accepts it; SAI-P4-style programs
put multi-line ``@entry_restriction("...")`` bodies in annotations).  cpp does
not know the string continues, and p4c runs it with ``-C``: on the following
lines of such a string, comments are kept as text, macros are expanded and runs
of blanks between tokens become one space, so those lines are rewritten as cpp
writes them, and the string's text is the one p4c puts in P4Info.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = [
    "Preprocessed",
    "PreprocessError",
    "SourceLine",
    "preprocess",
    "preprocess_text",
    "system_include_dir",
]

_MAX_INCLUDE_DEPTH = 200
_NO_DEFINES: Mapping[str, str] = MappingProxyType({})


# --------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceLine:
    """A position in an original source file: path and 1-based line number."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Preprocessed:
    """The preprocessed text and, for every output line, where it came from.

    ``text`` contains no line markers.  ``text.splitlines()`` has exactly
    ``len(origins)`` entries and ``origins[i]`` is the source of line ``i + 1``.
    """

    text: str
    origins: tuple[SourceLine, ...]

    def locate(self, line: int) -> SourceLine:
        """Map a 1-based output line number to its original position.

        Numbers outside ``1..len(origins)`` are clamped to the first/last line
        (parsers report end-of-input errors one past the last line).  Raises
        :class:`ValueError` if the output is empty.
        """
        if not self.origins:
            raise ValueError("empty preprocessor output has no source lines")
        index = min(max(line, 1), len(self.origins)) - 1
        return self.origins[index]


class PreprocessError(Exception):
    """A preprocessing failure at ``file:line:col`` (1-based line and column)."""

    def __init__(self, file: str, line: int, col: int, message: str) -> None:
        super().__init__(file, line, col, message)
        self.file = file
        self.line = line
        self.col = col
        self.message = message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: error: {self.message}"


def system_include_dir() -> Path:
    """Directory of the bundled architecture files (``core.p4``, ``v1model.p4``)."""
    return Path(__file__).resolve().parent.parent / "p4include"


def preprocess(
    path: Path,
    include_dirs: Sequence[Path] = (),
    defines: Mapping[str, str] = _NO_DEFINES,
) -> Preprocessed:
    """Preprocess the file at ``path``.

    ``include_dirs`` are searched like ``-I`` options; ``defines`` maps macro
    names to values like ``-D NAME=VALUE`` (an empty value means ``1``; a key
    such as ``"F(x)"`` defines a function-like macro).  Raises
    :class:`PreprocessError` on any error, including an unreadable ``path``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PreprocessError(str(path), 1, 1, f"cannot read file: {exc}") from None
    return preprocess_text(text, str(path), include_dirs, defines)


def preprocess_text(
    text: str,
    filename: str,
    include_dirs: Sequence[Path] = (),
    defines: Mapping[str, str] = _NO_DEFINES,
) -> Preprocessed:
    """Preprocess ``text`` as if it were the contents of ``filename``.

    ``filename`` is used in origins and error messages, and its directory is
    searched first for quoted includes.  See :func:`preprocess` for the other
    arguments.
    """
    pp = _Preprocessor(include_dirs)
    for name, value in defines.items():
        pp.define_from_command_line(name, value)
    pp.run_file(text, filename, Path(filename).parent, os.path.realpath(filename))
    out = "".join(line + "\n" for line in pp.lines)
    return Preprocessed(out, tuple(pp.origins))


# --------------------------------------------------------------------------
# Lexical layer: physical lines -> logical lines without comments
# --------------------------------------------------------------------------

# A string literal (possibly unterminated at end of line), or a comment opener.
_CODE_RE = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?$)|//|/\*')
# The rest of a string literal that began on an earlier line, up to its closing quote.
_STRING_REST_RE = re.compile(r'(?:[^"\\]|\\.)*"')
_CLOSED_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')

# Where a line starts or ends, lexically.
_IN_CODE = 0
_IN_COMMENT = 1  # inside a /* */ comment
_IN_STRING = 2  # inside a string literal begun on an earlier line


def _blank_comments(s: str, state: int) -> tuple[str, int, int]:
    """Replace comments in ``s`` by spaces of equal length.

    ``state`` says whether ``s`` starts in code, inside a block comment or inside
    a string literal (whose text, comment-like or not, is kept).  Returns the
    blanked text, the state at its end, and the column (0-based) of the opener
    of a block comment still open at its end (-1 if none opened here).
    """
    out: list[str] = []
    i = 0
    n = len(s)
    open_col = -1
    if state == _IN_STRING:
        m = _STRING_REST_RE.match(s)
        if m is None:
            return s, _IN_STRING, -1
        out.append(m.group())
        i = m.end()
        state = _IN_CODE
    while i < n:
        if state == _IN_COMMENT:
            end = s.find("*/", i)
            if end < 0:
                out.append(" " * (n - i))
                break
            out.append(" " * (end + 2 - i))
            i = end + 2
            state = _IN_CODE
            open_col = -1
            continue
        m = _CODE_RE.search(s, i)
        if m is None:
            out.append(s[i:])
            break
        out.append(s[i : m.start()])
        found = m.group()
        if found == "//":
            out.append(" " * (n - m.start()))
            break
        if found == "/*":
            out.append("  ")
            open_col = m.start()
            state = _IN_COMMENT
            i = m.end()
            continue
        out.append(found)
        i = m.end()
        if _CLOSED_STRING_RE.fullmatch(found) is None:
            state = _IN_STRING  # the string goes on on the next line
    return "".join(out), state, open_col


@dataclass(slots=True)
class _Entry:
    """A logical line: spliced, comments blanked; covers ``count`` physical lines."""

    text: str
    phys: int
    count: int
    directive: bool
    in_string: bool = False  # starts inside a string literal begun on an earlier line
    open_string: bool = False  # ends inside a string literal


def _is_directive_text(text: str) -> bool:
    return text.lstrip(" \t\f\v").startswith("#")


def _split_entries(text: str, display: str) -> list[_Entry]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    phys = text.split("\n")
    if phys and phys[-1] == "":
        phys.pop()

    # Splice lines ending in a backslash (trailing blanks after it tolerated).
    logical: list[tuple[str, int, int]] = []
    i = 0
    n = len(phys)
    while i < n:
        start = i
        pieces: list[str] = []
        while True:
            line = phys[i]
            i += 1
            trimmed = line.rstrip(" \t")
            if trimmed.endswith("\\"):
                pieces.append(trimmed[:-1])
                if i < n:
                    continue
                break
            pieces.append(line)
            break
        logical.append(("".join(pieces), start + 1, i - start))

    entries: list[_Entry] = []
    state = _IN_CODE
    comment_at = (0, 0)
    j = 0
    while j < len(logical):
        raw, first, count = logical[j]
        j += 1
        if state == _IN_STRING and _is_directive_text(raw):
            # cpp still obeys a directive inside a string literal spanning lines
            text = _blank_comments(raw, _IN_CODE)[0]
            entries.append(_Entry(text, first, count, True, True, True))
            continue
        starts_in_string = state == _IN_STRING
        blanked, state, open_col = _blank_comments(raw, state)
        if open_col >= 0:
            comment_at = (first, open_col + 1)
        directive = not starts_in_string and _is_directive_text(blanked)
        # A block comment inside a directive is whitespace: the directive goes
        # on after the comment, even if the comment spans several lines.
        while directive and state == _IN_COMMENT and j < len(logical):
            raw2, first2, count2 = logical[j]
            j += 1
            piece, state, open_col = _blank_comments(raw2, _IN_COMMENT)
            if open_col >= 0:
                comment_at = (first2, open_col + 1)
            blanked += " " + piece
            count += count2
        if directive and state == _IN_STRING:
            state = _IN_CODE  # a directive's quote does not reach the program text
        entries.append(
            _Entry(blanked, first, count, directive, starts_in_string, state == _IN_STRING)
        )
    if state == _IN_COMMENT:
        raise PreprocessError(display, comment_at[0], comment_at[1], "unterminated comment")
    return entries


# --------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------

_WS = "ws"
_IDENT = "ident"
_NUMBER = "number"
_STRING = "string"
_PUNCT = "punct"
_OTHER = "other"
_VERBATIM = "verbatim"  # a comment (kept only inside multi-line strings) or a 'quoted' run
_PLACEMARKER = "pm"

_TOKEN_RE = re.compile(
    r"""
     (?P<ws>[ \t\f\v]+)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
    |(?P<string>"(?:[^"\\\n]|\\.)*(?:"|$))
    |(?P<verbatim>//.*|/\*.*?(?:\*/|$)|'(?:[^'\\\n]|\\.)*(?:'|$))
    |(?P<punct>\#\#|\.\.\.|&&&|\|\+\||\|-\||<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=
              |&&|\|\||[-+*/%&|^]=|::)
    |(?P<other>.)
    """,
    re.X | re.S,
)
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EMPTY_HS: frozenset[str] = frozenset()
_BUILTINS = frozenset({"__FILE__", "__LINE__"})


class _Tok:
    """A preprocessing token with its hide set (macros not to expand again)."""

    __slots__ = ("kind", "text", "hs", "exp")

    def __init__(
        self, kind: str, text: str, hs: frozenset[str] = _EMPTY_HS, exp: bool = False
    ) -> None:
        self.kind = kind
        self.text = text
        self.hs = hs
        self.exp = exp  # produced by a macro expansion

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"_Tok({self.kind}, {self.text!r})"


def _tokenize(s: str) -> list[_Tok]:
    return [_Tok(m.lastgroup or _OTHER, m.group()) for m in _TOKEN_RE.finditer(s)]


def _would_paste(left: str, right: str) -> bool:
    """True if writing ``left`` and ``right`` adjacently would merge them."""
    m = _TOKEN_RE.match(left + right)
    return m is not None and m.end() > len(left)


def _render(toks: Sequence[_Tok]) -> str:
    parts: list[str] = []
    last: _Tok | None = None
    gap = True
    for t in toks:
        if t.kind == _WS:
            parts.append(t.text)
            gap = True
            continue
        if t.kind == _PLACEMARKER:
            continue
        if last is not None and not gap and (last.exp or t.exp) and _would_paste(last.text, t.text):
            parts.append(" ")
        parts.append(t.text)
        last = t
        gap = False
    return "".join(parts)


def _render_as_cpp(toks: Sequence[_Tok]) -> str:
    """Tokens as cpp writes a line: the indentation kept (one space per blank),
    one space wherever blanks separated tokens, no trailing blanks."""
    parts: list[str] = []
    k = 0
    while k < len(toks) and toks[k].kind == _WS:
        parts.append(" " * len(toks[k].text))
        k += 1
    last: _Tok | None = None
    gap = False
    for t in toks[k:]:
        if t.kind == _WS:
            gap = True
            continue
        if t.kind == _PLACEMARKER:
            continue
        if last is not None and (gap or ((last.exp or t.exp) and _would_paste(last.text, t.text))):
            parts.append(" ")
        parts.append(t.text)
        last = t
        gap = False
    return "".join(parts)


def _strip_ws(toks: list[_Tok]) -> list[_Tok]:
    lo = 0
    hi = len(toks)
    while lo < hi and toks[lo].kind == _WS:
        lo += 1
    while hi > lo and toks[hi - 1].kind == _WS:
        hi -= 1
    return toks[lo:hi]


def _string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------
# Macros and expansion
# --------------------------------------------------------------------------


@dataclass(slots=True)
class _Macro:
    name: str
    params: tuple[str, ...] | None  # None for object-like macros
    variadic: bool
    body: tuple[_Tok, ...]


class _ExpandError(Exception):
    def __init__(self, message: str, name: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.name = name


class _Incomplete(Exception):
    """Raised (when more input may follow) if a macro call runs past the input."""

    def __init__(self, in_args: bool) -> None:
        super().__init__()
        self.in_args = in_args


@dataclass(slots=True)
class _Cond:
    parent_active: bool
    taken: bool
    active: bool
    saw_else: bool
    directive: str
    line: int
    col: int


@dataclass(slots=True)
class _FileCtx:
    file: str  # presented name (changed by #line)
    cur_dir: Path
    key: str  # real path, for #pragma once
    delta: int = 0  # presented line = physical line + delta
    line: int = 0  # presented line of the logical line being processed


_DIRECTIVE_RE = re.compile(r"[ \t\f\v]*#[ \t\f\v]*(?:([A-Za-z_][A-Za-z0-9_]*)|(?=[0-9]))?")
_INT_RE = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)")


class _Preprocessor:
    def __init__(self, include_dirs: Sequence[Path]) -> None:
        self.include_dirs = [Path(d) for d in include_dirs]
        self.system_dir = system_include_dir()
        self.macros: dict[str, _Macro] = {}
        self.once: set[str] = set()
        self.lines: list[str] = []
        self.origins: list[SourceLine] = []
        self.depth = 0
        self.ctx = _FileCtx("<command-line>", Path("."), "")

    # ---- output -------------------------------------------------------

    def _emit(self, text: str, phys: int) -> None:
        self.lines.append(text)
        self.origins.append(SourceLine(self.ctx.file, phys + self.ctx.delta))

    def _emit_blank(self, phys: int, count: int) -> None:
        for k in range(count):
            self._emit("", phys + k)

    def _error(self, col: int, message: str) -> PreprocessError:
        return PreprocessError(self.ctx.file, self.ctx.line, max(col, 1), message)

    # ---- files --------------------------------------------------------

    def run_file(self, text: str, display: str, cur_dir: Path, key: str) -> None:
        ctx = _FileCtx(display, cur_dir, key)
        saved = self.ctx
        self.ctx = ctx
        try:
            entries = _split_entries(text, display)
            conds: list[_Cond] = []
            i = 0
            while i < len(entries):
                e = entries[i]
                ctx.line = e.phys + ctx.delta
                active = not conds or conds[-1].active
                if e.directive:
                    self._emit_blank(e.phys, e.count)
                    self._directive(e, conds, active)
                    i += 1
                elif not active:
                    self._emit_blank(e.phys, e.count)
                    i += 1
                else:
                    i = self._text_line(entries, i)
            if conds:
                c = conds[-1]
                raise PreprocessError(ctx.file, c.line, c.col, f"unterminated #{c.directive}")
        finally:
            self.ctx = saved

    def _find_include(self, name: str, angled: bool) -> Path | None:
        if Path(name).is_absolute():
            p = Path(name)
            return p if p.is_file() else None
        dirs = [] if angled else [self.ctx.cur_dir]
        dirs += self.include_dirs
        dirs.append(self.system_dir)
        for d in dirs:
            p = d / name
            if p.is_file():
                return p
        return None

    # ---- text lines -------------------------------------------------------

    def _may_expand(self, text: str) -> bool:
        macros = self.macros
        return any(w in macros or w in _BUILTINS for w in _IDENT_RE.findall(text))

    def _text_line(self, entries: list[_Entry], i: int) -> int:
        e = entries[i]
        if e.in_string:
            # a line of a multi-line string literal: as cpp -C writes it
            out = self._expand(_tokenize(e.text), True)
            self._emit(_render_as_cpp(out), e.phys)
            self._emit_blank(e.phys + 1, e.count - 1)
            return i + 1
        if not self._may_expand(e.text):
            self._emit(e.text if e.open_string else e.text.rstrip(), e.phys)
            self._emit_blank(e.phys + 1, e.count - 1)
            return i + 1
        text = e.text
        last = i  # index of the last entry joined into `text`
        force_final = False
        n = len(entries)
        while True:
            final = force_final or last + 1 >= n or entries[last + 1].directive
            try:
                out = self._expand(_tokenize(text), final)
                break
            except _Incomplete as inc:
                # A function-like macro call may continue on the next lines.
                nxt = last + 1
                if not inc.in_args:
                    while nxt < n and not entries[nxt].directive and not entries[nxt].text.strip():
                        nxt += 1
                    if nxt >= n or not entries[nxt].text.lstrip().startswith("("):
                        force_final = True
                        continue
                for k in range(last + 1, nxt + 1):
                    text += " " + entries[k].text
                last = nxt
            except _ExpandError as err:
                col = text.find(err.name) + 1 if err.name else 1
                raise self._error(col, err.message) from None
        text = _render(out)
        self._emit(text if entries[last].open_string else text.rstrip(), e.phys)
        self._emit_blank(e.phys + 1, e.count - 1)
        for k in range(i + 1, last + 1):
            self._emit_blank(entries[k].phys, entries[k].count)
        return last + 1

    # ---- expansion --------------------------------------------------------

    def _builtin(self, name: str) -> _Tok:
        if name == "__LINE__":
            return _Tok(_NUMBER, str(self.ctx.line), exp=True)
        return _Tok(_STRING, _string_literal(self.ctx.file), exp=True)

    def _expand(self, toks: list[_Tok], final: bool) -> list[_Tok]:
        """Fully macro-expand ``toks`` (Prosser's hide-set algorithm).

        If ``final`` is false and a function-like macro call might continue
        past the end of ``toks``, raise :class:`_Incomplete`.
        """
        pending = toks[::-1]
        out: list[_Tok] = []
        macros = self.macros
        while pending:
            t = pending.pop()
            if t.kind != _IDENT or t.text in t.hs:
                out.append(t)
                continue
            name = t.text
            m = macros.get(name)
            if m is None:
                if name in _BUILTINS:
                    out.append(self._builtin(name))
                else:
                    out.append(t)
                continue
            if m.params is None:
                pending.extend(reversed(self._subst(m, [], t.hs | {name})))
                continue
            j = len(pending) - 1
            while j >= 0 and pending[j].kind == _WS:
                j -= 1
            if j < 0:
                if not final:
                    raise _Incomplete(in_args=False)
                out.append(t)
                continue
            if pending[j].text != "(" or pending[j].kind != _OTHER:
                out.append(t)
                continue
            del pending[j:]
            args, rparen, va_omitted = self._collect_args(pending, m, final)
            hs = (t.hs & rparen.hs) | {name}
            pending.extend(reversed(self._subst(m, args, hs, va_omitted)))
        return out

    @staticmethod
    def _collect_args(
        pending: list[_Tok], m: _Macro, final: bool
    ) -> tuple[list[list[_Tok]], _Tok, bool]:
        """Pop a macro call's arguments (after its '(') from ``pending``.

        Returns the arguments (stripped of surrounding blanks), the closing
        parenthesis and whether a variadic macro's variable part was omitted.
        """
        assert m.params is not None
        nparams = len(m.params)
        args: list[list[_Tok]] = [[]]
        depth = 0
        while True:
            if not pending:
                if final:
                    raise _ExpandError(
                        f'unterminated argument list invoking macro "{m.name}"', m.name
                    )
                raise _Incomplete(in_args=True)
            t = pending.pop()
            if t.kind == _OTHER and t.text == "(":
                depth += 1
            elif t.kind == _OTHER and t.text == ")":
                if depth == 0:
                    rparen = t
                    break
                depth -= 1
            elif (
                t.kind == _OTHER
                and t.text == ","
                and depth == 0
                and not (m.variadic and len(args) >= nparams)
            ):
                args.append([])
                continue
            args[-1].append(t)
        args = [_strip_ws(a) for a in args]
        if nparams == 0:
            if len(args) == 1 and not args[0]:
                return [], rparen, False
            raise _ExpandError(
                f'macro "{m.name}" passed {len(args)} arguments, but takes just 0', m.name
            )
        va_omitted = m.variadic and len(args) == nparams - 1
        if va_omitted:
            args.append([])
        if len(args) < nparams:
            raise _ExpandError(
                f'macro "{m.name}" requires {nparams} arguments, but only {len(args)} given',
                m.name,
            )
        if len(args) > nparams:
            raise _ExpandError(
                f'macro "{m.name}" passed {len(args)} arguments, but takes just {nparams}',
                m.name,
            )
        return args, rparen, va_omitted

    def _subst(
        self, m: _Macro, args: list[list[_Tok]], hs: frozenset[str], va_omitted: bool = False
    ) -> list[_Tok]:
        """Substitute ``args`` into the body of ``m``; apply ``#``, ``##`` and ``hs``.

        ``va_omitted`` says the call left out the variable arguments entirely,
        which (GNU extension) makes ``, ## __VA_ARGS__`` drop the comma.
        """
        body = m.body
        index = {p: k for k, p in enumerate(m.params or ())}
        expanded: dict[int, list[_Tok]] = {}
        paste_op = _Tok("paste", "##")  # the ## operator (never an argument's token)
        items: list[_Tok] = []

        def neighbour(k: int, step: int) -> _Tok | None:
            k += step
            while 0 <= k < len(body) and body[k].kind == _WS:
                k += step
            return body[k] if 0 <= k < len(body) else None

        def is_paste(t: _Tok | None) -> bool:
            return t is not None and t.kind == _PUNCT and t.text == "##"

        k = 0
        while k < len(body):
            b = body[k]
            if m.params is not None and b.kind == _OTHER and b.text == "#":
                nxt = neighbour(k, 1)
                if nxt is not None and nxt.kind == _IDENT and nxt.text in index:
                    items.append(self._stringize(args[index[nxt.text]]))
                    k = body.index(nxt, k)
                    k += 1
                    continue
            if is_paste(b):
                items.append(paste_op)
            elif b.kind == _IDENT and b.text in index:
                which = index[b.text]
                arg = args[which]
                if is_paste(neighbour(k, -1)) or is_paste(neighbour(k, 1)):
                    if arg:
                        items.extend(arg)
                    else:
                        items.append(_Tok(_PLACEMARKER, b.text))
                else:
                    if which not in expanded:
                        expanded[which] = self._expand(list(arg), True)
                    items.extend(expanded[which])
            else:
                items.append(b)
            k += 1

        result: list[_Tok] = []
        variadic_name = m.params[-1] if m.variadic and m.params else None
        k = 0
        while k < len(items):
            item = items[k]
            k += 1
            if item is not paste_op:
                result.append(item)
                continue
            while result and result[-1].kind == _WS:
                result.pop()
            while k < len(items) and items[k].kind == _WS:
                k += 1
            right = items[k]
            k += 1
            left = result.pop() if result else _Tok(_PLACEMARKER, "")
            if left.kind == _PLACEMARKER:
                result.append(right)
            elif right.kind == _PLACEMARKER:
                # GNU extension: `, ## __VA_ARGS__` drops the comma when the
                # variable arguments were omitted from the call.
                if not (va_omitted and left.text == "," and right.text == variadic_name):
                    result.append(left)
            else:
                result.extend(self._paste(left, right))
        return [_Tok(t.kind, t.text, t.hs | hs, True) for t in result if t.kind != _PLACEMARKER]

    @staticmethod
    def _paste(left: _Tok, right: _Tok) -> list[_Tok]:
        toks = _tokenize(left.text + right.text)
        if len(toks) == 1:
            return toks
        return [left, right]  # assembler-with-cpp: an invalid paste is left alone

    @staticmethod
    def _stringize(arg: list[_Tok]) -> _Tok:
        parts: list[str] = []
        for t in arg:
            if t.kind == _WS:
                if parts and parts[-1] != " ":
                    parts.append(" ")
            elif t.kind == _STRING or t.text == '"':
                parts.append(t.text.replace("\\", "\\\\").replace('"', '\\"'))
            else:
                parts.append(t.text)
        return _Tok(_STRING, '"' + "".join(parts).strip() + '"')

    # ---- definitions --------------------------------------------------------

    def define_from_command_line(self, name: str, value: str) -> None:
        """Define ``name`` like ``-D name=value`` (empty value means ``1``)."""
        try:
            self._define(f"{name} {value if value != '' else '1'}")
        except _ExpandError as err:
            raise PreprocessError("<command-line>", 1, 1, err.message) from None

    def _define(self, text: str) -> None:
        m = _IDENT_RE.match(text.lstrip(" \t\f\v"))
        if m is None:
            if not text.strip():
                raise _ExpandError("no macro name given in #define directive")
            raise _ExpandError("macro names must be identifiers")
        rest = text.lstrip(" \t\f\v")
        name = m.group()
        if name == "defined":
            raise _ExpandError('"defined" cannot be used as a macro name')
        pos = m.end()
        params: tuple[str, ...] | None = None
        variadic = False
        if rest[pos : pos + 1] == "(":
            close = rest.find(")", pos)
            if close < 0:
                raise _ExpandError("missing ')' in macro parameter list")
            plist: list[str] = []
            raw = rest[pos + 1 : close].strip()
            if raw:
                for p in (x.strip() for x in raw.split(",")):
                    if variadic:
                        raise _ExpandError("missing ')' in macro parameter list")
                    if p == "...":
                        plist.append("__VA_ARGS__")
                        variadic = True
                    elif p.endswith("...") and _IDENT_RE.fullmatch(p[:-3].strip()):
                        plist.append(p[:-3].strip())
                        variadic = True
                    elif _IDENT_RE.fullmatch(p):
                        if p in plist:
                            raise _ExpandError(f'duplicate macro parameter "{p}"')
                        plist.append(p)
                    else:
                        raise _ExpandError(f'expected parameter name, found "{p}"')
            params = tuple(plist)
            pos = close + 1
        body: list[_Tok] = []
        for t in _strip_ws(_tokenize(rest[pos:])):
            if t.kind == _WS:
                if body and body[-1].kind != _WS:
                    body.append(_Tok(_WS, " "))
            else:
                body.append(t)
        for end in (body[:1], body[-1:]):
            if end and end[0].kind == _PUNCT and end[0].text == "##":
                raise _ExpandError("'##' cannot appear at either end of a macro expansion")
        self.macros[name] = _Macro(name, params, variadic, tuple(body))

    # ---- directives -----------------------------------------------------------

    def _directive(self, e: _Entry, conds: list[_Cond], active: bool) -> None:
        m = _DIRECTIVE_RE.match(e.text)
        assert m is not None
        name = m.group(1)
        rest = e.text[m.end() :]
        col = (m.start(1) if name else e.text.index("#")) + 1
        if name is None:
            if not rest.strip():
                return  # null directive
            if not active:
                return
            if rest.lstrip()[:1].isdigit():  # GNU line marker: # 12 "file"
                self._line_directive(e, rest, col)
                return
            raise self._error(col, f"invalid preprocessing directive #{rest.split()[0]}")
        try:
            if name in ("if", "ifdef", "ifndef"):
                if not active:
                    conds.append(_Cond(False, True, False, False, name, self.ctx.line, col))
                    return
                value = self._condition(name, rest)
                conds.append(_Cond(True, value, value, False, name, self.ctx.line, col))
                return
            if name in ("elif", "elifdef", "elifndef"):
                if not conds:
                    raise _ExpandError(f"#{name} without #if")
                c = conds[-1]
                if c.saw_else:
                    raise _ExpandError(f"#{name} after #else")
                if not c.parent_active or c.taken:
                    c.active = False
                else:
                    c.active = self._condition(name[2:], rest)  # elif -> if, ...
                    c.taken = c.active
                return
            if name == "else":
                if not conds:
                    raise _ExpandError("#else without #if")
                c = conds[-1]
                if c.saw_else:
                    raise _ExpandError("#else after #else")
                c.saw_else = True
                c.active = c.parent_active and not c.taken
                c.taken = True
                return
            if name == "endif":
                if not conds:
                    raise _ExpandError("#endif without #if")
                conds.pop()
                return
            if not active:
                return
            if name == "define":
                self._define(rest)
            elif name == "undef":
                target = _IDENT_RE.match(rest.strip())
                if target is None:
                    raise _ExpandError("no macro name given in #undef directive")
                self.macros.pop(target.group(), None)
            elif name == "include":
                self._include(e, rest, m.end())
            elif name == "error":
                raise self._error(col, f"#error {rest.strip()}".rstrip())
            elif name == "warning":
                print(
                    f"{self.ctx.file}:{self.ctx.line}:{col}: warning: #warning {rest.strip()}",
                    file=sys.stderr,
                )
            elif name == "line":
                self._line_directive(e, rest, col)
            elif name == "pragma":
                words = rest.split()
                if words == ["once"]:
                    self.once.add(self.ctx.key)
                # any other pragma is dropped
            else:
                raise _ExpandError(f"invalid preprocessing directive #{name}")
        except _ExpandError as err:
            raise self._error(col, err.message) from None

    def _include(self, e: _Entry, rest: str, rest_at: int) -> None:
        spec = rest.strip()
        col = rest_at + (len(rest) - len(rest.lstrip())) + 1
        if not spec.startswith(('"', "<")):
            spec = _render(self._expand(_tokenize(rest), True)).strip()
        if spec.startswith('"'):
            end = spec.find('"', 1)
            angled = False
        elif spec.startswith("<"):
            end = spec.find(">", 1)
            angled = True
        else:
            raise self._error(col, '#include expects "FILENAME" or <FILENAME>')
        if end < 0:
            raise self._error(
                col, f"missing terminating {spec[0] if not angled else '>'} character"
            )
        fname = spec[1:end]
        if not fname:
            raise self._error(col, "empty filename in #include")
        path = self._find_include(fname, angled)
        if path is None:
            raise self._error(col, f"{fname}: No such file or directory")
        key = os.path.realpath(path)
        if key in self.once:
            return
        if self.depth >= _MAX_INCLUDE_DEPTH:
            raise self._error(
                col, f"#include nested depth {self.depth} exceeds maximum of {_MAX_INCLUDE_DEPTH}"
            )
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise self._error(col, f"{fname}: {exc}") from None
        self.depth += 1
        try:
            self.run_file(text, str(path), path.parent, key)
        finally:
            self.depth -= 1

    def _line_directive(self, e: _Entry, rest: str, col: int) -> None:
        toks = [t for t in self._expand(_tokenize(rest), True) if t.kind != _WS]
        if not toks or not toks[0].text.isdigit():
            shown = toks[0].text if toks else ""
            raise _ExpandError(f'"{shown}" after #line is not a positive integer')
        number = int(toks[0].text)
        if len(toks) > 1:
            if toks[1].kind != _STRING:
                raise _ExpandError(f'invalid filename "{toks[1].text}"')
            raw = toks[1].text[1:-1]
            self.ctx.file = re.sub(r"\\(.)", r"\1", raw)
        self.ctx.delta = number - (e.phys + e.count)

    # ---- #if expressions ------------------------------------------------------

    def _is_defined(self, name: str) -> bool:
        return name in self.macros or name in _BUILTINS

    def _condition(self, kind: str, rest: str) -> bool:
        """Evaluate the condition of ``#if``/``#ifdef``/``#ifndef`` (``kind``)."""
        if kind in ("ifdef", "ifndef"):
            target = _IDENT_RE.match(rest.strip())
            if target is None:
                raise _ExpandError(f"no macro name given in #{kind} directive")
            found = self._is_defined(target.group())
            return found if kind == "ifdef" else not found
        toks = self._replace_defined(_tokenize(rest))
        toks = [t for t in self._expand(toks, True) if t.kind != _WS]
        if not toks:
            raise _ExpandError("#if with no expression")
        return _ExprParser(toks).evaluate() != 0

    def _replace_defined(self, toks: list[_Tok]) -> list[_Tok]:
        out: list[_Tok] = []
        k = 0
        n = len(toks)

        def skip_ws(k: int) -> int:
            while k < n and toks[k].kind == _WS:
                k += 1
            return k

        while k < n:
            t = toks[k]
            if t.kind != _IDENT or t.text != "defined":
                out.append(t)
                k += 1
                continue
            k = skip_ws(k + 1)
            paren = k < n and toks[k].text == "(" and toks[k].kind == _OTHER
            if paren:
                k = skip_ws(k + 1)
            if k >= n or toks[k].kind != _IDENT:
                raise _ExpandError('operator "defined" requires an identifier')
            value = self._is_defined(toks[k].text)
            k += 1
            if paren:
                k = skip_ws(k)
                if k >= n or toks[k].text != ")":
                    raise _ExpandError("missing ')' after \"defined\"")
                k += 1
            out.append(_Tok(_NUMBER, "1" if value else "0"))
        return out


# --------------------------------------------------------------------------
# #if expression evaluation
# --------------------------------------------------------------------------

_BINARY_PRECEDENCE = {
    "*": 10,
    "/": 10,
    "%": 10,
    "+": 9,
    "-": 9,
    "<<": 8,
    ">>": 8,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "==": 6,
    "!=": 6,
    "&": 5,
    "^": 4,
    "|": 3,
    "&&": 2,
    "||": 1,
}


def _wrap64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _parse_int(text: str) -> int:
    m = _INT_RE.fullmatch(text)
    if m is None:
        raise _ExpandError(f'invalid integer constant "{text}" in #if')
    digits = m.group(1)
    try:
        if digits[:2] in ("0x", "0X"):
            return int(digits[2:], 16)
        if digits[:2] in ("0b", "0B"):
            return int(digits[2:], 2)
        if len(digits) > 1 and digits[0] == "0":
            return int(digits, 8)
        return int(digits)
    except ValueError:
        raise _ExpandError(f'invalid integer constant "{text}" in #if') from None


_Node = tuple  # ("n", value) | (op, operand...) -- evaluated lazily


class _ExprParser:
    """Recursive-descent parser/evaluator for ``#if`` integer expressions."""

    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.pos = 0

    def _peek(self) -> str | None:
        if self.pos >= len(self.toks):
            return None
        t = self.toks[self.pos]
        return t.text if t.kind in (_PUNCT, _OTHER) else None

    def evaluate(self) -> int:
        node = self._conditional()
        if self.pos < len(self.toks):
            t = self.toks[self.pos]
            if t.text == ")":
                raise _ExpandError("missing '(' in expression")
            raise _ExpandError(f'missing binary operator before token "{t.text}"')
        return self._eval(node)

    def _conditional(self) -> _Node:
        cond = self._binary(1)
        if self._peek() == "?":
            self.pos += 1
            then = self._conditional()
            if self._peek() != ":":
                raise _ExpandError("'?' without following ':'")
            self.pos += 1
            other = self._conditional()
            return ("?", cond, then, other)
        return cond

    def _binary(self, min_prec: int) -> _Node:
        lhs = self._unary()
        while True:
            op = self._peek()
            prec = _BINARY_PRECEDENCE.get(op or "")
            if op is None or prec is None or prec < min_prec:
                return lhs
            self.pos += 1
            rhs = self._binary(prec + 1)
            lhs = (op, lhs, rhs)

    def _unary(self) -> _Node:
        if self.pos >= len(self.toks):
            raise _ExpandError("#if expression ends unexpectedly")
        t = self.toks[self.pos]
        self.pos += 1
        if t.kind == _NUMBER:
            return ("n", _parse_int(t.text))
        if t.kind == _IDENT:
            return ("n", 0)  # identifiers left after expansion are 0
        if t.kind in (_PUNCT, _OTHER):
            if t.text in ("+", "-", "!", "~"):
                return ("u" + t.text, self._unary())
            if t.text == "(":
                inner = self._conditional()
                if self._peek() != ")":
                    raise _ExpandError("missing ')' in expression")
                self.pos += 1
                return inner
        raise _ExpandError(f'token "{t.text}" is not valid in preprocessor expressions')

    def _eval(self, node: _Node) -> int:
        op = node[0]
        if op == "n":
            return int(node[1])
        if op == "?":
            return self._eval(node[2]) if self._eval(node[1]) else self._eval(node[3])
        if op[0] == "u" and len(node) == 2:
            v = self._eval(node[1])
            if op == "u-":
                return _wrap64(-v)
            if op == "u!":
                return int(not v)
            if op == "u~":
                return _wrap64(~v)
            return v
        if op == "&&":
            return int(bool(self._eval(node[1])) and bool(self._eval(node[2])))
        if op == "||":
            return int(bool(self._eval(node[1])) or bool(self._eval(node[2])))
        a = self._eval(node[1])
        b = self._eval(node[2])
        if op in ("/", "%"):
            if b == 0:
                raise _ExpandError("division by zero in #if")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            return _wrap64(q if op == "/" else a - b * q)
        if op == "*":
            return _wrap64(a * b)
        if op == "+":
            return _wrap64(a + b)
        if op == "-":
            return _wrap64(a - b)
        if op == "<<":
            return _wrap64(a << b if b >= 0 else a >> -b)
        if op == ">>":
            return _wrap64(a >> b if b >= 0 else a << -b)
        if op == "<":
            return int(a < b)
        if op == ">":
            return int(a > b)
        if op == "<=":
            return int(a <= b)
        if op == ">=":
            return int(a >= b)
        if op == "==":
            return int(a == b)
        if op == "!=":
            return int(a != b)
        if op == "&":
            return a & b
        if op == "^":
            return a ^ b
        if op == "|":
            return a | b
        raise _ExpandError(f"unsupported operator {op!r} in #if")  # pragma: no cover
