"""Byte layouts of headers for Python's `struct` module.

A header whose fields fall into byte-aligned groups of at most 64 bits is read with one
`Struct.unpack_from` and written with one `Struct.pack`: the parser and the deparser then
work on small ints instead of shifting one int as wide as the whole header. A group is
either one field whose width is whole bytes (a wide one, such as a 48-bit MAC address or
a 128-bit IPv6 address, spans several struct items) or consecutive narrow fields that
together fill whole bytes (IPv4's version and IHL); the items of a group are 8, 4, 2 or
1 bytes wide.
"""

from __future__ import annotations

from dataclasses import dataclass

ITEM_FORMATS = ((8, "Q"), (4, "I"), (2, "H"), (1, "B"))


@dataclass(slots=True, frozen=True)
class Group:
    """Fields `first` .. `first + len(widths) - 1` read as one value of `nbytes` bytes,
    made of the struct items `items` (their byte widths, most significant first)."""

    first: int
    widths: tuple[int, ...]
    items: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return sum(self.items)


@dataclass(slots=True, frozen=True)
class Layout:
    fmt: str  # the struct format, big-endian
    groups: tuple[Group, ...]


def _items(nbytes: int) -> tuple[int, ...]:
    out: list[int] = []
    left = nbytes
    for size, _ in ITEM_FORMATS:
        while left >= size:
            out.append(size)
            left -= size
    return tuple(out)


def header_layout(widths: list[int]) -> Layout | None:
    """The struct layout of a header with these field widths (bits), or None when a run
    of narrow fields does not end on a byte boundary within 64 bits."""
    groups: list[Group] = []
    i = 0
    while i < len(widths):
        if widths[i] % 8 == 0:
            groups.append(Group(i, (widths[i],), _items(widths[i] // 8)))
            i += 1
            continue
        j, total = i, 0
        while j < len(widths) and (total == 0 or total % 8):
            total += widths[j]
            j += 1
        if total % 8 or total > 64:
            return None
        groups.append(Group(i, tuple(widths[i:j]), _items(total // 8)))
        i = j
    fmt = ">" + "".join(dict((s, f) for s, f in ITEM_FORMATS)[n] for g in groups for n in g.items)
    return Layout(fmt, tuple(groups))


__all__ = ["Group", "Layout", "header_layout"]
