"""Mutated packets for differential runs: the control commands of an STF test stay, and
after each of its packets come `per_packet` variants of it.

Mutations (one or two per variant, chosen by a seeded `random.Random`): flip a bit, set a
byte to a random value, cut the packet short, append random bytes, duplicate a span,
replace the packet by random bytes of a similar length. They reach the error paths a
hand-written STF rarely does (too-short packets, bad select values, header-stack and
varbit lengths, checksum mismatches).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from softswitch.stf import parser as P

__all__ = ["fuzz_commands", "mutate"]


def _flip(b: bytearray, rng: random.Random) -> None:
    if b:
        i = rng.randrange(len(b) * 8)
        b[i // 8] ^= 0x80 >> (i % 8)


def _set_byte(b: bytearray, rng: random.Random) -> None:
    if b:
        b[rng.randrange(len(b))] = rng.randrange(256)


def _cut(b: bytearray, rng: random.Random) -> None:
    if len(b) > 1:
        del b[rng.randrange(1, len(b)) :]


def _extend(b: bytearray, rng: random.Random) -> None:
    b.extend(rng.randbytes(rng.randrange(1, 33)))


def _repeat(b: bytearray, rng: random.Random) -> None:
    if b:
        i = rng.randrange(len(b))
        j = rng.randrange(i, min(len(b), i + 16)) + 1
        b[j:j] = b[i:j]


def _random(b: bytearray, rng: random.Random) -> None:
    n = max(1, len(b) + rng.randrange(-8, 9))
    b[:] = rng.randbytes(n)


MUTATIONS: tuple[Callable[[bytearray, random.Random], None], ...] = (
    _flip, _flip, _set_byte, _set_byte, _cut, _extend, _repeat, _random,
)  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A variant of `data` (never empty: BMv2 and softswitch treat 0-byte input apart)."""
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 2))):
        rng.choice(MUTATIONS)(b, rng)
    return bytes(b) or b"\x00"


def fuzz_commands(
    commands: Sequence[P.Command], per_packet: int, rng: random.Random
) -> tuple[P.Command, ...]:
    """`commands` with `per_packet` mutated copies after each valid packet."""
    out: list[P.Command] = []
    for c in commands:
        out.append(c)
        if isinstance(c, P.Packet) and len(c.data) % 2 == 0 and c.data:
            data = bytes.fromhex(c.data)
            for _ in range(per_packet):
                out.append(P.Packet(c.port, mutate(data, rng).hex(), c.line))
    return tuple(out)
