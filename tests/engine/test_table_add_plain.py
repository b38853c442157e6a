"""`Table.add_plain` (the P4Runtime layer's bulk insert) against `Table.add`: the same
entries, the same errors (a duplicate, a full table) and the same lookups, for each kind of
table index (all exact, one lpm field, exact plus lpm, masked keys in priority order)."""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable
from functools import partial

import pytest

from softswitch.engine.errors import (
    AlreadyExists,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    SwitchError,
)
from softswitch.engine.matches import Exact, Lpm, Match, Ternary, Wildcard
from softswitch.engine.tables import Table
from tests.p4util import program, switch

HDR = "header h_t { bit<8> a; bit<16> b; bit<8> r; }"
SHAPES = {
    "exact": ("exact",),
    "lpm": ("lpm",),
    "exact_lpm": ("exact", "lpm"),
    "ternary": ("exact", "ternary"),
}


def _program(kinds: tuple[str, ...]) -> str:
    keys = " ".join(f"hdr.h.{f}: {k};" for f, k in zip("ab", kinds, strict=False))
    return program(
        decls=HDR,
        ingress=f"""
        action set_r(bit<8> v) {{ hdr.h.r = v; }}
        table t {{ key = {{ {keys} }} actions = {{ set_r; NoAction; }} size = 40; }}
        apply {{ t.apply(); }}
        """,
    )


def _match(rng: random.Random, kind: str, width: int) -> Match:
    """A canonical match (as the P4Runtime layer hands them over)."""
    if kind == "exact":
        return Exact(rng.randrange(64))
    if kind == "lpm":
        plen = rng.choice((0, 2, 4, width))
        if plen == 0:
            return Wildcard()
        return Lpm(rng.randrange(1 << width) & ~((1 << (width - plen)) - 1), plen)
    mask = rng.choice((0xF000, 0x00FF, 0xFFFF))
    return Ternary(rng.randrange(1 << 16) & mask, mask)


def _outcome(add: Callable[..., object], *args: object, **kw: object) -> tuple[type, str] | None:
    """None if `add(*args, **kw)` succeeded, else its error's type and message."""
    try:
        add(*args, **kw)
    except SwitchError as e:
        return type(e), str(e)
    return None


WIDTHS = (8, 16)


def _twin_tables(shape: str) -> tuple[tuple[str, ...], Table, Table, bool, random.Random]:
    """The shape's match kinds, the table `I.t` of two switches of its program, whether
    it has priorities, and a random source seeded by the shape."""
    kinds = SHAPES[shape]
    source = _program(kinds)
    ta = switch(source).tables["I.t"]
    tb = switch(source).tables["I.t"]
    return kinds, ta, tb, ta.spec.has_priority, random.Random(shape)


def _assert_same_lookups(ta: Table, tb: Table, kinds: tuple[str, ...], rng: random.Random) -> None:
    """500 random keys hit the same entries (hit, action, arguments, entry) in both."""
    for _ in range(500):
        key = (
            rng.randrange(64) if kinds[0] == "exact" else rng.randrange(256),
            rng.randrange(1 << 16),
        )
        ra, rb = ta.hot(key[: len(kinds)]), tb.hot(key[: len(kinds)])
        assert (ra[0], ra[1], ra[3]) == (rb[0], rb[1], rb[3])  # hit, action, arguments
        assert (ra[4].seq if ra[0] else None) == (rb[4].seq if rb[0] else None)


def _random_key(
    rng: random.Random, kinds: tuple[str, ...], prio: bool
) -> tuple[tuple[Match, ...], int]:
    """Random matches for the key fields, and a priority where the table has them."""
    matches = tuple(_match(rng, k, w) for k, w in zip(kinds, WIDTHS, strict=False))
    return matches, rng.randrange(1, 4) if prio else 0


