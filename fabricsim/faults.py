"""Faults injected into a simulated run, and their ground truth in the run's JSON.

A fault is written `KIND:ARGS@T`:

    loss:leaf1-spine2,0.05@0        the leaf1 -> spine2 direction drops 5% of packets, silently
    slow:leaf1-spine2,0.25@0        both directions of the link serve at 25% of their rate
    blackhole:leaf3,10.0.2.0/24@0   leaf3 holds a route to that prefix whose action is drop

`T` is a time (`0`, `50us`, `1ms`; a bare number is microseconds). A blackhole is written
the way a faulty controller would write it: a route entry to `drop_route` in the switch's
route table, through the simulation's P4Runtime entity store, so the P4 pipeline drops it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "Fault", "FaultError", "parse_fault"]

KINDS = ("loss", "slow", "blackhole")
_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


class FaultError(ValueError):
    """A fault spec that cannot be parsed or does not fit the topology."""


@dataclass(slots=True, frozen=True)
class Fault:
    kind: str  # one of KINDS
    place: tuple[str, ...]  # (a, b) for a link (a -> b for loss), (switch,) for a blackhole
    arg: str  # loss or rate fraction ("0.05"), or the blackholed prefix
    at_ns: int = 0

    @property
    def fraction(self) -> float:
        return float(self.arg)

    def spec(self) -> str:
        return f"{self.kind}:{'-'.join(self.place)},{self.arg}@{self.at_ns}ns"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "place": list(self.place), "arg": self.arg, "at_ns": self.at_ns}

    def check(self, topo: Any) -> None:
        """Refuse a fault whose link or switch is not in `topo`."""
        if self.kind == "blackhole":
            (sw,) = self.place
            if sw not in {s.name for s in topo.switches}:
                raise FaultError(f"fault {self.spec()}: {topo.name} has no switch {sw}")
            return
        a, b = self.place
        if topo.link_between(a, b) is None:
            raise FaultError(f"fault {self.spec()}: {topo.name} has no link between {a} and {b}")


def _time_ns(text: str, spec: str) -> int:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)?\s*", text)
    if not m:
        raise FaultError(f"fault {spec!r}: time {text!r}: expected e.g. 0, 50us or 1ms")
    return int(float(m[1]) * _UNITS[m[2] or "us"])


def parse_fault(spec: str, names: set[str] | None = None) -> Fault:
    """`KIND:ARGS@T` -> Fault (FaultError saying what is wrong). `names`: the topology's
    node names, which tell where A-B splits when the names hold hyphens themselves
    (pod1-edge0-pod1-agg0)."""
    kind, sep, rest = spec.partition(":")
    kind = kind.strip()
    if not sep:
        raise FaultError(f"fault {spec!r}: expected KIND:ARGS@TIME, KIND one of {', '.join(KINDS)}")
    if kind not in KINDS:
        raise FaultError(f"fault {spec!r}: kind {kind!r} is not one of {', '.join(KINDS)}")
    body, at_sep, when = rest.rpartition("@")
    if not at_sep:
        raise FaultError(f"fault {spec!r}: no start time (end it with @TIME, e.g. @0)")
    at = _time_ns(when, spec)
    place, comma, arg = body.partition(",")
    place, arg = place.strip(), arg.strip()
    if not comma or not place or not arg:
        example = "leaf3,10.0.2.0/24" if kind == "blackhole" else "leaf1-spine2,0.05"
        raise FaultError(f"fault {spec!r}: expected {kind}:{example}@TIME")
    if kind == "blackhole":
        try:
            net = ipaddress.ip_network(arg, strict=True)
        except ValueError as e:
            raise FaultError(f"fault {spec!r}: prefix {arg!r}: {e}") from None
        return Fault(kind, (place,), str(net), at)
    ends = place.split("-")
    if len(ends) > 2 and names is not None:
        splits = [
            ("-".join(ends[:i]), "-".join(ends[i:]))
            for i in range(1, len(ends))
            if "-".join(ends[:i]) in names and "-".join(ends[i:]) in names
        ]
        if len(splits) == 1:
            ends = list(splits[0])
    if len(ends) != 2 or not all(ends):
        raise FaultError(f"fault {spec!r}: link {place!r}: expected A-B (e.g. leaf1-spine2)")
    try:
        frac = float(arg)
    except ValueError:
        frac = -1.0
    if kind == "loss" and not 0 < frac <= 1:
        raise FaultError(f"fault {spec!r}: loss {arg!r}: a fraction above 0, at most 1")
    if kind == "slow" and not 0 < frac < 1:
        raise FaultError(f"fault {spec!r}: rate {arg!r}: a fraction of the rate, above 0, below 1")
    return Fault(kind, (ends[0], ends[1]), f"{frac:g}", at)


def apply_fault(fault: Fault, net: Any, control: Any) -> None:
    """Make `fault` happen now in the simulated network."""
    if fault.kind == "loss":
        net.wires[fault.place].loss = fault.fraction
    elif fault.kind == "slow":
        a, b = fault.place
        for x, y in ((a, b), (b, a)):
            w = net.wires[(x, y)]
            w.rate_bps = w.rate_bps * fault.fraction
            node = net.switches.get(x)
            if node is not None:
                node.sw.tm.set_rate(port=w.a_port, bps=w.rate_bps)
    else:
        control.blackhole(fault.place[0], fault.arg)
