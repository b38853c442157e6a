"""Faults injected into a running fabric (`sprayfabric fault inject|clear|list`).

The kinds and their syntax are fabricsim's `--fault` (fabricsim/faults.py), with the time
left out or `@0` (a live fault starts when it is injected):

| spec | how the live fabric gets it |
| --- | --- |
| `loss:leaf1-spine2,0.05` | leaf1's UDP cable end toward spine2 drops 5% of the frames it sends, silently |
| `slow:leaf1-spine2,0.25` | both ends of the cable serialise frames at 25% of `LINK_PPS` (or of the fabric's `--queue-rate`): each frame arrives 1/rate s after the one before |
| `flap:leaf1-spine2,2s/0.5` | the cable goes down and up every 2 s, down half of each period (both directions; no loss-of-signal: the routes stay) |
| `blackhole:spine1,10.0.2.0/24` | spine1 gets a route for the prefix whose action is `drop_route`, written over P4Runtime (a MODIFY of the route when there is one) |
| `wcmp-skew:leaf1-spine2,8` | leaf1's groups with a member toward spine2 are rewritten over P4Runtime with that member at weight 8, the others at 1 |
| `pfc-storm:h3` | h3 pauses its switch's port toward it and never lifts the pause: that cable end holds every frame for h3 (at most `softswitch.impair.MAX_BACKLOG`, then tail drop) and counts the time paused; released when cleared |
| `hot-port:leaf1-spine2,0.8` | background traffic the fabric does not carry holds leaf1's port toward spine2 for 80% of every `HOT_PERIOD_S` (a burst at each period's start, served at the cable's rate): frames sent meanwhile wait, and the port's queue counters count the burst |

Cable faults are written to the run's impairment file (`impair.json`), which every
softswitch process of the fabric watches (`softswitch --impair-file`, softswitch/impair.py)
and whose ports' counters each process writes to `port-stats/` (`--port-stats-file`: drops,
pause time, carrier transitions, queue; what the prober puts in a probe run's `ports`);
entry faults are an overlay on the fabric's desired state, so the reconciler writes
exactly the bad entries, keeps them through switch restarts and route changes, and
writes back what the desired state says when the fault is cleared.

Every fault is recorded, with what it changed (the cable ends and their settings; the
entries before and after, as P4Runtime text), in `faults.json` in the run's directory:
the ground truth a test or a report compares the doctor's verdict with.
"""

from __future__ import annotations

import ipaddress
import json
import re
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..entities import Entity
from ..topology.link_names import split_link_name
from .reconcile import identity

__all__ = [
    "KINDS",
    "LINK_PPS",
    "LiveFault",
    "LiveFaultError",
    "LiveFaults",
    "parse_live_fault",
]

KINDS = ("loss", "slow", "blackhole", "flap", "wcmp-skew", "pfc-storm", "hot-port")
CABLE_KINDS = ("loss", "slow", "flap", "pfc-storm", "hot-port")
LINK_PPS = 1000.0  # the nominal rate of a softswitch cable, frames/s, that `slow` divides
MIN_FLAP_S = 0.1
HOT_PERIOD_S = 0.1  # a hot port's background burst comes every this often
APPLY_S = 0.3  # the switches re-read the impairment file every 0.1 s (softswitch.impair)
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class LiveFaultError(ValueError):
    """A fault spec that cannot be parsed, does not fit the fabric, or cannot be undone."""


@dataclass(frozen=True, slots=True)
class LiveFault:
    kind: str
    place: tuple[str, ...]  # (a, b) for a link (a -> b for loss; at a for wcmp-skew), (switch,)
    arg: str  # fraction, prefix, "PERIOD_S/DUTY" or weight

    def spec(self) -> str:
        return f"{self.kind}:{'-'.join(self.place)}" + (f",{self.arg}" if self.arg else "")


def _seconds(text: str, spec: str) -> float:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)?\s*", text)
    if not m:
        raise LiveFaultError(f"fault {spec!r}: time {text!r}: expected e.g. 2s or 500ms")
    return float(m[1]) * _UNITS[m[2] or "us"]


def _split_link(place: str, names: set[str], spec: str) -> tuple[str, str]:
    ends = split_link_name(place, names)
    if ends is None:
        raise LiveFaultError(f"fault {spec!r}: link {place!r}: expected A-B (e.g. leaf1-spine2)")
    return ends


