"""A fabric switch in the simulation: a softswitch `Switch` running fabric.p4 on the
simulator's clock, its egress queues drained at the rate of the wire behind each port.

Every arriving packet runs the whole P4 pipeline (`Switch.arrive`); the traffic manager
decides when each queued packet leaves (the time `arrive` and `wake` return), and the node
wakes at that moment to run egress; the switch hands each packet it sends to the node
(`set_output`), which puts it on the wire. Nothing is cached per flow.

PFC (optional, one lossless priority): packets queued are counted per ingress port; when
a port's count reaches `xoff` the node pauses the upstream sender on that port (a PAUSE
frame: MAC control, not seen by the P4 program) and resumes it at `xon`. A PAUSE received
stops the queue of that port. The watchdog (optional) declares a storm when a queue stays
paused `watchdog_ns`: from then on the port's pauses are ignored and packets for it are
dropped, so the storm stops spreading.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from softswitch.v1model.switch import Switch

from .events import EventLoop
from .links import Wire

__all__ = ["PfcParams", "SwitchNode"]

PFC_PRIORITY = 0
PAUSE_FRAME_NS = 6  # a 64-byte PAUSE frame at 100 Gb/s


@dataclass(slots=True, frozen=True)
class PfcParams:
    enabled: bool = False
    xoff: int = 24  # packets queued from one ingress port
    xon: int = 12
    watchdog_ns: int | None = None


class SwitchNode:
    __slots__ = (
        "loop",
        "name",
        "paused_since",
        "pause_ns",
        "pause_ns_by_port",
        "peers",
        "pfc",
        "pfc_frames",
        "storm_drops",
        "sw",
        "tripped",
        "upstream_paused",
        "wake_at",
        "wires",
        "collector_port",
        "cpu_packets",
        "int_reports",
        "on_report",
        "pipeline_runs",
        "_arrive",
        "_ingress_occupancy",
        "_pfc_on",
    )

    def __init__(self, name: str, sw: Switch, loop: EventLoop, pfc: PfcParams) -> None:
        self.name = name
        self.sw = sw
        self.loop = loop
        self.pfc = pfc
        self.wires: dict[int, Wire] = {}
        self.peers: dict[int, Any] = {}  # port -> (node, its port) for PAUSE frames
        self.wake_at: int | None = None
        self.upstream_paused: set[int] = set()
        self.paused_since: dict[int, int] = {}  # our egress port -> when it was paused
        self.pause_ns = 0
        self.pause_ns_by_port: dict[int, int] = {}  # our egress port -> time paused by its peer
        self.pfc_frames = 0
        self.tripped: set[int] = set()
        self.storm_drops = 0
        self.cpu_packets = 0
        self.pipeline_runs = 0  # packets that went through the P4 program here
        self.collector_port: int | None = None  # INT reports leave here (not wired)
        self.int_reports: list[bytes] = []
        # instead of keeping them: a run whose transport reads INT (fabricsim.int_echo)
        self.on_report: Callable[[bytes], None] | None = None
        sw.count_ingress = pfc.enabled
        self._arrive = sw.arrive  # bound once: every packet calls it
        self._ingress_occupancy = sw.ingress_occupancy  # and this one with PFC
        self._pfc_on = pfc.enabled
        sw.set_output(self._send)

    # ------------------------------------------------------------ packets
    def receive(self, arg: tuple[int, bytes]) -> None:
        port, data = arg
        self.pipeline_runs += 1
        t = self._arrive(port, data)
        if self._pfc_on:
            self._check_xoff(port)
        if t is not None:
            wake_at = self.wake_at
            # (a pending wake-up that comes first already covers t: see _schedule)
            if wake_at is None or t < wake_at:
                self._schedule(t)

    def wake(self, t: int) -> None:
        if self.wake_at != t:
            return  # superseded by an earlier wake-up
        self.wake_at = None
        nxt = self.sw.wake()
        if self.upstream_paused:
            self._check_xon()
        if nxt is not None:
            self._schedule(nxt)

    def _schedule(self, t: float) -> None:
        """Wake at `t` (rounded up to a whole ns, not before now), the time the switch's
        next queued packet leaves, unless a wake-up is due earlier."""
        wake_at = self.wake_at
        if wake_at is not None and t >= wake_at:
            return  # the pending wake-up (a whole ns, not before now) comes first
        ti = int(t)
        if ti < t:
            ti += 1
        now = self.loop.clock.ns
        if ti < now:
            ti = now
        if wake_at is None or ti < wake_at:
            self.wake_at = ti
            self.loop.at(ti, self.wake, ti)

    def _send(self, port: int, data: bytes) -> None:
        """A packet leaves the switch on `port` (the switch's output callback)."""
        w = self.wires.get(port)
        if w is None:
            if port == self.collector_port:
                if self.on_report is not None:
                    self.on_report(data)
                else:
                    self.int_reports.append(data)
            else:
                self.cpu_packets += 1
        elif port in self.tripped:
            self.storm_drops += 1
        else:
            w.send(data)

    # ------------------------------------------------------------ PFC
    def _check_xoff(self, port: int) -> None:
        occ = self._ingress_occupancy(port, PFC_PRIORITY)
        if occ >= self.pfc.xoff and port not in self.upstream_paused:
            self.upstream_paused.add(port)
            self._send_pause(port, True)

    def _check_xon(self) -> None:
        occ = self._ingress_occupancy
        for port in list(self.upstream_paused):
            if occ(port, PFC_PRIORITY) <= self.pfc.xon:
                self.upstream_paused.discard(port)
                self._send_pause(port, False)

    def _reschedule(self) -> None:
        """Wake when the next queued packet leaves (after a queue was resumed)."""
        t = self.sw.next_event_ns()
        if t is not None:
            self._schedule(t)

    def _send_pause(self, port: int, on: bool) -> None:
        peer = self.peers.get(port)
        wire = self.wires.get(port)
        if peer is None or wire is None or not wire.up:
            return
        self.pfc_frames += 1
        node, peer_port = peer
        self.loop.at(
            self.loop.clock.ns + wire.delay_ns + PAUSE_FRAME_NS,
            node.on_pause,
            (peer_port, on),
        )

    def on_pause(self, arg: tuple[int, bool]) -> None:
        """A PAUSE (on) or resume (off) from the peer on `port`."""
        port, on = arg
        if port in self.tripped:
            return
        now = self.loop.clock.ns
        self.sw.pause(port, PFC_PRIORITY, on, now)
        if on:
            if port not in self.paused_since:
                self.paused_since[port] = now
                if self.pfc.watchdog_ns is not None:
                    self.loop.at(now + self.pfc.watchdog_ns, self._watchdog, (port, now))
        else:
            since = self.paused_since.pop(port, None)
            if since is not None:
                self._paused_for(port, now - since)
            self._reschedule()

    def _paused_for(self, port: int, ns: int) -> None:
        self.pause_ns += ns
        self.pause_ns_by_port[port] = self.pause_ns_by_port.get(port, 0) + ns

    def occupy(self, port: int, until_ns: int) -> None:
        """Background traffic holds `port`'s egress until `until_ns` (a hot port)."""
        self.sw.occupy(port, until_ns)
        self._reschedule()

    def _watchdog(self, arg: tuple[int, int]) -> None:
        port, since = arg
        if self.paused_since.get(port) != since:
            return  # resumed (and maybe paused again) since
        now = self.loop.clock.ns
        self.tripped.add(port)
        self._paused_for(port, now - since)
        del self.paused_since[port]
        self.sw.pause(port, PFC_PRIORITY, False, now)
        self._reschedule()

    def close_pauses(self, now: int) -> None:
        """Account pauses still in force at the end of a run."""
        for port, since in list(self.paused_since.items()):
            self._paused_for(port, now - since)
            self.paused_since[port] = now
