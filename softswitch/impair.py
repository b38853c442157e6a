"""Link impairments of UDP cables, set from outside a running switch process.

    softswitch ... -i 3@udp:... --impair-file run/impair/leaf1.json

The file maps device id -> port -> what that port's sending side does to its frames:

    {"1": {"3": {"loss": 0.05, "rate_pps": 250, "flap": [2.0, 0.5, 1733550000.0]}}}

| key | effect |
| --- | --- |
| `loss` | each frame is dropped with this probability, silently |
| `rate_pps` | the cable serialises frames at this rate: a frame arrives 1/rate s after the one before it left (or after it was sent, when the cable is idle); at most `MAX_BACKLOG` wait |
| `flap` | `[period_s, duty, t0]`: the cable is down (every frame dropped) for `duty` of each `period_s` seconds counted from `t0` (Unix time), up for the rest |
| `busy` | `[period_s, duty, t0, pps]`: background traffic the fabric does not carry holds the port for `duty` of each period from `t0` (a burst of pps x duty x period frames at each period's start, served at `pps`): a frame sent meanwhile waits until the port is free |
| `pause` | `true`: the peer pauses the port (a PFC pause that is never lifted): every frame waits, at most `MAX_BACKLOG` of them; they leave when the impairment goes |

A watcher thread re-reads the file when it changes (every `POLL_S`); a device or port the
file does not name is unimpaired. The file is written whole and renamed into place by
whoever sets it (`controller.fabric.live_faults`). Impairments act where the frame leaves
(`UdpPort.send`): a one-direction fault is set on one end, a two-direction one on both.
With `--port-stats-file` the watcher also writes every port's counters
(softswitch.port_counters) every `POLL_S`.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .port_counters import (
    PortCounters,
    busy_background,
    busy_queue_area,
    edges_until,
    write_port_stats,
)

__all__ = ["MAX_BACKLOG", "ImpairWatcher", "PortImpairment", "parse_impairments"]

log = logging.getLogger("softswitch.impair")

POLL_S = 0.1
MAX_BACKLOG = 1000  # frames waiting on a rate-limited cable; more are dropped (tail drop)


class PortImpairment:
    """What one port's sending side does to its frames (see the module docstring), and
    its share of the port's counters (`counters`, kept by the watcher across changes)."""

    def __init__(
        self,
        loss: float = 0.0,
        rate_pps: float | None = None,
        flap: tuple[float, float, float] | None = None,
        seed: int = 0,
        busy: tuple[float, float, float, float] | None = None,
        pause: bool = False,
    ) -> None:
        if not 0.0 <= loss <= 1.0:
            raise ValueError(f"loss {loss}: a probability in 0..1")
        if rate_pps is not None and rate_pps <= 0:
            raise ValueError(f"rate_pps {rate_pps}: must be positive")
        if flap is not None and (flap[0] <= 0 or not 0 < flap[1] < 1):
            raise ValueError(f"flap {flap}: [period_s > 0, duty in (0, 1), t0]")
        if busy is not None and (busy[0] <= 0 or not 0 < busy[1] < 1 or busy[3] <= 0):
            raise ValueError(f"busy {busy}: [period_s > 0, duty in (0, 1), t0, pps > 0]")
        self.loss = loss
        self.rate_pps = rate_pps
        self.flap = flap
        self.busy = busy
        self.pause = pause
        self.rng = random.Random(seed)
        self.counters = PortCounters()
        self._backlog: deque[tuple[float, bytes]] = deque()
        self._free_at = 0.0  # when the cable finishes serialising what it holds
        self._cv = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._out: Callable[[bytes], None] | None = None
        # counters accrue from here: just before a schedule's start (its first edge
        # counts), else now
        starts = [x[2] - 1e-6 for x in (flap, busy) if x is not None]
        self._settled = min([time.time(), *starts])

    def same(self, other: PortImpairment) -> bool:
        return self._key() == other._key()

    def _key(self) -> tuple[Any, ...]:
        return (self.loss, self.rate_pps, self.flap, self.busy, self.pause)

    def down(self, now: float) -> bool:
        """Is the cable down at Unix time `now` (a flap's down part)?"""
        if self.flap is None:
            return False
        period, duty, t0 = self.flap
        return (now - t0) % period < duty * period

    def free_at(self, now: float) -> float:
        """When (Unix time) a busy port is next free of its background traffic."""
        if self.busy is None or now < self.busy[2]:
            return now
        period, duty, t0, _ = self.busy
        phase = (now - t0) % period
        return now if phase >= duty * period else now + duty * period - phase

    def send(self, data: bytes, out: Callable[[bytes], None]) -> None:
        """Send `data` through `out` as the impaired cable would (maybe never)."""
        now = time.time()
        if self.down(now) or (self.loss and self.rng.random() < self.loss):
            self._drop()
            return
        if self.rate_pps is None and self.busy is None and not self.pause:
            out(data)
            return
        with self._cv:
            if len(self._backlog) >= MAX_BACKLOG:
                self._drop()
                return
            self._settle(now)
            mono = time.monotonic()
            start = mono + (self.free_at(now) - now)
            if self.pause:
                due = float("inf")
            elif self.rate_pps is not None:
                self._free_at = max(self._free_at, start) + 1.0 / self.rate_pps
                due = self._free_at
            else:
                due = start
            self._backlog.append((due, data))
            self.counters.queue_peak = max(self.counters.queue_peak, len(self._backlog))
            self._out = out
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="softswitch-impair", daemon=True
                )
                self._thread.start()
            self._cv.notify()

    def _drop(self) -> None:
        with self._cv:
            self.counters.dropped += 1

    def _serve(self) -> None:
        """Deliver each held frame when its serialisation ends."""
        while True:
            with self._cv:
                while not self._backlog and not self._closed:
                    self._cv.wait()
                if not self._backlog:
                    return
                due, data = self._backlog[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self._cv.wait(None if wait == float("inf") else wait)
                    continue
                self._settle(time.time())
                self._backlog.popleft()
                out = self._out
            if out is not None:
                out(data)

    def settle(self, now: float | None = None) -> PortCounters:
        """Bring the time-based counters up to `now` (Unix time) and return them."""
        with self._cv:
            self._settle(time.time() if now is None else now)
            return self.counters

    def _settle(self, now: float) -> None:
        last, c = self._settled, self.counters
        if now <= last:
            return
        c.queue_area += len(self._backlog) * (now - last)
        if self.pause:
            c.paused_s += now - last
        if self.flap is not None:
            c.carrier_transitions += edges_until(now, *self.flap) - edges_until(last, *self.flap)
        if self.busy is not None:
            c.queue_area += busy_queue_area(now, *self.busy) - busy_queue_area(last, *self.busy)
            if now >= self.busy[2]:
                burst = round(busy_background(self.busy[0], self.busy[1], self.busy[3]))
                c.queue_peak = max(c.queue_peak, burst + len(self._backlog))
        self._settled = now

    def close(self) -> None:
        """Stop serving; frames still held are sent first (the cable empties; a paused
        port's frames leave at once, as when a pause is lifted)."""
        with self._cv:
            self._settle(time.time())
            if self.pause:
                self._backlog = deque((0.0, d) for _, d in self._backlog)
            self._closed = True
            self._cv.notify()


_KEYS = {"loss", "rate_pps", "flap", "busy", "pause"}


def _floats(v: Any, n: int, what: str) -> Any:
    if not isinstance(v, list | tuple) or len(v) != n:
        raise ValueError(f"{what} {v!r}: expected a list of {n} numbers")
    return tuple(float(x) for x in v)


def parse_impairments(data: Any) -> dict[int, dict[int, PortImpairment]]:
    """The file's JSON -> device id -> port -> PortImpairment (ValueError saying what is
    wrong)."""
    if not isinstance(data, dict):
        raise ValueError("expected an object: device id -> port -> impairment")
    out: dict[int, dict[int, PortImpairment]] = {}
    for dev, ports in data.items():
        if not isinstance(ports, dict):
            raise ValueError(f"device {dev}: expected an object: port -> impairment")
        for port, spec in ports.items():
            if not isinstance(spec, dict) or set(spec) - _KEYS:
                raise ValueError(
                    f"device {dev} port {port}: keys are loss, rate_pps, flap, busy, pause"
                )
            flap, busy = spec.get("flap"), spec.get("busy")
            try:
                imp = PortImpairment(
                    loss=float(spec.get("loss", 0.0)),
                    rate_pps=None if spec.get("rate_pps") is None else float(spec["rate_pps"]),
                    flap=None if flap is None else _floats(flap, 3, "flap"),
                    seed=int(dev) * 1000 + int(port),
                    busy=None if busy is None else _floats(busy, 4, "busy"),
                    pause=bool(spec.get("pause", False)),
                )
            except ValueError as e:
                raise ValueError(f"device {dev} port {port}: {e}") from None
            out.setdefault(int(dev), {})[int(port)] = imp
    return out


class ImpairWatcher:
    """Applies the impairment file to the UDP ports of `runtimes` (device id -> runtime)
    whenever the file changes; a port it no longer names is restored."""

    def __init__(
        self, path: Path, runtimes: Mapping[int, Any], stats_path: Path | None = None
    ) -> None:
        self.path = path
        self.runtimes = dict(runtimes)
        self.stats_path = stats_path
        # device -> port -> counters, kept across a port's impairments
        self.counters: dict[int, dict[int, PortCounters]] = {}
        self._stamp: tuple[int, int, int] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def apply_once(self) -> bool:
        """Re-read the file if it changed; True when the ports were (re)set."""
        from .ports.udp import UdpPort

        try:
            st = self.path.stat()
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)  # a rename is a new inode
        except FileNotFoundError:
            stamp = (0, 0, -1)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        want: dict[int, dict[int, PortImpairment]] = {}
        if stamp != (0, 0, -1):
            try:
                want = parse_impairments(json.loads(self.path.read_text() or "{}"))
            except (OSError, ValueError) as e:
                log.warning("%s: not applied: %s", self.path, e)
                return False
        for dev, rt in self.runtimes.items():
            for port_no, port in list(rt.ports.items()):
                if not isinstance(port, UdpPort):
                    continue
                new = want.get(dev, {}).get(port_no)
                old = port.impair
                if old is not None and new is not None and old.same(new):
                    continue
                if new is not None:
                    new.counters = self.port_counters(dev, port_no)
                port.impair = new
                if old is not None:
                    old.close()
                self.port_counters(dev, port_no).queue_peak = 0  # the peak is per impairment
                if new is not None or old is not None:
                    log.info("device %d port %d impairment: %s", dev, port_no, _describe(new))
        return True

    def port_counters(self, dev: int, port: int) -> PortCounters:
        return self.counters.setdefault(dev, {}).setdefault(port, PortCounters())

    def write_stats(self) -> None:
        """Every UDP port's counters, up to now, to `stats_path` (softswitch.port_counters)."""
        from .ports.udp import UdpPort

        if self.stats_path is None:
            return
        now = time.time()
        for dev, rt in self.runtimes.items():
            for port_no, port in list(rt.ports.items()):
                if isinstance(port, UdpPort):
                    imp = port.impair
                    if imp is not None:
                        imp.settle(now)
                    else:
                        self.port_counters(dev, port_no)
        write_port_stats(self.stats_path, now, self.counters)

    def start(self) -> ImpairWatcher:
        self.apply_once()
        self.write_stats()
        self._thread = threading.Thread(
            target=self._run, name="softswitch-impair-watch", daemon=True
        )
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self.apply_once()
                self.write_stats()
            except Exception:  # noqa: BLE001 -- keep watching; the switch keeps forwarding
                log.exception("applying %s", self.path)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


def _describe(imp: PortImpairment | None) -> str:
    if imp is None:
        return "none"
    bits = []
    if imp.loss:
        bits.append(f"loss {imp.loss:g}")
    if imp.rate_pps is not None:
        bits.append(f"rate {imp.rate_pps:g} frames/s")
    if imp.flap is not None:
        bits.append(f"flap every {imp.flap[0]:g} s, down {imp.flap[1]:.0%}")
    if imp.busy is not None:
        bits.append(f"busy {imp.busy[1]:.0%} of every {imp.busy[0]:g} s")
    if imp.pause:
        bits.append("paused by its peer")
    return ", ".join(bits) or "none"
