"""Parse STF (Simple Test Framework) files into typed commands.

The accepted language is the one p4c's BMv2 STF runner reads (its PLY grammar plus the
BMv2 extensions):

* line oriented; every statement starts with a keyword (case-insensitive) at the start of
  a line. A line whose first word is not a keyword continues the previous statement (as
  with p4c's lexer), except after ``packet``/``expect`` whose data ends at the newline;
* ``#`` starts a comment, but not on ``packet``/``expect`` lines (p4c's packet-data lexer
  has no comment rule, so a comment there is an error);
* identifiers are ``[A-Za-z_$][A-Za-z0-9_$]*`` or any double-quoted text; qualified names
  are ``ID`` or ``ID[n]`` followed by ``.ID`` parts;
* numbers are decimal, ``0x`` hex (``*`` nibbles allowed) or ``0b`` binary (``*`` bits
  allowed); number texts are kept as written because key translation depends on the
  number of digits.

Extension over p4c: an lpm key written ``VALUE/LEN`` is kept (p4c's runner crashes on it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Add",
    "CheckCounter",
    "Command",
    "CounterRead",
    "CounterWrite",
    "Expect",
    "McMgrpCreate",
    "McNodeAssociate",
    "McNodeCreate",
    "McNodeUpdate",
    "MeterArraySetRates",
    "MeterGetRates",
    "MeterSetRates",
    "MirroringAdd",
    "MirroringAddMc",
    "MirroringDelete",
    "MirroringGet",
    "NoPacket",
    "Packet",
    "RegisterRead",
    "RegisterReset",
    "RegisterWrite",
    "RemoveAll",
    "SetDefault",
    "StfError",
    "Wait",
    "parse_stf",
    "parse_stf_file",
]


class StfError(Exception):
    """A malformed STF file; the message starts with `file:line:`."""

    def __init__(self, message: str, file: str = "<stf>", line: int = 0) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.message = message
        self.file = file
        self.line = line


# ---------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Add:
    """``add TABLE [PRIO] KEY:VAL ... ACTION(ARG:VAL, ...) [= ID]``; values as written."""

    table: str
    priority: int | None
    keys: tuple[tuple[str, str], ...]
    action: str
    args: tuple[tuple[str, str], ...]
    entry_id: str | None = None
    line: int = 0


@dataclass(frozen=True, slots=True)
class SetDefault:
    table: str
    action: str
    args: tuple[tuple[str, str], ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class Packet:
    """``packet PORT HEX...``: `data` is the concatenated hex digits (may be odd-length)."""

    port: int
    data: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class Expect:
    """``expect PORT [HEX-or-* ... [$]]``: `pattern` None = any packet; one char per nibble."""

    port: int
    pattern: str | None
    exact_len: bool = False
    line: int = 0


@dataclass(frozen=True, slots=True)
class NoPacket:
    line: int = 0


@dataclass(frozen=True, slots=True)
class Wait:
    line: int = 0


@dataclass(frozen=True, slots=True)
class RemoveAll:
    line: int = 0


@dataclass(frozen=True, slots=True)
class CheckCounter:
    """``check_counter NAME(INDEX-or-$ID) [packets|bytes OP N]``; no check -> kind None."""

    counter: str
    index: str
    kind: str | None = None
    op: str = "=="
    value: int = 0
    line: int = 0


@dataclass(frozen=True, slots=True)
class MirroringAdd:
    session: int
    port: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class MirroringAddMc:
    session: int
    group: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class MirroringDelete:
    session: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class MirroringGet:
    session: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class McMgrpCreate:
    gid: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class McNodeCreate:
    rid: int
    ports: tuple[int, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class McNodeUpdate:
    handle: int
    ports: tuple[int, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class McNodeAssociate:
    gid: int
    handle: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class CounterRead:
    name: str
    index: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class CounterWrite:
    name: str
    index: int
    packets: int
    bytes: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class RegisterRead:
    name: str
    index: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class RegisterWrite:
    name: str
    index: int
    value: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class RegisterReset:
    name: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class MeterGetRates:
    name: str
    index: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class MeterSetRates:
    """Rates are (rate per microsecond, burst) pairs, as the BMv2 CLI takes them."""

    name: str
    index: int
    rates: tuple[tuple[float, int], ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class MeterArraySetRates:
    name: str
    rates: tuple[tuple[float, int], ...]
    line: int = 0


Command = (
    Add
    | SetDefault
    | Packet
    | Expect
    | NoPacket
    | Wait
    | RemoveAll
    | CheckCounter
    | MirroringAdd
    | MirroringAddMc
    | MirroringDelete
    | MirroringGet
    | McMgrpCreate
    | McNodeCreate
    | McNodeUpdate
    | McNodeAssociate
    | CounterRead
    | CounterWrite
    | RegisterRead
    | RegisterWrite
    | RegisterReset
    | MeterGetRates
    | MeterSetRates
    | MeterArraySetRates
)

# ---------------------------------------------------------------- lexing

KEYWORDS = frozenset(
    {
        "add",
        "all",
        "bytes",
        "check_counter",
        "expect",
        "no_packet",
        "packet",
        "packets",
        "remove",
        "setdefault",
        "wait",
        "mirroring_add",
        "mirroring_add_mc",
        "mirroring_delete",
        "mirroring_get",
        "mc_mgrp_create",
        "mc_node_create",
        "mc_node_update",
        "mc_node_associate",
        "counter_read",
        "counter_write",
        "register_read",
        "register_write",
        "register_reset",
        "meter_get_rates",
        "meter_set_rates",
        "meter_array_set_rates",
    }
)

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<comment>\#.*)
  | (?P<qid>"[^"]+")
  | (?P<num>0[xX][0-9a-fA-F*]+|0[bB][*01]+|[0-9]+)
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>==|!=|<=|>=|[<>=:,.\[\]()/])
    """,
    re.VERBOSE,
)
_DATA_RE = re.compile(r"[ \t\r\f\v]+|[0-9a-fA-F]+|\*|\$")
_FIRST_WORD_RE = re.compile(r"[ \t\r\f\v]*([A-Za-z_$][A-Za-z0-9_$]*)")


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # num, id, op, end
    text: str
    line: int


