"""Helpers that generated code calls: packets, header stacks, equality, parser errors.

Generated modules do `from softswitch.engine.runtime import *`; every name here that the
generator emits is listed in `__all__`.
"""

from __future__ import annotations

import struct
from typing import Any

from .names import field_py

__all__ = [
    "_EXIT",
    "_ExitSignal",
    "_ParserError",
    "_Reject",
    "_Stack",
    "_advance",
    "_assign",
    "_copy_tuple",
    "_emit",
    "_emit_varbit",
    "_eq",
    "_extract",
    "_extract_varbit",
    "_Struct",
    "_StructError",
    "_kept",
    "_lookahead",
    "_lookahead_header",
    "_mk",
    "_new",
    "_noop_action",
    "_reject",
    "_shl",
    "_to_signed",
    "PacketReader",
]

PACKET_TOO_SHORT = 1
STACK_OUT_OF_BOUNDS = 3
HEADER_TOO_SHORT = 4
PARSER_INVALID_ARGUMENT = 6

_new = object.__new__
# an action without parameters whose body is empty, as a table calls it: a C callable
# taking no arguments (a call of a Python function costs a frame for nothing)
_noop_action = tuple
_Struct = struct.Struct  # a header's byte layout (see codegen/layout.py)
_StructError = struct.error  # its unpack_from with too few bytes left


class _ExitSignal(Exception):
    """Raised by `exit`: ends the current top-level control."""


_EXIT = _ExitSignal()


