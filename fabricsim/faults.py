"""Faults injected into a simulated run, and their ground truth in the run's JSON.

A fault is written `KIND:ARGS@T`:

    loss:leaf1-spine2,0.05@0        the leaf1 -> spine2 direction drops 5% of packets, silently
    slow:leaf1-spine2,0.25@0        both directions of the link serve at 25% of their rate
    blackhole:leaf3,10.0.2.0/24@0   leaf3 holds a route to that prefix whose action is drop
    flap:leaf1-spine2,100us@0       the link goes down and up every 100 us (down half of it;
                                    `100us/0.2`: down 20% of each period)
    wcmp-skew:leaf1-spine2,8@0      leaf1's groups give the member toward spine2 weight 8,
                                    the others 1 (a bad WCMP entry)
    pfc-storm:h3@0                  h3 pauses its switch port forever and takes in nothing
    hot-port:leaf1-spine2,0.8@0     leaf1's egress toward spine2 is busy with background
                                    traffic 80% of the time (a congested queue)

`T` is a time (`0`, `50us`, `1ms`; a bare number is microseconds). A blackhole is written
the way a faulty controller would write it: a route entry to `drop_route` in the switch's
route table, through the simulation's P4Runtime entity store, so the P4 pipeline drops it;
a WCMP skew the same way: the switch's group and member entries rewritten with the bad
weights. A flap is seen by the link's ends (loss of signal): after the simulation's
detection delay they clear the port's live bit in their groups (and set it again when the
link comes back), the fast local repair; the routes are not recomputed.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.topology.link_names import split_link_name

if TYPE_CHECKING:  # run.py hands these in; neither needs this module
    from controller.fabric.southbound import FabricController
    from controller.topology import Topology

    from .network import Network

__all__ = ["KINDS", "NODE_KINDS", "Fault", "FaultError", "apply_fault", "parse_fault"]

KINDS = ("loss", "slow", "blackhole", "flap", "wcmp-skew", "pfc-storm", "hot-port")
NODE_KINDS = ("blackhole", "pfc-storm")  # placed at one node, not on a link
HOT_PERIOD_NS = 10_000  # a hot port's background: busy `fraction` of every period
_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


class FaultError(ValueError):
    """A fault spec that cannot be parsed or does not fit the topology."""


@dataclass(slots=True, frozen=True)
class Fault:
    kind: str  # one of KINDS
    # (a, b) for a link (a -> b for loss and hot-port; at a for wcmp-skew), (switch,) for a
    # blackhole, (host,) for a pfc-storm
    place: tuple[str, ...]
    # loss or rate fraction ("0.05"), the blackholed prefix, a flap's "PERIOD_NS/DUTY",
    # the skewed member's weight, a hot port's busy fraction; "" for a pfc-storm
    arg: str
    at_ns: int = 0

    @property
    def fraction(self) -> float:
        return float(self.arg)

    def flap(self) -> tuple[int, float]:
        """A flap's period (ns) and the share of it the link is down."""
        period, _, duty = self.arg.partition("/")
        return int(period.removesuffix("ns")), float(duty or 0.5)

    def spec(self) -> str:
        arg = f",{self.arg}" if self.arg else ""
        return f"{self.kind}:{'-'.join(self.place)}{arg}@{self.at_ns}ns"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "place": list(self.place), "arg": self.arg, "at_ns": self.at_ns}

    def check(self, topo: Topology) -> None:
        """Refuse a fault whose link or switch is not in `topo`."""
        if self.kind == "blackhole":
            (sw,) = self.place
            if sw not in {s.name for s in topo.switches}:
                raise FaultError(f"fault {self.spec()}: {topo.name} has no switch {sw}")
            return
        if self.kind == "pfc-storm":
            (host,) = self.place
            if host not in {h.name for h in topo.hosts}:
                raise FaultError(f"fault {self.spec()}: {topo.name} has no host {host}")
            return
        a, b = self.place
        if topo.link_between(a, b) is None:
            raise FaultError(f"fault {self.spec()}: {topo.name} has no link between {a} and {b}")
        if self.kind in ("wcmp-skew", "hot-port") and a not in {s.name for s in topo.switches}:
            raise FaultError(f"fault {self.spec()}: {a} is not a switch")


