"""Link impairments of UDP cables, set from outside a running switch process.

    softswitch ... -i 3@udp:... --impair-file run/impair/leaf1.json

The file maps device id -> port -> what that port's sending side does to its frames:

    {"1": {"3": {"loss": 0.05, "rate_pps": 250, "flap": [2.0, 0.5, 1733550000.0]}}}

| key | effect |
| --- | --- |
| `loss` | each frame is dropped with this probability, silently |
| `rate_pps` | the cable serialises frames at this rate: a frame arrives 1/rate s after the one before it left (or after it was sent, when the cable is idle); at most `MAX_BACKLOG` wait |
| `flap` | `[period_s, duty, t0]`: the cable is down (every frame dropped) for `duty` of each `period_s` seconds counted from `t0` (Unix time), up for the rest |

A watcher thread re-reads the file when it changes (every `POLL_S`); a device or port the
file does not name is unimpaired. The file is written whole and renamed into place by
whoever sets it (`controller.fabric.live_faults`). Impairments act where the frame leaves
(`UdpPort.send`): a one-direction fault is set on one end, a two-direction one on both.
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

__all__ = ["MAX_BACKLOG", "ImpairWatcher", "PortImpairment", "parse_impairments"]

log = logging.getLogger("softswitch.impair")

POLL_S = 0.1
MAX_BACKLOG = 1000  # frames waiting on a rate-limited cable; more are dropped (tail drop)


class PortImpairment:
    """What one port's sending side does to its frames (see the module docstring)."""

    def __init__(
        self,
        loss: float = 0.0,
        rate_pps: float | None = None,
        flap: tuple[float, float, float] | None = None,
        seed: int = 0,
    ) -> None:
        if not 0.0 <= loss <= 1.0:
            raise ValueError(f"loss {loss}: a probability in 0..1")
        if rate_pps is not None and rate_pps <= 0:
            raise ValueError(f"rate_pps {rate_pps}: must be positive")
        if flap is not None and (flap[0] <= 0 or not 0 < flap[1] < 1):
            raise ValueError(f"flap {flap}: [period_s > 0, duty in (0, 1), t0]")
        self.loss = loss
        self.rate_pps = rate_pps
        self.flap = flap
        self.rng = random.Random(seed)
        self.dropped = 0
        self._backlog: deque[tuple[float, bytes]] = deque()
        self._free_at = 0.0  # when the cable finishes serialising what it holds
        self._cv = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._out: Callable[[bytes], None] | None = None

    def same(self, other: PortImpairment) -> bool:
        return (self.loss, self.rate_pps, self.flap) == (other.loss, other.rate_pps, other.flap)

    def down(self, now: float) -> bool:
        """Is the cable down at Unix time `now` (a flap's down part)?"""
        if self.flap is None:
            return False
        period, duty, t0 = self.flap
        return (now - t0) % period < duty * period

    def send(self, data: bytes, out: Callable[[bytes], None]) -> None:
        """Send `data` through `out` as the impaired cable would (maybe never)."""
        if self.down(time.time()) or (self.loss and self.rng.random() < self.loss):
            self.dropped += 1
            return
        if self.rate_pps is None:
            out(data)
            return
        with self._cv:
            if len(self._backlog) >= MAX_BACKLOG:
                self.dropped += 1
                return
            now = time.monotonic()
            self._free_at = max(self._free_at, now) + 1.0 / self.rate_pps
            self._backlog.append((self._free_at, data))
            self._out = out
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="softswitch-impair", daemon=True
                )
                self._thread.start()
            self._cv.notify()

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
                    self._cv.wait(wait)
                    continue
                self._backlog.popleft()
                out = self._out
            if out is not None:
                out(data)

    def close(self) -> None:
        """Stop serving; frames still held are sent first (the cable empties)."""
        with self._cv:
            self._closed = True
            self._cv.notify()


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
            if not isinstance(spec, dict) or set(spec) - {"loss", "rate_pps", "flap"}:
                raise ValueError(f"device {dev} port {port}: keys are loss, rate_pps, flap")
            flap = spec.get("flap")
            imp = PortImpairment(
                loss=float(spec.get("loss", 0.0)),
                rate_pps=None if spec.get("rate_pps") is None else float(spec["rate_pps"]),
                flap=None if flap is None else (float(flap[0]), float(flap[1]), float(flap[2])),
                seed=int(dev) * 1000 + int(port),
            )
            out.setdefault(int(dev), {})[int(port)] = imp
    return out


class ImpairWatcher:
    """Applies the impairment file to the UDP ports of `runtimes` (device id -> runtime)
    whenever the file changes; a port it no longer names is restored."""

    def __init__(self, path: Path, runtimes: Mapping[int, Any]) -> None:
        self.path = path
        self.runtimes = dict(runtimes)
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
                port.impair = new
                if old is not None:
                    old.close()
                if new is not None or old is not None:
                    log.info("device %d port %d impairment: %s", dev, port_no, _describe(new))
        return True

    def start(self) -> ImpairWatcher:
        self.apply_once()
        self._thread = threading.Thread(
            target=self._run, name="softswitch-impair-watch", daemon=True
        )
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self.apply_once()
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
    return ", ".join(bits) or "none"