def parse_live_fault(spec: str, topo: Any) -> LiveFault:
    """`KIND:ARGS[@0]` -> LiveFault, checked against `topo` (LiveFaultError saying what is
    wrong)."""
    kind, sep, rest = spec.partition(":")
    kind = kind.strip()
    if not sep or kind not in KINDS:
        raise LiveFaultError(
            f"fault {spec!r}: expected KIND:ARGS with KIND one of {', '.join(KINDS)}"
        )
    body, at, when = rest.rpartition("@")
    if at:
        if _seconds(when, spec) != 0:
            raise LiveFaultError(f"fault {spec!r}: a live fault starts now: leave out @TIME")
        rest = body
    place, comma, arg = rest.partition(",")
    place, arg = place.strip(), arg.strip()
    examples = {
        "loss": "leaf1-spine2,0.05",
        "slow": "leaf1-spine2,0.25",
        "flap": "leaf1-spine2,2s/0.5",
        "blackhole": "spine1,10.0.2.0/24",
        "wcmp-skew": "leaf1-spine2,8",
        "pfc-storm": "h3",
        "hot-port": "leaf1-spine2,0.8",
    }
    if kind == "pfc-storm":
        hosts = {h.name for h in topo.hosts}
        if comma or place not in hosts:
            raise LiveFaultError(
                f"fault {spec!r}: expected pfc-storm:HOST (e.g. pfc-storm:{examples[kind]}), "
                f"a host of {topo.name}"
            )
        return LiveFault(kind, (place,), "")
    if not comma or not place or not arg:
        raise LiveFaultError(f"fault {spec!r}: expected {kind}:{examples[kind]}")
    switches = {s.name for s in topo.switches}
    if kind == "blackhole":
        if place not in switches:
            raise LiveFaultError(f"fault {spec!r}: {topo.name} has no switch {place}")
        try:
            net = ipaddress.ip_network(arg, strict=True)
        except ValueError as e:
            raise LiveFaultError(f"fault {spec!r}: prefix {arg!r}: {e}") from None
        return LiveFault(kind, (place,), str(net))
    names = switches | {h.name for h in topo.hosts}
    a, b = _split_link(place, names, spec)
    if topo.link_between(a, b) is None:
        raise LiveFaultError(f"fault {spec!r}: {topo.name} has no link between {a} and {b}")
    if kind == "flap":
        period_text, _, duty_text = arg.partition("/")
        period = _seconds(period_text, spec)
        try:
            duty = float(duty_text) if duty_text else 0.5
        except ValueError:
            duty = -1.0
        if period < MIN_FLAP_S:
            raise LiveFaultError(
                f"fault {spec!r}: flap period {period_text!r}: at least {MIN_FLAP_S:g} s live"
            )
        if not 0 < duty < 1:
            raise LiveFaultError(
                f"fault {spec!r}: flap duty {duty_text!r}: the share of the period down, "
                "above 0, below 1"
            )
        return LiveFault(kind, (a, b), f"{period:g}s/{duty:g}")
    if kind in ("wcmp-skew", "hot-port"):
        if a not in switches:
            raise LiveFaultError(f"fault {spec!r}: {a} is not a switch")
    if kind == "wcmp-skew":
        if not arg.isdigit() or int(arg) < 2:
            raise LiveFaultError(
                f"fault {spec!r}: weight {arg!r}: a whole number, at least 2 (the others get 1)"
            )
        return LiveFault(kind, (a, b), str(int(arg)))
    try:
        frac = float(arg)
    except ValueError:
        frac = -1.0
    if kind == "loss" and not 0 < frac <= 1:
        raise LiveFaultError(f"fault {spec!r}: loss {arg!r}: a fraction above 0, at most 1")
    if kind == "hot-port" and not 0 < frac < 1:
        raise LiveFaultError(
            f"fault {spec!r}: busy {arg!r}: the share of the time the port is busy, above 0, "
            "below 1"
        )
    if kind == "slow" and not 0 < frac < 1:
        raise LiveFaultError(
            f"fault {spec!r}: rate {arg!r}: a fraction of the rate, above 0, below 1"
        )
    return LiveFault(kind, (a, b), f"{frac:g}")


@dataclass(slots=True)
class _Active:
    id: int
    fault: LiveFault
    since: float
    # cable faults: switch -> port -> impairment settings
    impair: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    # entry faults: switch -> (identities taken out of the desired state, entities put in)
    overlay: dict[str, tuple[set[Any], list[Entity]]] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