class _ParserError(Exception):
    """Ends parsing with `standard_metadata.parser_error` set to `code`.

    A sub-parser it passes through records its out/inout values in `outs`, and its
    caller copies them back: p4c inlines sub-parsers, so on BMv2 what a sub-parser
    extracted before the error stays valid."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
        self.outs: tuple[Any, ...] = ()


class _Reject(Exception):
    """`transition reject` without an error of its own (`outs` as for _ParserError)."""

    outs: tuple[Any, ...] = ()


def _reject() -> None:
    raise _Reject()


class PacketReader:
    """The `packet_in` of a parser: the received bytes and a byte cursor."""

    __slots__ = ("data", "off")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.off = 0


def _extract(pk: PacketReader, h: Any) -> None:
    n = h._bytes
    off = pk.off
    end = off + n
    if end > len(pk.data):
        raise _ParserError(PACKET_TOO_SHORT)
    h._ext(int.from_bytes(pk.data[off:end], "big"))
    pk.off = end


def _extract_varbit(pk: PacketReader, h: Any, nbits: int) -> None:
    """Extract a header with one varbit field of `nbits` bits.

    The errors in BMv2's order: `nbits` not whole bytes is ParserInvalidArgument, then
    too little packet left is PacketTooShort, then more bits than the field holds is
    HeaderTooShort (165 bits into a varbit<16> is ParserInvalidArgument)."""
    widths = h._widths
    fields = h.__slots__
    vidx = next(i for i, w in enumerate(widths) if _is_varbit(h, i))
    fixed = sum(w for i, w in enumerate(widths) if i != vidx)
    if nbits % 8 or fixed % 8:
        raise _ParserError(PARSER_INVALID_ARGUMENT)
    n = (fixed + nbits) // 8
    if pk.off + n > len(pk.data):
        raise _ParserError(PACKET_TOO_SHORT)
    if nbits > widths[vidx]:
        raise _ParserError(HEADER_TOO_SHORT)
    v = int.from_bytes(pk.data[pk.off : pk.off + n], "big")
    shift = fixed + nbits
    for i, w in enumerate(widths):
        w = nbits if i == vidx else w
        shift -= w
        setattr(h, fields[i], (v >> shift) & ((1 << w) - 1))
    h._vw = nbits
    h._v = True
    pk.off += n


def _is_varbit(h: Any, i: int) -> bool:
    return i in getattr(h, "_varbit", ())


def _lookahead(pk: PacketReader, width: int) -> int:
    n = (width + 7) // 8
    if pk.off + n > len(pk.data):
        raise _ParserError(PACKET_TOO_SHORT)
    v = int.from_bytes(pk.data[pk.off : pk.off + n], "big")
    return v >> (n * 8 - width)


def _lookahead_header(pk: PacketReader, cls: type) -> Any:
    """lookahead<H>() / lookahead<S>(): a header (made valid) or struct from the next bits."""
    h = cls()
    n = h._bytes
    if pk.off + n > len(pk.data):
        raise _ParserError(PACKET_TOO_SHORT)
    v = int.from_bytes(pk.data[pk.off : pk.off + n], "big")
    h._ext(v >> (n * 8 - h._bits))
    return h


def _advance(pk: PacketReader, nbits: int) -> None:
    """Skip `nbits` bits: ParserInvalidArgument unless whole bytes (BMv2), then
    PacketTooShort if the packet is shorter."""
    if nbits % 8:
        raise _ParserError(PARSER_INVALID_ARGUMENT)
    n = nbits // 8
    if pk.off + n > len(pk.data):
        raise _ParserError(PACKET_TOO_SHORT)
    pk.off += n


def _emit(out: bytearray, h: Any) -> None:
    """Deparse header `h` if it is valid (headers without varbit fields)."""
    if h._v:
        out += h._pack().to_bytes(h._bytes, "big")


def _emit_varbit(out: bytearray, h: Any) -> None:
    """Deparse header `h` if it is valid, its varbit field at its extracted length."""
    if h._v:
        out += _pack_varbit(h)


def _pack_varbit(h: Any) -> bytes:
    v = 0
    total = 0
    for i, (name, w) in enumerate(zip(h.__slots__, h._widths, strict=False)):
        w = h._vw if _is_varbit(h, i) else w
        v = (v << w) | (getattr(h, name) & ((1 << w) - 1))
        total += w
    return v.to_bytes(total // 8, "big")


def _to_signed(v: int, width: int) -> int:
    return v - (1 << width) if v >> (width - 1) else v


def _shl(v: int, n: int, width: int, signed: int) -> int:
    if n >= width:
        return 0
    r = (v << n) & ((1 << width) - 1)
    return _to_signed(r, width) if signed else r


def _mk(cls: Any, values: tuple[Any, ...], valid: bool = False) -> Any:
    obj = cls()
    for name, v in zip(cls._fields, values, strict=True):
        setattr(obj, field_py(name), v)
    if valid:
        obj._v = True
    return obj


def _assign(dst: Any, src: Any) -> None:
    """Overwrite header/struct/stack `dst` in place with (a copy of) `src`."""
    src = _kept(dst, src)
    for name in dst.__slots__:
        setattr(dst, name, getattr(src, name))


def _kept(old: Any, src: Any) -> Any:
    """The value `dst = src` leaves in a header or struct that held `old`, as BMv2 assigns:
    a header assigned an invalid header is only marked invalid and keeps its own bits
    (the headers inside a struct are assigned one by one)."""
    kind = getattr(src, "_kind", None)
    if kind == "header":
        if src._v:
            return src._copy()
        c = old._copy()
        c._v = False
        return c
    if kind != "struct":
        return src._copy()
    c = _new(type(src))
    for name in src.__slots__:
        v = getattr(src, name)
        if hasattr(v, "_kind"):
            v = _kept(getattr(old, name), v)
        elif hasattr(v, "_copy"):
            v = v._copy()
        elif isinstance(v, tuple):
            v = _copy_tuple(v)
        setattr(c, name, v)
    return c


def _copy_tuple(t: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(x._copy() if hasattr(x, "_copy") else x for x in t)


def _eq(a: Any, b: Any) -> bool:
    """P4 equality of any two values of the same type (headers: both invalid are equal)."""
    if isinstance(a, int | bool) or a is None:
        return a == b
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, _Stack):
        return all(_eq(x, y) for x, y in zip(a.h, b.h, strict=True))
    kind = getattr(a, "_kind", None)
    if kind == "header":
        if a._v != b._v:
            return False
        if not a._v:
            return True
    return all(_eq(getattr(a, field_py(f)), getattr(b, field_py(f))) for f in a._fields)


class _Stack:
    """A header stack: `h` holds the elements, `nxt` is the index of `.next`."""

    __slots__ = ("cls", "h", "nxt", "size")

    def __init__(self, cls: type, size: int) -> None:
        self.cls = cls
        self.size = size
        self.h = [cls() for _ in range(size)]
        self.nxt = 0

    @classmethod
    def of(cls, elem: type, size: int, items: list[Any]) -> _Stack:
        s = cls(elem, size)
        s.h = [x._copy() for x in items]
        return s

    def _copy(self) -> _Stack:
        c = _new(_Stack)
        c.cls = self.cls
        c.size = self.size
        c.h = [x._copy() for x in self.h]
        c.nxt = self.nxt
        return c

    def next_for_extract(self) -> Any:
        if self.nxt >= self.size:
            raise _ParserError(STACK_OUT_OF_BOUNDS)
        return self.h[self.nxt]

    def next(self) -> Any:
        return self.next_for_extract()

    def set_next(self, v: Any) -> None:
        """`stack.next = v` (in a parser): the element at the next index becomes `v`;
        the index does not move (only an extract moves it)."""
        self.next_for_extract()  # StackOutOfBounds when the stack is full
        self.h[self.nxt] = v

    def last(self) -> Any:
        if self.nxt == 0 or self.nxt > self.size:
            raise _ParserError(STACK_OUT_OF_BOUNDS)
        return self.h[self.nxt - 1]

    def at(self, i: int) -> Any:
        if not 0 <= i < self.size:
            # out of range, a signed index below 0 too: the last element (BMv2 1.15's
            # simple_switch aborts; a switch must go on)
            return self.h[self.size - 1]
        return self.h[i]

    def put(self, i: int, v: Any) -> None:
        if 0 <= i < self.size:
            self.h[i] = v

    def push_front(self, n: int) -> None:
        n = min(n, self.size)
        self.h = [self.cls() for _ in range(n)] + self.h[: self.size - n]
        self.nxt = min(self.nxt + n, self.size)

    def pop_front(self, n: int) -> None:
        n = min(n, self.size)
        self.h = self.h[n:] + [self.cls() for _ in range(n)]
        self.nxt = max(self.nxt - n, 0)