def _tokens(text: str, line: int, file: str) -> Iterator[_Tok]:
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise StfError(f"illegal character {text[pos]!r}", file, line)
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "comment":
            return
        if kind == "qid":
            yield _Tok("id", m.group()[1:-1], line)
        else:
            assert kind is not None
            yield _Tok(kind, m.group(), line)


def _number(text: str) -> int:
    """Value of an STF number token without `*` (decimal may have leading zeros)."""
    if text[:2].lower() in ("0x", "0b"):
        return int(text, 0)
    return int(text, 10)


# ---------------------------------------------------------------- parsing


class _Stmt:
    """Recursive-descent parser over the tokens of one (possibly continued) statement."""

    def __init__(self, toks: list[_Tok], file: str, line: int) -> None:
        self.toks = toks
        self.i = 0
        self.file = file
        self.line = line

    def peek(self, k: int = 0) -> _Tok:
        j = self.i + k
        if j < len(self.toks):
            return self.toks[j]
        last = self.toks[-1].line if self.toks else self.line
        return _Tok("end", "", last)

    def error(self, msg: str, tok: _Tok | None = None) -> StfError:
        t = tok or self.peek()
        return StfError(msg, self.file, t.line)

    def take(self, kind: str, text: str | None = None, what: str = "") -> _Tok:
        t = self.peek()
        if t.kind != kind or (text is not None and t.text != text):
            want = what or (repr(text) if text else kind)
            got = repr(t.text) if t.kind != "end" else "end of statement"
            raise self.error(f"expected {want}, got {got}", t)
        self.i += 1
        return t

    def at(self, kind: str, text: str | None = None) -> bool:
        t = self.peek()
        return t.kind == kind and (text is None or t.text == text)

    def done(self) -> None:
        t = self.peek()
        if t.kind != "end":
            if t.line != self.line:
                raise self.error(
                    f"unknown STF command {t.text!r} (or a stray continuation of line {self.line})",
                    t,
                )
            raise self.error(f"unexpected {t.text!r}", t)

    def name(self) -> str:
        """qualified_name: ID ['[' DEC ']'] ('.' ID)*"""
        s = self.take("id", what="a name").text
        if self.at("op", "["):
            self.i += 1
            n = self.take("num", what="an index")
            if not n.text.isdigit():
                raise self.error("array index must be decimal", n)
            self.take("op", "]")
            s += f"[{n.text}]"
        while self.at("op", "."):
            self.i += 1
            s += "." + self.take("id", what="a name").text
        return s

    def number_text(self) -> str:
        return self.take("num", what="a number").text

    def int_(self, what: str = "a number") -> int:
        t = self.take("num", what=what)
        if "*" in t.text:
            raise self.error(f"{what} cannot contain '*'", t)
        return _number(t.text)

    def float_(self) -> float:
        t = self.take("num", what="a rate")
        text = t.text
        if self.at("op", "."):
            self.i += 1
            text += "." + self.take("num", what="a fraction").text
        if "*" in text:
            raise self.error("a rate cannot contain '*'", t)
        try:
            return float(text) if "." in text else float(_number(text))
        except ValueError:
            raise self.error(f"bad rate {text!r}", t) from None

    def args(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """action: qualified_name '(' [ID ':' number (',' ID ':' number)*] ')'"""
        action = self.name()
        self.take("op", "(")
        args: list[tuple[str, str]] = []
        if not self.at("op", ")"):
            while True:
                n = self.take("id", what="an argument name").text
                self.take("op", ":")
                args.append((n, self.number_text()))
                if not self.at("op", ","):
                    break
                self.i += 1
        self.take("op", ")")
        return action, tuple(args)

    def rates(self) -> tuple[tuple[float, int], ...]:
        out = [self.rate()]
        while not self.at("end"):
            out.append(self.rate())
        return tuple(out)

    def rate(self) -> tuple[float, int]:
        r = self.float_()
        self.take("op", ":")
        return (r, self.int_("a burst size"))


def _parse_add(p: _Stmt, line: int) -> Add:
    table = p.name()
    prio = None
    if p.at("num"):
        t = p.take("num")
        if not t.text.isdigit():
            raise p.error("priority must be a decimal number", t)
        prio = int(t.text)
    keys: list[tuple[str, str]] = []
    while True:
        if not p.at("id"):
            raise p.error("expected a key field or an action")
        start = p.i
        p.name()
        if p.at("op", "("):
            p.i = start
            break
        p.i = start
        k = p.name()
        p.take("op", ":")
        v = p.number_text()
        if p.at("op", "/"):
            p.i += 1
            v += "/" + str(p.int_("a prefix length"))
        keys.append((k, v))
    if not keys:
        raise p.error("an add needs at least one KEY:VALUE")
    action, args = p.args()
    entry_id = None
    if p.at("op", "="):
        p.i += 1
        entry_id = p.take("id", what="an entry id").text
    p.done()
    return Add(table, prio, tuple(keys), action, args, entry_id, line)


def _parse_check_counter(p: _Stmt, line: int) -> CheckCounter:
    name = p.name()
    p.take("op", "(")
    t = p.peek()
    if t.kind not in ("id", "num"):
        raise p.error("expected a counter index or $ENTRY", t)
    p.i += 1
    p.take("op", ")")
    if p.at("end"):
        return CheckCounter(name, t.text, None, "==", 0, line)
    kind = p.take("id", what="'packets' or 'bytes'").text.lower()
    if kind not in ("packets", "bytes"):
        raise p.error("expected 'packets' or 'bytes'")
    op_tok = p.peek()
    if op_tok.kind != "op" or op_tok.text not in ("==", "!=", "<", "<=", ">", ">="):
        raise p.error("expected a comparison operator", op_tok)
    p.i += 1
    value = p.int_()
    p.done()
    return CheckCounter(name, t.text, kind, op_tok.text, value, line)


def _ports(p: _Stmt) -> tuple[int, ...]:
    ports = [p.int_("a port")]
    while not p.at("end"):
        ports.append(p.int_("a port"))
    return tuple(ports)


def _parse_statement(word: str, p: _Stmt, line: int) -> Command:  # noqa: C901
    cmd: Command
    if word == "add":
        return _parse_add(p, line)
    if word == "setdefault":
        table = p.name()
        action, args = p.args()
        cmd = SetDefault(table, action, args, line)
    elif word == "wait":
        cmd = Wait(line)
    elif word == "no_packet":
        cmd = NoPacket(line)
    elif word == "remove":
        t = p.take("id", what="'all'")
        if t.text.lower() != "all":
            raise p.error("only 'remove all' exists", t)
        cmd = RemoveAll(line)
    elif word == "check_counter":
        return _parse_check_counter(p, line)
    elif word == "mirroring_add":
        cmd = MirroringAdd(p.int_("a session id"), p.int_("a port"), line)
    elif word == "mirroring_add_mc":
        cmd = MirroringAddMc(p.int_("a session id"), p.int_("a group id"), line)
    elif word == "mirroring_delete":
        cmd = MirroringDelete(p.int_("a session id"), line)
    elif word == "mirroring_get":
        cmd = MirroringGet(p.int_("a session id"), line)
    elif word == "mc_mgrp_create":
        cmd = McMgrpCreate(p.int_("a group id"), line)
    elif word == "mc_node_create":
        cmd = McNodeCreate(p.int_("a replication id"), _ports(p), line)
    elif word == "mc_node_update":
        cmd = McNodeUpdate(p.int_("a node handle"), _ports(p), line)
    elif word == "mc_node_associate":
        cmd = McNodeAssociate(p.int_("a group id"), p.int_("a node handle"), line)
    elif word == "counter_read":
        cmd = CounterRead(p.name(), p.int_("an index"), line)
    elif word == "counter_write":
        cmd = CounterWrite(p.name(), p.int_("an index"), p.int_(), p.int_(), line)
    elif word == "register_read":
        cmd = RegisterRead(p.name(), p.int_("an index"), line)
    elif word == "register_write":
        cmd = RegisterWrite(p.name(), p.int_("an index"), p.int_("a value"), line)
    elif word == "register_reset":
        cmd = RegisterReset(p.name(), line)
    elif word == "meter_get_rates":
        cmd = MeterGetRates(p.name(), p.int_("an index"), line)
    elif word == "meter_set_rates":
        cmd = MeterSetRates(p.name(), p.int_("an index"), p.rates(), line)
    elif word == "meter_array_set_rates":
        cmd = MeterArraySetRates(p.name(), p.rates(), line)
    else:
        raise StfError(f"{word!r} cannot start a statement", p.file, line)
    p.done()
    return cmd


def _parse_data(word: str, rest: str, file: str, line: int) -> Packet | Expect:
    m = re.match(r"[ \t\r\f\v]*([0-9]+)", rest)
    if m is None:
        raise StfError(f"{word}: expected a decimal port number", file, line)
    port = int(m.group(1))
    pos = m.end()
    parts: list[str] = []
    exact = False
    while pos < len(rest):
        dm = _DATA_RE.match(rest, pos)
        if dm is None:
            ch = rest[pos]
            hint = " (p4c does not allow comments on packet lines)" if ch == "#" else ""
            raise StfError(f"invalid {word} data at {rest[pos:]!r}{hint}", file, line)
        pos = dm.end()
        tok = dm.group()
        if tok.isspace():
            continue
        if exact:
            raise StfError("'$' must be the last item of an expect line", file, line)
        if tok == "$":
            exact = True
            continue
        parts.append(tok)
    data = "".join(parts)
    if word == "packet":
        if exact or "*" in data:
            raise StfError("'*' and '$' are only allowed in expect data", file, line)
        if not data:
            raise StfError("packet needs data", file, line)
        return Packet(port, data, line)
    if not data and not exact:
        return Expect(port, None, False, line)
    return Expect(port, data.upper(), exact, line)


def parse_stf(text: str, filename: str = "<stf>") -> list[Command]:
    """Parse STF text; raises StfError (with file:line) on anything not understood."""
    out: list[Command] = []
    pending: tuple[str, int, list[_Tok]] | None = None

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            word, line, toks = pending
            pending = None
            out.append(_parse_statement(word, _Stmt(toks, filename, line), line))

    for lineno, raw in enumerate(text.splitlines(), start=1):
        m = _FIRST_WORD_RE.match(raw)
        word = m.group(1).lower() if m else None
        if word in KEYWORDS:
            assert m is not None
            flush()
            rest = raw[m.end() :]
            if word in ("packet", "expect"):
                out.append(_parse_data(word, rest, filename, lineno))
            else:
                pending = (word, lineno, list(_tokens(rest, lineno, filename)))
            continue
        toks = list(_tokens(raw, lineno, filename))
        if not toks:
            continue  # blank or comment-only line
        if pending is None:
            raise StfError(f"unknown STF command {toks[0].text!r}", filename, lineno)
        pending[2].extend(toks)  # a continuation line (p4c's grammar allows it)
    flush()
    return out


def parse_stf_file(path: str | Path) -> list[Command]:
    path = Path(path)
    return parse_stf(path.read_text(), str(path))