def _same_outcome(
    errors: dict[type, int], a: Callable[[], object], b: Callable[[], object]
) -> None:
    """Both calls succeed, or both fail with the same error, counted by its type in
    `errors`."""
    outcome = [_outcome(a), _outcome(b)]
    assert outcome[0] == outcome[1]
    if outcome[0] is not None:
        errors[outcome[0][0]] += 1  # type: ignore[index]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_add_plain_gives_what_add_gives(shape: str) -> None:
    kinds, ta, tb, prio, rng = _twin_tables(shape)
    errors = {AlreadyExists: 0, ResourceExhausted: 0}
    last: tuple[tuple[Match, ...], int] = ((), 0)
    for n in range(120):  # 40 places: duplicates early, a full table later
        matches, priority = _random_key(rng, kinds, prio)
        if n % 10 == 9:
            matches, priority = last  # the same entry again
        last = matches, priority
        action, args = rng.choice((("I.set_r", (n % 256,)), ("NoAction", ())))
        _same_outcome(
            errors,
            partial(ta.add, matches, action, args, priority, checked=True, refresh=False),
            partial(tb.add_plain, matches, priority, action, args),
        )
    assert errors[AlreadyExists] and errors[ResourceExhausted]
    ta.refresh()
    tb.refresh()
    same = [(e.matches, e.priority, e.action, e.args, e.seq) for e in ta.entries.values()]
    assert same == [(e.matches, e.priority, e.action, e.args, e.seq) for e in tb.entries.values()]
    assert len(same) == 40
    _assert_same_lookups(ta, tb, kinds, rng)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_delete_plain_gives_what_delete_gives(shape: str) -> None:
    """The same entries removed, the same errors (no such entry, a constant entry), the
    same lookups afterwards."""
    kinds, ta, tb, prio, rng = _twin_tables(shape)
    placed: list[tuple[tuple[Match, ...], int]] = []
    for n in range(60):
        matches, priority = _random_key(rng, kinds, prio)
        const = n % 4 == 3
        outcome = [
            _outcome(t.add, matches, "I.set_r", (n,), priority, checked=True, const=const)
            for t in (ta, tb)
        ]
        assert outcome[0] == outcome[1]
        if outcome[0] is None:
            placed.append((matches, priority))
    errors = {NotFound: 0, PermissionDenied: 0}
    # half of what was placed, some of it twice, and keys that may never have been placed
    doomed = rng.sample(placed, len(placed) // 2)
    doomed += doomed[:5] + [_random_key(rng, kinds, prio) for _ in range(20)]
    rng.shuffle(doomed)
    for matches, priority in doomed:
        _same_outcome(
            errors,
            partial(ta.delete, matches, priority, checked=True, refresh=False),
            partial(tb.delete_plain, matches, priority),
        )
    assert errors[NotFound] and errors[PermissionDenied]
    ta.refresh()
    tb.refresh()
    same = [(e.matches, e.priority, e.seq) for e in ta.entries.values()]
    assert same == [(e.matches, e.priority, e.seq) for e in tb.entries.values()]
    assert 0 < len(same) < len(placed)
    _assert_same_lookups(ta, tb, kinds, rng)


@pytest.mark.parametrize("how", ["add_plain", "add", "delete_plain"])
def test_a_deleted_entry_is_freed_without_the_collector(how: str) -> None:
    """An entry's result refers back to the entry; delete drops it, so that the entry goes
    as soon as the last reference to it does (no cycle left for the garbage collector,
    which may be held off or never see it: a frozen heap)."""
    t = switch(_program(("lpm",))).tables["I.t"]
    matches = (Lpm(0x40, 2),)
    if how == "add":
        t.add(matches, "I.set_r", (7,), checked=True)
    else:
        t.add_plain(matches, 0, "I.set_r", (7,))
    assert t.lookup((0x41,))[3] == (7,)
    gc.disable()
    try:
        if how == "delete_plain":
            e = t.delete_plain(matches, 0)
            t.refresh()
        else:
            e = t.delete(matches, checked=True)
        assert e.result is None
        # only `e` and getrefcount's argument refer to it: nothing else keeps it alive
        assert sys.getrefcount(e) == 2
    finally:
        gc.enable()
    assert t.lookup((0x41,))[3] == ()  # the default (NoAction)
