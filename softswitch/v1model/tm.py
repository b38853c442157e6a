"""The traffic manager: per-egress-port queues served at a configured rate.

Each port has `priorities` FIFO queues (queue 0 the lowest priority, as BMv2). A queue
holds at most `depth` packets (tail drop beyond). Two ways to serve them
(`set_queueing`):

- "shared" (the default, a link): one server per port takes the packets in strict
  priority and spends 1/rate seconds on each (a rate in packets/s, or in bits/s by frame
  length), the rate of the queue the packet came from, reckoned when it takes the packet:
  a rate change applies to the packets already queued;
- "bmv2" (as simple_switch): each (port, priority) queue is a rate limiter of its own; a
  packet's departure time is fixed when it joins the queue, the queue's previous departure
  plus the gap at the rate set then (BMv2 QueueingLogicPriRL), and of the packets due the
  highest priority leaves first. Two priorities of one port at 10 packets/s send 20
  packets/s between them, and a rate change reaches only the packets queued after it.

A port with no rate serves packets the moment they arrive, as an unthrottled BMv2 port
does, so its queues stay empty.

Time is in the switch clock's ticks: microseconds, or nanoseconds on an external
simulator clock (`ticks_per_second`). Queue metadata follow BMv2 `simple_switch`:
`enq_qdepth` is the queue length before the packet joins it, `deq_qdepth` the length after
it leaves, `deq_timedelta` the time it waited.

For a fabric simulator: a (port, priority) can be paused (PFC: the server skips it until
resumed), and the packets queued are counted per (ingress port, priority) so a simulator
can decide when to send XOFF/XON upstream.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

DEFAULT_DEPTH = 64  # packets per queue, BMv2's default


@dataclass(slots=True)
class Queued:
    enq_t: int
    seq: int
    item: Any
    length: int
    enq_qdepth: int
    ingress: int = -1
    depart: float = 0.0  # the earliest time it may leave: enq_t, or its "bmv2" departure


@dataclass(slots=True)
class QueueConfig:
    depth: int = DEFAULT_DEPTH
    rate_pps: float | None = None  # packets per second; None: unthrottled
    rate_bps: float | None = None  # bits per second (takes precedence when set)

    def service_time(self, length: int, ticks_per_second: float = 1e6) -> float:
        """How long serving a `length`-byte packet takes, in clock ticks."""
        if self.rate_bps:
            return length * 8 * ticks_per_second / self.rate_bps
        if self.rate_pps:
            return ticks_per_second / self.rate_pps
        return 0.0


@dataclass(slots=True)
class PortQueues:
    configs: list[QueueConfig]
    queues: list[deque[Queued]] = field(default_factory=list)
    busy_until: float = 0.0
    drops: int = 0
    paused: int = 0  # bit p set: priority p is paused (PFC)
    peak: int = 0  # the longest any of its queues has been (packets)
    # "bmv2" queueing, per priority: the departure time of the last packet queued, and
    # its length (the gap after it at the rate in force when the next one comes)
    last_depart: list[float] = field(default_factory=list)
    last_length: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.queues = [deque() for _ in self.configs]
        self.last_depart = [float("-inf")] * len(self.configs)  # none yet: no gap to keep
        self.last_length = [0] * len(self.configs)

    def head_time(self) -> float | None:
        """When the server takes the next packet (None: nothing queued or all paused)."""
        paused = self.paused
        first = None
        for i, q in enumerate(self.queues):
            if q and not paused >> i & 1:
                t = q[0].depart
                if first is None or t < first:
                    first = t
        if first is None:
            return None
        return first if first > self.busy_until else self.busy_until


class _Shaped:
    """Membership test for ports that need queueing."""

    __slots__ = ("all", "ports")

    def __init__(self) -> None:
        self.all = False
        self.ports: set[int] = set()

    def __contains__(self, port: object) -> bool:
        return self.all or port in self.ports


class TrafficManager:
    def __init__(
        self,
        priorities: int = 1,
        default_depth: int = DEFAULT_DEPTH,
        ticks_per_second: float = 1e6,
    ) -> None:
        if priorities < 1:
            raise ValueError("a port needs at least one queue")
        self.priorities = priorities
        self._by_priority = tuple(range(priorities - 1, -1, -1))  # the highest first
        self.ticks_per_second = ticks_per_second
        # packets queued per (ingress port, priority), for PFC decisions
        self.ingress_occupancy: dict[tuple[int, int], int] = {}
        # port -> (when its server next takes a packet, port), for ports holding packets
        # that may leave (not paused); kept up to date by every change, so that the next
        # departure is a min over a few cached values instead of a scan of the queues
        self._heads: dict[int, tuple[float, int]] = {}
        self._next: float | None = None  # min of _heads, valid unless _dirty
        self._next_port = -1  # the port of _next (the lowest of equal times)
        self._dirty = False
        self.default_depth = default_depth
        # what a port not configured on its own gets, per priority: set_depth / set_rate
        # with no port (and a priority, or all of them)
        self._default_depths = [default_depth] * priorities
        self._default_rates: list[tuple[float | None, float | None]] = [(None, None)] * priorities
        self.ports: dict[int, PortQueues] = {}
        self._seq = 0
        self.configured = False  # no depth or rate set yet: every port serves at once
        self.bmv2_queueing = False  # set_queueing("bmv2"): a rate limiter per queue
        # ports whose packets go through the queues: those with a rate, or all ports once
        # a default rate or depth is set (an unthrottled, empty port serves at once)
        self.shaped: _Shaped = _Shaped()

    def port(self, port: int) -> PortQueues:
        pq = self.ports.get(port)
        if pq is None:
            pq = PortQueues(
                [
                    QueueConfig(depth, pps, bps)
                    for depth, (pps, bps) in zip(
                        self._default_depths, self._default_rates, strict=True
                    )
                ]
            )
            self.ports[port] = pq
        return pq

    # ------------------------------------------------------------ configuration
    def set_queueing(self, mode: str) -> None:
        """ "shared" or "bmv2" (see the module docstring); before any packet is queued."""
        if mode not in ("shared", "bmv2"):
            raise ValueError(f"queueing {mode!r}: shared or bmv2")
        if any(any(pq.queues) for pq in self.ports.values()):
            raise ValueError("queueing is chosen before packets are queued")
        self.bmv2_queueing = mode == "bmv2"

    def set_depth(self, depth: int, port: int | None = None, priority: int | None = None) -> None:
        """Queue depth in packets, for one port (all ports when None, and the ports that
        come later) and one priority (all when None). Packets already queued beyond a
        smaller depth stay; new ones are dropped until the queue is below it."""
        if depth < 1:
            raise ValueError("queue depth must be at least 1 packet")
        configs = self._configs(port, priority)
        if port is None:
            for p in self._priorities(priority):
                self._default_depths[p] = depth
            if priority is None:
                self.default_depth = depth
        for cfg in configs:
            cfg.depth = depth
        self._reshape()

    def set_rate(
        self,
        port: int | None = None,
        pps: float | None = None,
        bps: float | None = None,
        priority: int | None = None,
    ) -> None:
        """Service rate in packets/s or bits/s (None for both: unthrottled) of one port
        (all ports when None, and the ports that come later) and one priority (all when
        None). "shared" queueing: the time the port's server spends on each packet it
        takes from that queue, reckoned when it takes it, so a new rate applies to the
        packets already queued (not to one being sent); "bmv2": the gap between the
        departures the queue gives the packets that join it from now on."""
        if (pps is not None and pps <= 0) or (bps is not None and bps <= 0):
            raise ValueError("queue rates must be positive")
        configs = self._configs(port, priority)
        if port is None:
            for p in self._priorities(priority):
                self._default_rates[p] = (pps, bps)
        for cfg in configs:
            cfg.rate_pps, cfg.rate_bps = pps, bps
        self._reshape()

    def _reshape(self) -> None:
        self.configured = True
        self.shaped.all = any(r != (None, None) for r in self._default_rates)
        self.shaped.ports = {
            p for p, pq in self.ports.items() if any(c.rate_pps or c.rate_bps for c in pq.configs)
        }

    def _priorities(self, priority: int | None) -> range:
        if priority is None:
            return range(self.priorities)
        if not 0 <= priority < self.priorities:
            raise ValueError(f"priority {priority} out of range (0..{self.priorities - 1})")
        return range(priority, priority + 1)

    def _configs(self, port: int | None, priority: int | None) -> list[QueueConfig]:
        self._priorities(priority)  # checks it
        ports = [self.port(port)] if port is not None else list(self.ports.values())
        out = []
        for pq in ports:
            if priority is None:
                out.extend(pq.configs)
            else:
                out.append(pq.configs[priority])
        return out

    # ------------------------------------------------------------ packets
    def enqueue(
        self, port: int, priority: int, item: Any, length: int, now: int, ingress: int = -1
    ) -> Queued | None:
        """Queue a packet at time `now` (ticks); None when the queue is full (tail drop) or
        the priority is bad. `ingress` is the port it came in on (-1: not counted)."""
        pq = self.ports.get(port)
        if pq is None:
            pq = self.port(port)
        if not 0 <= priority < self.priorities:
            pq.drops += 1
            return None
        q = pq.queues[priority]
        n = len(q)
        if n >= pq.configs[priority].depth:
            pq.drops += 1
            return None
        self._seq += 1
        depart: float = now
        if self.bmv2_queueing:  # departure fixed now: the last one's plus the gap
            last = pq.last_depart[priority] + pq.configs[priority].service_time(
                pq.last_length[priority], self.ticks_per_second
            )
            if last > depart:
                depart = last
            pq.last_depart[priority] = depart
            pq.last_length[priority] = length
        entry = Queued(now, self._seq, item, length, n, ingress, depart)
        q.append(entry)
        if not n:  # the queue was empty: the port's head time may be earlier now
            self._update(port, pq)
        if n >= pq.peak:
            pq.peak = n + 1
        if ingress >= 0:
            key = (ingress, priority)
            occ = self.ingress_occupancy
            occ[key] = occ.get(key, 0) + 1
        return entry

    def pass_through(
        self, port: int, priority: int, length: int, now: int, ingress: int = -1
    ) -> bool:
        """Serve a packet arriving at `now` without queueing it, if it would be the next
        to leave and leave at once: its port's server is free, its queue empty and not
        paused, and no other packet is due by `now` (its queue metadata are then all 0).
        Leaves the traffic manager as `enqueue` then `dequeue` at `now` would (the server
        busy for the packet's service time). False: nothing changed, enqueue it."""
        pq = self.ports.get(port)
        if (
            pq is None
            or not 0 <= priority < self.priorities
            or pq.queues[priority]
            or pq.busy_until > now
            or pq.paused >> priority & 1
        ):
            return False
        if self.bmv2_queueing:
            due = pq.last_depart[priority] + pq.configs[priority].service_time(
                pq.last_length[priority], self.ticks_per_second
            )
            if due > now:  # its queue's limiter holds it back
                return False
        t = self.next_time() if self._dirty else self._next  # no call while nothing moved
        if t is not None and t <= now:
            return False
        if self.bmv2_queueing:
            pq.last_depart[priority] = now
            pq.last_length[priority] = length
        else:  # the server is free (tested above): the packet leaves now, busy for it
            # QueueConfig.service_time, written out as in dequeue
            cfg = pq.configs[priority]
            if cfg.rate_bps:
                service = length * 8 * self.ticks_per_second / cfg.rate_bps
            elif cfg.rate_pps:
                service = self.ticks_per_second / cfg.rate_pps
            else:
                service = 0.0
            pq.busy_until = now + service
        self._seq += 1
        if not pq.peak:
            pq.peak = 1
        if ingress >= 0:
            self.ingress_occupancy.setdefault((ingress, priority), 0)
        return True

    def next_time(self) -> float | None:
        """Earliest time at which some port dequeues a packet."""
        if self._dirty:
            heads = self._heads
            if heads:
                # the earliest head; ties go to the lowest port number
                self._next, self._next_port = min(heads.values())
            else:
                self._next, self._next_port = None, -1
            self._dirty = False
        return self._next

    def _update(self, port: int, pq: PortQueues) -> None:
        """Recompute `port`'s head time after its queues, pause bits or server changed,
        and the next departure with it: only when `port` held the earliest head and its
        head moved later must the others be looked at again (by `next_time`)."""
        t: float | None = None
        if self.priorities == 1:  # one queue: its head, once the server is free
            q = pq.queues[0]
            if q and not pq.paused:
                head = q[0].depart
                t = head if head > pq.busy_until else pq.busy_until
        elif pq.paused:
            t = pq.head_time()
        else:  # PortQueues.head_time with no queue paused, written out (twice per packet)
            for q in pq.queues:
                if q:
                    head = q[0].depart
                    if t is None or head < t:
                        t = head
            if t is not None and not t > pq.busy_until:
                t = pq.busy_until
        if t is None:
            if self._heads.pop(port, None) is not None and port == self._next_port:
                self._dirty = True
            return
        self._heads[port] = (t, port)
        if self._dirty:
            return
        nxt = self._next
        if nxt is None or t < nxt or (t == nxt and port <= self._next_port):
            self._next, self._next_port = t, port
        elif port == self._next_port:
            self._dirty = True

    def dequeue(self, now: float) -> tuple[int, int, Queued, int] | None:
        """Take the next packet due at or before `now`: (port, priority, entry, deq_qdepth)."""
        t = self.next_time() if self._dirty else self._next  # no call while nothing moved
        if t is None or t > now:
            return None
        port = self._next_port
        pq = self.ports[port]
        queues = pq.queues
        paused = pq.paused
        # strict priority among the packets that have arrived by t
        for prio in self._by_priority:
            q = queues[prio]
            if q and q[0].depart <= t and not paused >> prio & 1:
                entry = q.popleft()
                if not self.bmv2_queueing:
                    # QueueConfig.service_time, written out (once per packet)
                    cfg = pq.configs[prio]
                    if cfg.rate_bps:
                        service = entry.length * 8 * self.ticks_per_second / cfg.rate_bps
                    elif cfg.rate_pps:
                        service = self.ticks_per_second / cfg.rate_pps
                    else:
                        service = 0.0
                    pq.busy_until = t + service
                if entry.ingress >= 0:
                    self.ingress_occupancy[(entry.ingress, prio)] -= 1
                self._update(port, pq)
                return port, prio, entry, len(q)
        return None

    def pause(self, port: int, priority: int, paused: bool, now: float = 0) -> None:
        """PFC: stop (or, at time `now`, resume) serving `priority` on `port`; queued
        packets wait and are served from `now` on."""
        if not 0 <= priority < self.priorities:
            raise ValueError(f"priority {priority} out of range (0..{self.priorities - 1})")
        pq = self.port(port)
        if paused:
            pq.paused |= 1 << priority
        else:
            pq.paused &= ~(1 << priority)
            pq.busy_until = max(pq.busy_until, now)
        self._update(port, pq)

    def occupy(self, port: int, until: float) -> None:
        """The port's server is busy until `until` (ticks) with traffic the caller does not
        queue here (background load): packets arriving meanwhile wait in the queue."""
        pq = self.port(port)
        if until > pq.busy_until:
            pq.busy_until = until
        self._update(port, pq)

    def backlog(self, port: int) -> bool:
        """Does the port still hold queued packets (they leave before any new one)?"""
        pq = self.ports.get(port)
        return pq is not None and any(pq.queues)

    def occupancy(self, port: int, priority: int = 0) -> int:
        pq = self.ports.get(port)
        return len(pq.queues[priority]) if pq else 0