class LiveFaults:
    """The faults of one running fabric (`FabricRun.faults`)."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.active: dict[int, _Active] = {}
        self.next_id = 1
        self.lock = threading.RLock()
        self.state_file: Path = run.workdir / "faults.json"
        self.impair_file: Path = run.workdir / "impair.json"

    # ------------------------------------------------------------ files
    def reset(self) -> None:
        """A new run: no fault yet (what a previous run left is gone with its switches)."""
        with self.lock:
            self.active.clear()
            self._write_impair()
            self._save()

    def _save(self) -> None:
        data = {"faults": [a.record for a in self.active.values()]}
        _write_json(self.state_file, data)

    def _write_impair(self) -> None:
        """Every active cable fault's settings, by device id and port, merged."""
        wiring = self.run.wiring
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for a in self.active.values():
            for sw, ports in a.impair.items():
                dev = str(wiring.switches[sw].device_id)
                for port, settings in ports.items():
                    out.setdefault(dev, {}).setdefault(str(port), {}).update(settings)
        _write_json(self.impair_file, out)

    # ------------------------------------------------------------ requests
    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """The control endpoint's `POST /api/fault`: `{"op": "inject", "spec": S}`,
        `{"op": "clear", "id": N}` or `{"op": "clear", "all": true}`."""
        op = body.get("op")
        if op == "inject":
            return self.inject(str(body.get("spec", "")))
        if op == "clear":
            if body.get("all"):
                return {"cleared": [self.clear(i)["id"] for i in sorted(self.active)]}
            if body.get("id") is None:
                raise LiveFaultError("clear: give a fault id, or all")
            return self.clear(int(body["id"]))
        raise LiveFaultError(f"fault request: op {op!r} is not inject or clear")

    def listing(self) -> dict[str, Any]:
        with self.lock:
            return {"faults": [a.record for a in self.active.values()]}

    def inject(self, spec: str) -> dict[str, Any]:
        run = self.run
        fault = parse_live_fault(spec, run.topology)
        with run.lock, self.lock:
            act = _Active(self.next_id, fault, time.time())
            if fault.kind in CABLE_KINDS:
                self._cable(act)
            elif fault.kind == "blackhole":
                self._blackhole(act)
            else:
                self._skew(act)
            self.next_id += 1
            self.active[act.id] = act
            act.record = {
                "id": act.id,
                "kind": fault.kind,
                "place": list(fault.place),
                "arg": fault.arg,
                "spec": fault.spec(),
                "since": round(act.since, 3),
            }
            try:
                if act.impair:
                    self._write_impair()
                    time.sleep(APPLY_S)  # every switch process has read the file
                    act.record["cables"] = {
                        sw: {str(p): s for p, s in ports.items()}
                        for sw, ports in act.impair.items()
                    }
                if act.overlay:
                    act.record["entries"] = self._entries(act, run.reprogram)
            except Exception:
                del self.active[act.id]
                self._write_impair()
                run.reprogram()
                raise
            self._save()
            return act.record

    def clear(self, fault_id: int) -> dict[str, Any]:
        run = self.run
        with run.lock, self.lock:
            act = self.active.pop(fault_id, None)
            if act is None:
                have = ", ".join(str(i) for i in sorted(self.active)) or "none"
                raise LiveFaultError(f"no active fault {fault_id} (active: {have})")
            out: dict[str, Any] = {"id": fault_id, "spec": act.fault.spec()}
            if act.impair:
                self._write_impair()
                time.sleep(APPLY_S)
                out["cables"] = sorted(act.impair)
            if act.overlay:
                r = run.reprogram()
                out["restored"] = {k: r[k] for k in ("inserted", "modified", "deleted", "writes")}
            self._save()
            return out

    # ------------------------------------------------------------ the desired state
    def overlay(self, desired: dict[str, list[Entity]]) -> dict[str, list[Entity]]:
        """`desired` with every active entry fault's entities in place of the ones they
        replace (FabricRun.reprogram applies this to what desired_state computes)."""
        with self.lock:
            acts = [a for a in self.active.values() if a.overlay]
        if not acts:
            return desired
        out = dict(desired)
        for a in acts:
            for sw, (gone, new) in a.overlay.items():
                if sw in out:
                    out[sw] = [e for e in out[sw] if identity(e) not in gone] + list(new)
        return out

    # ------------------------------------------------------------ kinds
    def _check_cables(self) -> None:
        if not self.run.cables_impairable():
            raise LiveFaultError(
                "loss, slow, flap, pfc-storm and hot-port act on softswitch's UDP cables; this "
                "fabric's switches "
                f"run on {self.run.target} interfaces (blackhole and wcmp-skew work here)"
            )

    def _cable(self, act: _Active) -> None:
        self._check_cables()
        topo = self.run.topology
        f = act.fault
        base = float(self.run.queue_rate_pps() or LINK_PPS)
        if f.kind == "pfc-storm":
            (host,) = f.place
            sw = topo.host(host).switch
            act.impair[sw] = {topo.port_to(sw, host): {"pause": True}}
            return
        a, b = f.place
        if f.kind == "hot-port":
            busy = [HOT_PERIOD_S, float(f.arg), act.since, base]
            act.impair[a] = {topo.port_to(a, b): {"busy": busy}}
            return
        ends = [(x, y) for x, y in ((a, b), (b, a)) if topo.is_switch(x)]
        if f.kind == "loss":
            if not topo.is_switch(a):
                raise LiveFaultError(
                    f"fault {f.spec()}: {a} is a host: its end of the cable is not a switch's"
                )
            act.impair[a] = {topo.port_to(a, b): {"loss": float(f.arg)}}
            return
        if f.kind == "slow":
            settings: dict[str, Any] = {"rate_pps": round(base * float(f.arg), 3)}
        else:
            period, _, duty = f.arg.partition("/")
            settings = {"flap": [float(period.removesuffix("s")), float(duty), act.since]}
        for x, y in ends:
            act.impair.setdefault(x, {})[topo.port_to(x, y)] = dict(settings)

    def _encoder(self, switch: str) -> Any:
        from ..lb import FabricEncoder

        return FabricEncoder(self.run.sessions[switch].schema)

    def _blackhole(self, act: _Active) -> None:
        (sw,) = act.fault.place
        ent = self._encoder(sw).route_drop(act.fault.arg)
        act.overlay[sw] = ({identity(ent)}, [ent])

    def _skew(self, act: _Active) -> None:
        from ..lb import Policy
        from ..lb.from_topology import switch_intent
        from ..routing import compute_routes

        run = self.run
        topo = run.topology
        sw, toward = act.fault.place
        weight = int(act.fault.arg)
        port = topo.port_to(sw, toward)
        routes = compute_routes(topo, failed_links=run.failed_links())
        # the group ids the run wrote (stable per next-hop set), not a fresh numbering
        intent = switch_intent(topo, routes.switch_routes(sw, run.desired_cache.group_ids))
        policy = run.policy or Policy()
        enc = self._encoder(sw)
        dead = run.dead_ports(sw)
        gone: set[Any] = set()
        new: list[Entity] = []
        for g in intent.groups:
            if len(g.next_hops) < 2 or not any(nh.port == port for nh in g.next_hops):
                continue
            skewed = replace(
                g, weights=tuple(weight if nh.port == port else 1 for nh in g.next_hops)
            )
            mode = policy.group_mode(g.group_id)
            old = enc.group_entities(g, mode, intent.router_mac, dead)
            ents = enc.group_entities(skewed, mode, intent.router_mac, dead)
            gone |= {identity(e) for e in old} | {identity(e) for e in ents}
            new += ents
        if not new:
            raise LiveFaultError(
                f"fault {act.fault.spec()}: {sw} has no group of two or more members with "
                f"one toward {toward}"
            )
        act.overlay[sw] = (gone, new)

    def _entries(self, act: _Active, reprogram: Any) -> dict[str, Any]:
        """Write the overlay (reprogram) and record, per switch, the entries it replaced
        and the ones written, as P4Runtime text."""
        run = self.run
        before = {
            sw: [e for e in run.sessions[sw].desired if identity(e) in gone]
            for sw, (gone, _new) in act.overlay.items()
        }
        r = reprogram()
        out: dict[str, Any] = {
            "written": {k: r[k] for k in ("inserted", "modified", "deleted", "writes")}
        }
        for sw, (_gone, new) in act.overlay.items():
            schema = run.sessions[sw].schema
            out[sw] = {
                "before": [_text(schema, e) for e in before[sw]],
                "after": [_text(schema, e) for e in new],
            }
        return out


def _text(schema: Any, e: Entity) -> str:
    from google.protobuf import text_format

    from ..codec import encode_entity

    return text_format.MessageToString(encode_entity(schema, e), as_one_line=True)


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
