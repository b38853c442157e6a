"""Table lookups specialised for their entries (a tuple-space search for masked keys, a
counting lookup for direct counters) give the entry a linear scan in priority order gives."""

from __future__ import annotations

import random

from softswitch.engine.matches import Exact, Lpm, Optional, Range, Ternary, Wildcard
from tests.p4util import program, switch

HDR = "header h_t { bit<8> k; bit<8> r; bit<8> s; }"


def _table_program(kinds: tuple[str, str, str], counter: bool = False) -> str:
    keys = " ".join(f"hdr.h.{f}: {k};" for f, k in zip("krs", kinds, strict=True))
    dc = "counters = c;" if counter else ""
    return program(
        decls=HDR,
        ingress=f"""
        {"direct_counter(CounterType.packets_and_bytes) c;" if counter else ""}
        action set_r(bit<8> v) {{ hdr.h.r = v; }}
        table t {{ key = {{ {keys} }} actions = {{ set_r; NoAction; }} {dc} }}
        apply {{ t.apply(); }}
        """,
    )


def _random_match(rng: random.Random, kind: str):  # type: ignore[no-untyped-def]
    if kind == "ternary":
        return rng.choice([Wildcard(), Ternary(rng.randrange(256), rng.choice([0xF0, 0x0F, 0xFF]))])
    if kind == "lpm":
        return Lpm(rng.randrange(256), rng.choice([0, 2, 4, 8]))
    if kind == "optional":
        return rng.choice([Wildcard(), Optional(rng.randrange(4))])
    return Exact(rng.randrange(4))


def test_masked_lookup_agrees_with_a_priority_scan() -> None:
    rng = random.Random(7)
    kinds = ("ternary", "lpm", "optional")
    sw = switch(_table_program(kinds))
    t = sw.tables["I.t"]
    added = 0
    while added < 60:
        try:
            # few distinct priorities: equal priorities are decided by insertion order
            t.add(
                [_random_match(rng, k) for k in kinds],
                "I.set_r",
                (added,),
                priority=rng.randrange(1, 5),
            )
            added += 1
        except Exception:  # noqa: BLE001 - a duplicate entry: draw again
            continue
    for _ in range(2000):
        key = (rng.randrange(256), rng.randrange(256), rng.randrange(4))
        expect = t._scan(key)
        got = t.hot(key)
        assert got[0] == (expect is not None)
        assert got[4] is (expect if expect is not None else t.default)
    # packets see the same: entry i writes i into r
    key = (0x5A, 0x33, 1)
    e = t._scan(key)
    out = sw.process(0, bytes(key))[0][1]
    assert out[1] == (e.args[0] if e is not None else key[1])


def test_a_range_key_still_matches() -> None:
    sw = switch(_table_program(("range", "exact", "exact")))
    t = sw.tables["I.t"]
    t.add([Range(10, 20), Exact(1), Exact(2)], "I.set_r", (3,), priority=1)
    t.add([Range(15, 30), Exact(1), Exact(2)], "I.set_r", (4,), priority=2)
    assert sw.process(0, bytes([12, 1, 2]))[0][1][1] == 3
    assert sw.process(0, bytes([16, 1, 2]))[0][1][1] == 4
    assert sw.process(0, bytes([31, 1, 2]))[0][1][1] == 1


def test_direct_counter_counts_every_hit_and_no_miss() -> None:
    sw = switch(_table_program(("exact", "exact", "ternary"), counter=True))
    t = sw.tables["I.t"]
    e = t.add([Exact(1), Exact(2), Ternary(0x30, 0xF0)], "I.set_r", (9,), priority=1)
    for s in (0x31, 0x3F, 0x40, 0x30):
        sw.process(0, bytes([1, 2, s]))
    assert (e.packets, e.bytes) == (3, 9)
    assert sw.process(0, bytes([1, 2, 0x35]))[0][1][1] == 9
    t.delete([Exact(1), Exact(2), Ternary(0x30, 0xF0)], priority=1)
    assert sw.process(0, bytes([1, 2, 0x35]))[0][1][1] == 2