_EXAMPLES = {
    "blackhole": "leaf3,10.0.2.0/24",
    "flap": "leaf1-spine2,100us",
    "wcmp-skew": "leaf1-spine2,8",
    "hot-port": "leaf1-spine2,0.8",
}


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
    if kind == "pfc-storm":
        if comma or not place:
            raise FaultError(f"fault {spec!r}: expected pfc-storm:HOST@TIME (e.g. pfc-storm:h3@0)")
        return Fault(kind, (place,), "", at)
    if not comma or not place or not arg:
        raise FaultError(
            f"fault {spec!r}: expected {kind}:{_EXAMPLES.get(kind, 'leaf1-spine2,0.05')}@TIME"
        )
    if kind == "blackhole":
        try:
            net = ipaddress.ip_network(arg, strict=True)
        except ValueError as e:
            raise FaultError(f"fault {spec!r}: prefix {arg!r}: {e}") from None
        return Fault(kind, (place,), str(net), at)
    ends = split_link_name(place, names)
    if ends is None:
        raise FaultError(f"fault {spec!r}: link {place!r}: expected A-B (e.g. leaf1-spine2)")
    if kind == "flap":
        period_text, _, duty_text = arg.partition("/")
        period = _time_ns(period_text, spec)
        try:
            duty = float(duty_text) if duty_text else 0.5
        except ValueError:
            duty = -1.0
        if period < 1_000:
            raise FaultError(f"fault {spec!r}: flap period {period_text!r}: at least 1us")
        if not 0 < duty < 1:
            raise FaultError(
                f"fault {spec!r}: flap duty {duty_text!r}: the share of the period down, above 0, below 1"
            )
        return Fault(kind, (ends[0], ends[1]), f"{period}ns/{duty:g}", at)
    if kind == "wcmp-skew":
        if not arg.isdigit() or int(arg) < 2:
            raise FaultError(
                f"fault {spec!r}: weight {arg!r}: a whole number, at least 2 (the others get 1)"
            )
        return Fault(kind, (ends[0], ends[1]), str(int(arg)), at)
    try:
        frac = float(arg)
    except ValueError:
        frac = -1.0
    if kind == "hot-port" and not 0 < frac < 1:
        raise FaultError(
            f"fault {spec!r}: busy {arg!r}: the share of the time the port is busy, above 0, below 1"
        )
    if kind == "loss" and not 0 < frac <= 1:
        raise FaultError(f"fault {spec!r}: loss {arg!r}: a fraction above 0, at most 1")
    if kind == "slow" and not 0 < frac < 1:
        raise FaultError(f"fault {spec!r}: rate {arg!r}: a fraction of the rate, above 0, below 1")
    return Fault(kind, (ends[0], ends[1]), f"{frac:g}", at)


def apply_fault(
    fault: Fault, net: Network, control: FabricController, detect_ns: int = 2_000
) -> None:
    """Make `fault` happen now in the simulated network."""
    if fault.kind == "loss":
        a, b = fault.place
        net.wires[(a, b)].loss = fault.fraction
    elif fault.kind == "slow":
        a, b = fault.place
        for x, y in ((a, b), (b, a)):
            w = net.wires[(x, y)]
            w.rate_bps = w.rate_bps * fault.fraction
            node = net.switches.get(x)
            if node is not None:
                node.sw.set_port_rate(w.a_port, w.rate_bps)
    elif fault.kind == "blackhole":
        control.blackhole(fault.place[0], fault.arg)
    elif fault.kind == "wcmp-skew":
        control.skew(fault.place[0], fault.place[1], int(fault.arg))
    elif fault.kind == "pfc-storm":
        net.hosts[fault.place[0]].start_storm()
    elif fault.kind == "hot-port":
        _hot_port(fault, net)
    else:
        _flap(fault, net, control, detect_ns)


def _flap(fault: Fault, net: Network, control: FabricController, detect_ns: int) -> None:
    """Down now for duty x period, up for the rest, again every period until the run ends;
    each end notices `detect_ns` after a change and repairs locally (live bitmaps)."""
    a, b = fault.place
    period, duty = fault.flap()
    loop = net.loop

    def change(up: bool) -> None:
        net.set_link(a, b, up)
        now = loop.now()
        notice = control.port_up if up else control.port_down

        def noticed(_: Any) -> None:
            notice(a, b)

        loop.at(now + detect_ns, noticed, None)
        loop.at(
            now + (period - int(duty * period) if up else int(duty * period)),
            lambda _x: change(not up),
            None,
        )

    change(False)


def _hot_port(fault: Fault, net: Network) -> None:
    """Background traffic the simulation does not carry holds the egress of a toward b
    `fraction` of every HOT_PERIOD_NS: the port's server is busy that long, so the packets
    arriving meanwhile queue behind it."""
    a, b = fault.place
    node = net.switches[a]
    port = net.wires[(a, b)].a_port
    busy = int(fault.fraction * HOT_PERIOD_NS)
    loop = net.loop

    def burst(_: Any) -> None:
        now = loop.now()
        node.occupy(port, now + busy)
        loop.at(now + HOT_PERIOD_NS, burst, None)

    burst(None)
