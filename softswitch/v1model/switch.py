"""A v1model switch: loads a compiled program and runs packets through BMv2's pipeline.

    parser -> verifyChecksum -> ingress -> (clone / resubmit / multicast / drop)
           -> egress -> computeChecksum -> deparser -> (clone / recirculate / output)

Semantics follow BMv2 `simple_switch` (see docs in each method). The switch owns all its
state; nothing is module-level. `process()` is deterministic for a given seed and clock.

Clocks: with a `SimClock` (the default) the switch's caller moves time with `run_until`,
and the switch sets the clock to each dequeue time. With an external nanosecond clock
(`softswitch.clock.NsClock`, e.g. a fabric simulator's) the switch never moves the clock:
its traffic manager schedules in nanoseconds, `next_event_ns()` says when the next packet
leaves a queue, and the owner calls `serve()` once its clock has reached that time (or, in
one call each, `arrive()` for a packet and `wake()` at that time, with the packets sent
handed to a callback given to `set_output()`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice, repeat
from operator import attrgetter
from typing import Any

from ..clock import Clock, NsClock, SimClock
from ..engine.errors import InvalidArgument, NotFound
from ..engine.names import field_py
from ..engine.runtime import PacketReader, _ExitSignal, _ParserError, _Reject
from ..engine.tables import Table
from ..program_info import CompiledProgram
from .context import DROP_PORT, DeviceLog, PacketContext
from .externs import ActionProfile, Counter, DirectCounter, DirectMeter, Meter, Register
from .tm import TrafficManager

NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = range(7)
MAX_PASSES = 64  # resubmits/recirculations of one packet before it is dropped
# packets of a batch whose ingress passes run before their egress passes: enough for the
# code of each stage to stay in the CPU's caches, few enough for their structs to fit too
STAGE_BATCH = 16
SPARE_STRUCTS = 64  # finished packets' structs kept for reuse (per program)


@dataclass(slots=True)
class CloneSession:
    """Where clones of a session go: (port, rid) replicas and/or a multicast group,
    truncated to `packet_length` bytes when not 0."""

    replicas: list[tuple[int, int]]
    packet_length: int = 0
    class_of_service: int = 0
    mgid: int = 0


@dataclass(slots=True)
class Output:
    """A packet sent by the switch: when (switch clock ticks: microseconds, or nanoseconds
    on an external clock), where, what."""

    time_us: int
    port: int
    data: bytes


@dataclass(slots=True)
class Digest:
    receiver: int
    name: str
    data: Any


@dataclass(slots=True)
class TraceEvent:
    kind: str
    name: str
    detail: Any = None


class ValueSet:
    """A parser value set: members are tuples of (value, mask) per field."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.members: list[tuple[tuple[int, int], ...]] = []

    def match(self, key: tuple[int, ...]) -> bool:
        for m in self.members:
            if all((k & mk) == (v & mk) for k, (v, mk) in zip(key, m, strict=False)):
                return True
        return False


@dataclass(slots=True)
class _Pass:
    """One packet instance between ingress and egress."""

    hdr: Any
    meta: Any
    std: Any
    payload: bytes
    original: bytes
    truncate: int | None = None
    port: int = 0  # the port the packet arrived on (kept across resubmit/recirculate)
    # an invalid header may hold bits (ctx.dirty was set while this pass ran, or the pass
    # did not track it): all headers are zeroed when its structs are reused
    dirty: bool = True

    def replica(self, rid: int) -> _Pass:
        """A copy for one replica (multicast, clone session): headers and metadata copied,
        `egress_rid` set to `rid`."""
        copy = _Pass(
            self.hdr._copy(),
            self.meta._copy(),
            self.std._copy(),
            self.payload,
            self.original,
            self.truncate,
            self.port,
        )
        copy.std.egress_rid = rid
        return copy


class Switch:
    """A v1model target running one compiled program."""

    # slots, not an instance dict: the switch has more attributes than the interpreter
    # keeps inline, and with a dict its method calls on the packet path (self._egress(...))
    # would not stay specialised
    __slots__ = (
        "_H",
        "_M",
        "_S",
        "_at_once",
        "_compute",
        "_deparse_reset",
        "_deparser",
        "_egress_block",
        "_emit",
        "_field_lists",
        "_preservers",
        "_ingress_block",
        "_later",
        "_now_us",
        "_out",
        "_parser",
        "_reader",
        "_recycling",
        "_spare",
        "_ticks",
        "_ticks_per_us",
        "_unqueued",
        "_verify",
        "clock",
        "clone_sessions",
        "count_ingress",
        "cpu_port",
        "ctx",
        "digests",
        "dropped",
        "external_clock",
        "externs",
        "info",
        "log",
        "log_console",
        "mc_groups",
        "pipe",
        "program",
        "tables",
        "tm",
        "trace",
        "trace_log",
        "tracing",
        "value_sets",
    )

    def __init__(
        self,
        program: CompiledProgram,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        log_console: bool = False,
        cpu_port: int | None = None,
        trace: bool = False,
        priority_queues: int = 1,
        device: str | None = None,
    ) -> None:
        self.program = program
        self.info = program.info
        self.clock: Clock = clock or SimClock()
        # an external ns clock: the TM counts in ns and the switch never moves the clock
        self.external_clock = isinstance(self.clock, NsClock)
        self._ticks: Callable[[], int] = (
            self.clock.now_ns if isinstance(self.clock, NsClock) else self.clock.now_us
        )
        self._ticks_per_us = 1000 if self.external_clock else 1
        # the data path logs through `logging` ("softswitch.dataplane"), each message
        # prefixed with the device name; log_console makes sure the messages are shown
        self.log = DeviceLog(device or program.name, console=log_console)
        self.ctx = PacketContext(seed, self.log)
        self.ctx.log_console = log_console
        self.log_console = log_console
        self.cpu_port = cpu_port
        self.tables: dict[str, Table] = {}
        self.externs: dict[str, Any] = {}
        self.value_sets: dict[str, ValueSet] = {}
        self.mc_groups: dict[int, list[tuple[int, int]]] = {}
        self.clone_sessions: dict[int, CloneSession] = {}
        self.digests: list[Digest] = []
        self.trace_log: list[TraceEvent] = []
        self.tracing = trace
        self.trace: Callable[..., None] = self._trace if trace else _no_trace
        self.dropped = 0
        self.tm = TrafficManager(priority_queues, ticks_per_second=self._ticks_per_us * 1e6)
        self.count_ingress = False  # count queued packets per ingress port (PFC)
        self._out: list[Output] = []
        # where a packet leaving a port goes: collected for the caller (receive, serve,
        # run_until), or handed to the owner's callback the moment it leaves (set_output)
        self._emit: Callable[[int, bytes], None] = self._collect
        # set while `arrive` runs ingress: the packet may skip an idle queue (see _enqueue)
        self._at_once = False
        # egress of a packet no queue holds back: at once, or, while `receive_batch` runs
        # the batch's ingress passes, after them (see `_egress_later`)
        self._unqueued: Callable[[int, _Pass, int, int], None] = self._egress
        self._later: list[tuple[int, _Pass, int, int]] = []
        self.pipe = program.module()["build"](self)
        pipe = self.pipe
        # the pipeline's blocks and types, bound once (every packet uses them)
        self._H, self._M, self._S = pipe["H"], pipe["M"], pipe["S"]
        self._parser, self._verify = pipe["parser"], pipe["verify"]
        self._ingress_block, self._egress_block = pipe["ingress"], pipe["egress"]
        self._compute, self._deparser = pipe["compute"], pipe["deparser"]
        self._now_us = self.clock.now_us
        self._field_lists = self._collect_field_lists()
        meta0 = self._M()
        self._preservers = {n: _preserver(meta0, fs) for n, fs in self._field_lists.items()}
        # the headers, metadata and standard metadata of finished packets, made zero again
        # for the next packets (cheaper than new objects); only when all three can be reset.
        # One pool for every switch running the program, last in first out: in a fabric of
        # switches the next packet, whichever switch it reaches, takes the structs the last
        # packet left, still in the CPU's caches, not ones its switch used long ago
        self._spare = program.spare_structs
        self._reader = PacketReader(b"")
        self._recycling = all(hasattr(c, "_reset") for c in (self._H, self._M, self._S))
        # the deparser as one function that also resets the headers it deparses (when the
        # program's deparser only emits headers): their structs are reused
        self._deparse_reset = pipe.get("deparse_reset") if self._recycling else None

    # ------------------------------------------------------------ used by generated code
    def table(self, name: str, fns: tuple[Callable[..., Any], ...]) -> Table:
        spec = self.info.tables[name]
        t = Table(spec, fns, self.info.actions, self.ctx)
        if spec.implementation:
            prof = self.externs[spec.implementation]
            t.profile = prof
            prof.tables.append(t)
            prof.selector_widths = tuple(k.width for k in spec.selector_keys)
        if spec.direct_counter:
            dc = self.externs[spec.direct_counter]
            dc.table = t
        if spec.direct_meter:
            t.direct_meter = self.externs[spec.direct_meter]
        if spec.support_timeout:
            t.clock = self.clock
        t.refresh()
        self.tables[name] = t
        return t

    def extern(self, name: str) -> Any:
        spec = self.info.externs[name]
        args = spec.args
        now = self.clock.now_us
        obj: Any
        if spec.kind == "register":
            width, signed = _width(spec.type_args[0]) if spec.type_args else (32, False)
            obj = Register(name, int(args[0]), width, signed, self.log)
        elif spec.kind == "counter":
            obj = Counter(name, int(args[0]), str(args[1]), self.ctx)
        elif spec.kind == "direct_counter":
            obj = DirectCounter(name, str(args[0]))
        elif spec.kind == "meter":
            obj = Meter(name, int(args[0]), str(args[1]), self.ctx, now)
        elif spec.kind == "direct_meter":
            obj = DirectMeter(name, str(args[0]), now)
        elif spec.kind == "action_profile":
            obj = ActionProfile(name, int(args[0]), None, 0)
        elif spec.kind == "action_selector":
            obj = ActionProfile(name, int(args[1]), str(args[0]), int(args[2]))
        else:
            raise InvalidArgument(f"extern {spec.kind} cannot be instantiated")
        self.externs[name] = obj
        return obj

    def value_set(self, name: str) -> ValueSet:
        vs = ValueSet(name, self.info.value_sets[name].size)
        self.value_sets[name] = vs
        return vs

    def _trace(self, kind: str, name: str, detail: Any = None) -> None:
        if kind == "extract" and detail is not None:
            detail = ", ".join(f"{f}={getattr(detail, a):#x}" for f, a in _fields(detail))
        if kind == "table" and detail is not None:
            hit, _idx, _fn, args, entry = detail
            action = entry.action if hit else f"{entry.action} (default)"
            detail = f"{'hit' if hit else 'miss'} -> {action}{tuple(args)}"
        ev = TraceEvent(kind, name, detail)
        self.trace_log.append(ev)
        if self.log_console:
            self.log.info("[trace] %s %s%s", kind, name, f": {detail}" if detail else "")

    # ------------------------------------------------------------ control-plane helpers
    def table_named(self, name: str) -> Table:
        t = self.tables.get(name)
        if t is None:
            raise NotFound(f"no table named {name}")
        return t

    def mc_group_set(self, gid: int, replicas: list[tuple[int, int]]) -> None:
        """Multicast group `gid` sends one copy per (port, rid) replica."""
        self.mc_groups[gid] = list(replicas)

    def clone_session_set(self, sid: int, session: CloneSession) -> None:
        self.clone_sessions[sid] = session

    def set_output(self, fn: Callable[[int, bytes], None] | None) -> None:
        """Hand every packet the switch sends to `fn(port, data)` the moment it leaves
        (in the order the switch sends them), instead of collecting it for `receive`,
        `serve` and `run_until` (which then return nothing); None: collect again. A
        simulator that owns the clock puts each packet on its wire this way."""
        self._emit = self._collect if fn is None else fn

    def _collect(self, port: int, data: bytes) -> None:
        self._out.append(Output(self._ticks(), port, data))

    # ------------------------------------------------------------ time
    def hold_time(self) -> None:
        """Read the clock once; until `release_time()`, every packet sees that time (its
        ingress and egress timestamps, its send time). The switch runtime holds the time
        for each batch of frames taken from a port together, when no queue is rate-limited:
        one reading of the wall clock per batch instead of four per packet. Meters and
        idle timeouts keep reading the clock. No effect on an external clock."""
        if not self.external_clock:
            self._now_us = self._ticks = repeat(self.clock.now_us()).__next__

    def release_time(self) -> None:
        """Packets read the clock again (see `hold_time`)."""
        if not self.external_clock:
            self._now_us = self._ticks = self.clock.now_us

    # ------------------------------------------------------------ packets
    def process(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        """Receive one packet on `port` now; return the packets sent by now, in order.

        With unthrottled ports (the default) that is everything the packet produces. With
        queue rates set, packets still queued leave later: see `inject` and `run_until`.
        """
        return [(o.port, o.data) for o in self.receive(port, data)]

    def receive(self, port: int, data: bytes) -> list[Output]:
        """`process` with the send times: the packets sent by now, as `Output`s."""
        if not self.tm.configured and not self._out:
            # no queue was ever configured or used: nothing waits, nothing to serve
            self._ingress(port, bytes(data), NORMAL, None, 0)
            out, self._out = self._out, []
            return out
        self.inject(port, data)
        return self.run_until(self._ticks())

    def receive_batch(
        self,
        frames: Iterable[tuple[int, bytes]],
        on_error: Callable[[int, bytes, Exception], None] | None = None,
    ) -> list[Output]:
        """`receive` for packets that arrived together, in order. With unthrottled ports,
        the packets go in groups of `STAGE_BATCH`: the ingress passes of a group run
        first, then its egress passes in the order ingress sent the packets (clones and
        replicas included), as BMv2's ingress thread can run ahead of its egress thread.
        Each stage's code then stays in the CPU's caches from one packet to the next.
        Tables and registers are used as one packet at a time would use them, except
        that an egress pass no longer comes before the ingress pass of the next packet
        of its group. With queues configured, or tracing on, the packets are received
        one at a time.

        `on_error(port, frame, exception)` hears of a packet whose pass failed (the
        other packets go on); without it the first failure is raised once the batch is
        done, and what the batch sent is returned by the next call instead."""
        errors: list[tuple[int, bytes, Exception]] = []
        if self.tm.configured or self._out or self.tracing:
            out: list[Output] = []
            for port, data in frames:
                try:
                    out += self.receive(port, data)
                except Exception as e:  # handed to on_error, or raised at the end
                    errors.append((port, data, e))
            self._out[:0] = out
        else:
            it = iter(frames)
            while group := list(islice(it, STAGE_BATCH)):
                self._stages(group, errors)
        if errors:
            if on_error is None:
                raise errors[0][2]
            for port, data, failure in errors:
                on_error(port, data, failure)
        out, self._out = self._out, []
        return out

    def _stages(
        self, group: list[tuple[int, bytes]], errors: list[tuple[int, bytes, Exception]]
    ) -> None:
        """The ingress passes of `group`, then the egress passes they asked for."""
        later = self._later
        self._unqueued = self._egress_later
        try:
            for port, data in group:
                try:
                    self._ingress(port, bytes(data), NORMAL, None, 0)
                except Exception as e:  # handed to on_error, or raised at the end
                    errors.append((port, data, e))
        finally:
            self._unqueued = self._egress
            self._later = []
        for eport, ps, depth, truncate in later:
            try:
                self._egress(eport, ps, depth, truncate)
            except Exception as e:
                errors.append((ps.port, ps.original, e))

    def _egress_later(self, eport: int, ps: _Pass, depth: int, truncate: int = 0) -> None:
        self._later.append((eport, ps, depth, truncate))

    def inject(self, port: int, data: bytes) -> None:
        """Receive a packet on `port` at the current time: parse, ingress, enqueue.

        Packets due to leave their queues by now are served first, so a burst sees the
        queue as it really is when each packet arrives."""
        self._serve(self._ticks())
        self._ingress(port, bytes(data), NORMAL, None, 0)

    def arrive(self, port: int, data: bytes) -> float | None:
        """`inject`, then serve what is due by now; return when the next packet leaves a
        queue (None: queues empty), as `next_event_ns` would. One call per packet for an
        owner with an external clock and an output callback (`set_output`)."""
        now = self._ticks()
        tm = self.tm
        if not self.external_clock:
            t = tm.next_time()
            if t is not None and t <= now:
                self._serve(now)
            self._ingress(port, bytes(data), NORMAL, None, 0)
            self._serve(now)
            return tm.next_time()
        # on an external clock, which stands still while the switch runs: `_serve(now)`
        # is `_serve_external(now, now)`, and it serves nothing unless a packet is due by
        # now (asked first here, once per packet, instead of in a call each time)
        t = tm.next_time()
        if t is not None and t <= now:
            self._serve_external(now, now)
        # the packet may pass an idle queue (see _enqueue)
        self._at_once = True
        try:
            self._ingress(port, bytes(data), NORMAL, None, 0)
        finally:
            self._at_once = False
        t = tm.next_time()
        if t is not None and t <= now:
            self._serve_external(now, now)
            t = tm.next_time()
        return t

    def wake(self) -> float | None:
        """Serve every packet due by now; return when the next one leaves a queue (None:
        queues empty). `serve` and `next_event_ns` in one call (see `arrive`)."""
        now = self._ticks()
        if self.external_clock:
            self._serve_external(now, now)
        else:
            self._serve(now)
        return self.tm.next_time()

    def next_event_us(self) -> float | None:
        """When the traffic manager next hands a packet to egress (None: queues empty), in
        clock ticks (nanoseconds on an external clock)."""
        return self.tm.next_time()

    def next_event_ns(self) -> float | None:
        """On an external clock: when (ns) the next packet leaves a queue (None: none)."""
        return self.tm.next_time()

    # ------------------------------------------------------------ queues, for a simulator
    # `arrive`, `wake` and `next_event_ns` above, with these, are all an owner that runs
    # the clock (fabricsim) needs of the traffic manager; times are clock ticks (ns on an
    # external clock)
    def set_port_rate(self, port: int, bps: float) -> None:
        """`port` sends at `bps` (the wire behind it): its packets queue at that rate."""
        self.tm.set_rate(port=port, bps=bps)

    def set_queue_depth(self, depth: int) -> None:
        """Every egress queue (also of ports used later) holds `depth` packets."""
        self.tm.set_depth(depth)

    def ingress_occupancy(self, port: int, priority: int = 0) -> int:
        """Packets queued (toward any port) that came in on `port` at `priority`; counted
        while `count_ingress` is set (PFC reads it)."""
        return self.tm.ingress_occupancy.get((port, priority), 0)

    def pause(self, port: int, priority: int, paused: bool, now: float) -> None:
        """PFC: stop (or from `now` resume) serving `priority` on egress `port`."""
        self.tm.pause(port, priority, paused, now)

    def occupy(self, port: int, until: float) -> None:
        """Egress `port` is busy with traffic not queued here until `until`."""
        self.tm.occupy(port, until)

    def queue_lengths(self) -> list[int]:
        """The packets in each egress queue: each port in the order first used, each
        priority in order."""
        return [len(q) for pq in self.tm.ports.values() for q in pq.queues]

    def port_queue_lengths(self) -> dict[int, int]:
        """Egress port -> packets queued there (every priority), ports in first-use order."""
        return {p: sum(len(q) for q in pq.queues) for p, pq in self.tm.ports.items()}

    def queue_peaks(self) -> dict[int, int]:
        """Egress port -> the longest any of its queues has been (packets)."""
        return {p: pq.peak for p, pq in self.tm.ports.items()}

    def queue_drops(self) -> int:
        """Packets the egress queues dropped, full (tail drop)."""
        return sum(pq.drops for pq in self.tm.ports.values())

    def serve(self) -> list[Output]:
        """Serve every packet due by the clock's current time; return what was sent since
        the last call (on an external clock, the owner's way to run the queues)."""
        self._serve(self._ticks())
        out, self._out = self._out, []
        return out

    def run_until(self, t_us: float) -> list[Output]:
        """Serve the queues up to time `t_us` and return the packets sent since the last
        call. Egress runs for each packet at its dequeue time (a SimClock moves forward).
        On an external clock `t_us` (ns) cannot be in the future: use `serve`."""
        if self.external_clock and t_us > self._ticks():
            raise ValueError("the switch cannot advance an external clock")
        self._serve(t_us)
        if isinstance(self.clock, SimClock) and t_us > self.clock.now_us():
            self.clock.set(int(t_us))
        out, self._out = self._out, []
        return out

    def _serve(self, t_until: float) -> None:
        """Egress for every packet due by `t_until`, in the order they leave the queues."""
        if self.external_clock:
            self._serve_external(t_until, self._ticks())
            return
        tm = self.tm
        next_time = tm.next_time
        t = next_time()
        if t is None or t > t_until:
            return
        ticks = self._ticks
        sim_clock = self.clock if isinstance(self.clock, SimClock) else None
        while t is not None and t <= t_until:
            now = ticks()
            when = t if t > now else now
            if sim_clock is not None:
                sim_clock.set(int(when))
                now = ticks()
            got = tm.dequeue(when)
            if got is None:
                return
            self._dequeued(got, now)
            t = next_time()

    def _serve_external(self, t_until: float, now: int) -> None:
        """`_serve` on an external clock, which stands still while the switch serves:
        every packet due by `t_until` leaves at `now`."""
        dequeue = self.tm.dequeue
        egress = self._egress
        per_us = self._ticks_per_us
        got = dequeue(t_until)  # None: nothing due by then
        while got is not None:
            # _dequeued, written out (once per queued packet)
            port, _prio, entry, deq_depth = got
            ps, depth, truncate = entry.item
            std = ps.std
            std.enq_timestamp = (entry.enq_t // per_us) & 0xFFFFFFFF
            std.enq_qdepth = entry.enq_qdepth
            std.deq_timedelta = ((now - entry.enq_t) // per_us) & 0xFFFFFFFF
            std.deq_qdepth = deq_depth
            egress(port, ps, depth, truncate)
            got = dequeue(t_until)

    def _dequeued(self, got: tuple[int, int, Any, int], now: float) -> None:
        """A packet the traffic manager let go at `now`: its queue metadata, then egress."""
        port, _prio, entry, deq_depth = got
        ps, depth, truncate = entry.item
        per_us = self._ticks_per_us
        std = ps.std
        std.enq_timestamp = (entry.enq_t // per_us) & 0xFFFFFFFF
        std.enq_qdepth = entry.enq_qdepth
        std.deq_timedelta = ((now - entry.enq_t) // per_us) & 0xFFFFFFFF
        std.deq_qdepth = deq_depth
        self._egress(port, ps, depth, truncate)

    def _enqueue(
        self, eport: int, ps: _Pass, depth: int, truncate: int = 0, at_once: bool = False
    ) -> None:
        """Queue the packet for `eport` (egress runs when it leaves), or run egress now on
        an unthrottled port. `at_once`: the packet is the last one its arrival queues and
        the queues are served right after (`arrive`), so when the traffic manager would
        hand it to egress at once (`TrafficManager.pass_through`), egress runs now, as that
        serving would run it."""
        now = self._ticks()
        std = ps.std
        prio = std.priority
        tm = self.tm
        shaped = tm.shaped
        # nothing shapes this port's queue and nothing waits in it
        unthrottled = prio < tm.priorities and (
            not tm.configured
            or (not shaped.all and eport not in shaped.ports and not tm.backlog(eport))
        )
        if not unthrottled:
            # the bytes that will go on the wire: a packet truncated in ingress (a trimmed
            # header) or by its clone session holds the port for its cut length only
            length = std.packet_length
            cut = ps.truncate
            if cut is not None and cut < length:
                length = cut
            if truncate and truncate < length:
                length = truncate
            ingress = std.ingress_port if self.count_ingress else -1
            # queued, unless an idle queue the traffic manager would hand it over from at once
            if not (at_once and tm.pass_through(eport, prio, length, now, ingress)):
                if tm.enqueue(eport, prio, (ps, depth, truncate), length, now, ingress) is None:
                    self.dropped += 1
                    if self.tracing:
                        self.trace(
                            "drop", f"queue of port {eport}", "queue full or priority out of range"
                        )
                return
        # an unthrottled port, or an idle queue the traffic manager passes the packet
        # through: it leaves the moment it arrives, queue metadata 0
        std.enq_timestamp = (now // self._ticks_per_us) & 0xFFFFFFFF
        std.enq_qdepth = std.deq_qdepth = std.deq_timedelta = 0
        self._unqueued(eport, ps, depth, truncate)

    def _new_pass(
        self, itype: int, port: int, data: bytes, preserved: dict[str, Any] | None
    ) -> _Pass:
        """A fresh packet instance: headers invalid, metadata zero except `preserved`.

        `standard_metadata.ingress_port` is `port` only for a packet that arrives from a
        port (instance type NORMAL): BMv2 sets it in its receive path alone, so resubmitted,
        recirculated and cloned instances read 0 (unless their field list keeps it).
        A finished packet's structs (zero again) are used when there are any."""
        try:  # (not `if spare:` first: a switch in another thread may take the last)
            hdr, meta, std = self._spare.pop()
        except IndexError:
            hdr, meta, std = self._H(), self._M(), self._S()
        ps = _Pass(hdr, meta, std, b"", data, None, port)
        if preserved:
            meta = ps.meta
            for f, v in preserved.items():
                setattr(meta, f, v)
        std.packet_length = len(data)
        std.instance_type = itype
        if itype == NORMAL:
            std.ingress_port = port
        return ps

    def _reset_metadata(
        self, ps: _Pass, itype: int, length: int, preserved: dict[str, Any] | None
    ) -> None:
        """BMv2's `reset_metadata` then field-list copy: user and standard metadata zero,
        except the preserved fields, the instance type and the packet length (in place
        when the structs can be reset: nothing else holds them)."""
        if self._recycling:
            ps.meta._reset()
            ps.std._reset()
        else:
            ps.meta, ps.std = self._M(), self._S()
        if preserved:
            for f, v in preserved.items():
                setattr(ps.meta, f, v)
        ps.std.packet_length = length
        ps.std.instance_type = itype

    def _parse(self, ps: _Pass) -> None:
        ps.payload = self._run_parser(ps.original, ps.hdr, ps.meta, ps.std)

    def _run_parser(self, data: bytes, hdr: Any, meta: Any, std: Any) -> bytes:
        """Parse `data` into the structs; the payload (what the parser did not take)."""
        pk = self._reader  # one per switch: a parse ends before another begins
        pk.data = data
        pk.off = 0
        try:
            self._parser(pk, hdr, meta, std)
        except _ParserError as e:
            std.parser_error = e.code
        except _Reject:
            pass
        payload = self.ctx.payload = data[pk.off :]
        return payload

    def _ingress(
        self, port: int, data: bytes, itype: int, preserved: dict[str, Any] | None, depth: int
    ) -> None:
        """BMv2's ingress thread: parse, verify, ingress, then I2E clone, digests,
        resubmit, multicast or unicast (in that order)."""
        if depth > MAX_PASSES:
            self.dropped += 1
            return
        ctx = self.ctx
        if self.tracing:
            self.trace("packet", f"port {port}", f"{len(data)} bytes, instance type {itype}")
        # _new_pass written out, with structs a finished packet left: this runs for every
        # packet
        try:  # (not `if spare:` first: a switch in another thread may take the last)
            hdr, meta, std = self._spare.pop()
        except IndexError:
            std = self._S()
            hdr, meta = self._H(), self._M()
        if preserved:
            for f, v in preserved.items():
                setattr(meta, f, v)
        length = len(data)
        std.packet_length = length
        std.instance_type = itype
        if itype == NORMAL:
            # set by BMv2's receive path only: resubmitted/recirculated passes read 0
            std.ingress_port = port
            std.ingress_global_timestamp = self._now_us() & 0xFFFFFFFFFFFF
        # ctx.reset(std, length), written out: no request is pending after most passes
        if ctx.requested:
            ctx.reset(std, length)
        else:
            ctx.dirty = False
            ctx.std = std
            ctx.packet_length = length
        payload = self._run_parser(data, hdr, meta, std)
        try:
            self._verify(hdr, meta)
        except _ExitSignal:
            pass
        ctx.std = std
        try:
            self._ingress_block(hdr, meta, std)
        except _ExitSignal:
            pass
        ps = _Pass(hdr, meta, std, payload, data, ctx.truncate_to, port, ctx.dirty)
        if ctx.requested and self._after_ingress(ps, depth):
            return
        if std.mcast_grp:
            std.instance_type = REPLICATION
            self._multicast(ps, std.mcast_grp, depth)
            return
        eport = std.egress_spec
        if eport == DROP_PORT:
            self.dropped += 1
            if self.tracing:
                self.trace("drop", "ingress", "egress_spec is the drop port (511)")
            self._recycle(ps)
            return
        std.instance_type = NORMAL
        tm = self.tm
        if not tm.configured and std.priority < tm.priorities:
            # _enqueue's unthrottled case, written out: egress runs now, queue metadata 0
            std.enq_timestamp = (self._ticks() // self._ticks_per_us) & 0xFFFFFFFF
            std.enq_qdepth = std.deq_qdepth = std.deq_timedelta = 0
            self._unqueued(eport, ps, depth, 0)
        else:
            self._enqueue(eport, ps, depth, 0, self._at_once and not depth)

    def _after_ingress(self, ps: _Pass, depth: int) -> bool:
        """What ingress asked for besides forwarding, in BMv2's order: digests, an I2E
        clone, a resubmit (True: the packet was resubmitted and goes no further)."""
        ctx = self.ctx
        clone, resubmit = ctx.clone_request, ctx.resubmit_request
        for recv, name, d in ctx.digests:
            self.digests.append(Digest(recv, name, d))
        if clone is not None:
            self._clone_i2e(ps, clone, depth)
        if resubmit is not False:
            kept = self._preserve(ps.meta, resubmit)
            self._ingress(ps.port, ps.original, RESUBMIT, kept, depth + 1)
            return True
        return False

    def _multicast(self, ps: _Pass, gid: int, depth: int, truncate: int = 0) -> None:
        """One copy per (port, rid) replica of group `gid`; an unknown group sends nothing."""
        self._replicate(ps, self.mc_groups.get(gid, []), depth, truncate)

    def _replicate(
        self, ps: _Pass, targets: list[tuple[int, int]], depth: int, truncate: int
    ) -> None:
        """One instance per (port, rid) target. The callers never read `ps` afterwards, so
        the last target takes `ps` itself and only the others are copies (each copy is
        made before any instance runs egress, which changes its headers)."""
        last = len(targets) - 1
        for i, (eport, rid) in enumerate(targets):
            if i == last:
                ps.std.egress_rid = rid
                self._enqueue(eport, ps, depth, truncate)
            else:
                self._enqueue(eport, ps.replica(rid), depth, truncate)

    def _clone_i2e(self, ps: _Pass, req: tuple[str, int, int | None], depth: int) -> None:
        """I2E clone: the packet as received, parsed again (with the original ingress
        port, since parsers may branch on it); then, as in BMv2, all metadata, including
        what the parser wrote and `ingress_port`, is zeroed except the field list, whose
        values are those at the end of ingress. To the session's port and/or group."""
        _ctype, sid, fl = req
        session = self.clone_sessions.get(sid)
        if session is None:
            return
        kept = self._preserve(ps.meta, fl)
        length = len(ps.original)
        c = self._new_pass(NORMAL, ps.port, ps.original, None)
        self.ctx.reset(c.std, length)
        self._parse(c)
        self._reset_metadata(c, INGRESS_CLONE, length, kept)
        self._send_clone(c, session, depth)

    def _send_clone(self, c: _Pass, session: CloneSession, depth: int) -> None:
        """To the session's multicast group's replicas, then to its own replicas."""
        targets = session.replicas
        if session.mgid:
            targets = [*self.mc_groups.get(session.mgid, ()), *targets]
        self._replicate(c, targets, depth, session.packet_length)

    def _egress(self, eport: int, ps: _Pass, depth: int, truncate: int = 0) -> None:
        """BMv2's egress thread: egress (egress_spec starts at 512, so only mark_to_drop
        drops), E2E clone, drop check, computeChecksum, deparse, recirculate or output."""
        ctx = self.ctx
        std = ps.std
        hdr = ps.hdr
        std.egress_port = eport
        std.egress_spec = DROP_PORT + 1
        std.egress_global_timestamp = self._now_us() & 0xFFFFFFFFFFFF
        if ctx.requested:  # ctx.reset, written out as in _ingress
            ctx.reset(std, std.packet_length)
        else:
            ctx.dirty = False
            ctx.std = std
            ctx.packet_length = std.packet_length
        ctx.payload = payload = ps.payload
        try:
            self._egress_block(hdr, ps.meta, std)
        except _ExitSignal:
            pass
        if ctx.dirty:
            ps.dirty = True
        recirc: int | None | bool = False
        deparsed = False  # the headers were reset as they were deparsed
        trunc = ps.truncate
        e2e = None
        if ctx.requested:
            clone, recirc = ctx.clone_request, ctx.recirculate_request
            if ctx.truncate_to is not None:
                trunc = ctx.truncate_to
            # the E2E clone copies the headers as egress left them (before
            # computeChecksum) and is queued after the original leaves
            if clone is not None:
                e2e = self._clone_e2e(ps, clone, depth)
        if std.egress_spec == DROP_PORT:
            self.dropped += 1
            if self.tracing:
                self.trace("drop", "egress", "egress_spec is the drop port (511)")
        else:
            ctx.payload = payload
            try:
                self._compute(hdr, ps.meta)
            except _ExitSignal:
                pass
            buf = bytearray()
            if self._deparse_reset is None:
                self._deparser(buf, hdr)
            else:
                self._deparse_reset(buf, hdr)
                deparsed = True
            if ctx.dirty:
                ps.dirty = True
            data = b"".join((buf, payload))
            if trunc is not None:
                data = data[:trunc]
            if truncate:
                data = data[:truncate]
            if recirc is not False:
                kept = self._preserve(ps.meta, recirc)
                self._ingress(ps.port, data, RECIRC, kept, depth + 1)
            else:
                self._emit(eport, data)
                if self.tracing:
                    self.trace("output", f"port {eport}", f"{len(data)} bytes")
        self._recycle(ps, deparsed)
        if e2e is not None:
            self._send_clone(e2e[0], e2e[1], depth + 1)

    def _recycle(self, ps: _Pass, deparsed: bool = False) -> None:
        """Keep the structs of a finished pass for the next packets (once: a pass whose
        structs went back is marked by `hdr` None). Nothing outside the pass holds them:
        the generated code copies any struct value it stores (digests, assignments).
        `deparsed`: `_deparse_reset` deparsed the headers and left them as `_reset_valid`
        does."""
        if self._recycling and ps.hdr is not None and len(self._spare) < SPARE_STRUCTS:
            hdr, meta, std = ps.hdr, ps.meta, ps.std
            ps.hdr = None
            if ps.dirty:
                hdr._reset()
            elif not deparsed:
                hdr._reset_valid()
            meta._reset()
            std._reset()
            self._spare.append((hdr, meta, std))

    def _clone_e2e(
        self, ps: _Pass, req: tuple[str, int, int | None], depth: int
    ) -> tuple[_Pass, CloneSession] | None:
        """E2E clone: headers as egress left them, metadata zero except the field list."""
        session = self.clone_sessions.get(req[1])
        if session is None or depth > MAX_PASSES:
            return None
        meta, std = self._M(), self._S()
        for f, v in self._preserve(ps.meta, req[2]).items():
            setattr(meta, f, v)
        std.packet_length = ps.std.packet_length
        std.instance_type = EGRESS_CLONE
        c = _Pass(ps.hdr._copy(), meta, std, ps.payload, ps.original, None, ps.port)
        return c, session

    # ------------------------------------------------------------ field lists
    def _collect_field_lists(self) -> dict[int, list[str]]:
        """`@field_list(N)` annotations on user-metadata fields -> {N: [python attrs]}."""
        lists: dict[int, list[str]] = {}
        mcls = self.pipe["M"]
        mname = getattr(mcls, "_p4name", None)
        annots = self.program.field_annotations.get(mname or "", {})
        for fname, fa in annots.items():
            for aname, body in fa:
                if aname == "field_list":
                    for part in body.split(","):
                        try:
                            lists.setdefault(int(part.strip(), 0), []).append(field_py(fname))
                        except ValueError:
                            continue
        return lists

    def _preserve(self, meta: Any, fl: int | None | bool) -> dict[str, Any]:
        if fl is None or fl is False or fl is True:
            return {}
        preserve = self._preservers.get(int(fl))
        return {} if preserve is None else preserve(meta)


def _no_trace(kind: str, name: str, detail: Any = None) -> None:
    """Tracing off: the generated code has no trace calls; the switch's own are no-ops."""


def _fields(h: Any) -> list[tuple[str, str]]:
    return [(f, field_py(f)) for f in h._fields]


def _copy_value(v: Any) -> Any:
    return v._copy() if hasattr(v, "_copy") else v


def _preserver(meta: Any, names: list[str]) -> Callable[[Any], dict[str, Any]]:
    """`Switch._preserve` for one field list: its fields' values read from user
    metadata in one call, copies of the struct-valued ones. A field holds a value of its
    type for good, so which fields need copying is known from any instance (`meta`);
    asking each value (`_copy_value`) would fail a `hasattr` per bit field per clone."""
    keys = tuple(names)
    structs = tuple(f for f in keys if hasattr(getattr(meta, f), "_copy"))
    get = attrgetter(*keys)  # one key: its value; more: a tuple of their values
    one = len(keys) == 1

    def preserve(m: Any) -> dict[str, Any]:
        got = get(m)
        kept: dict[str, Any] = {keys[0]: got} if one else dict(zip(keys, got, strict=False))
        for f in structs:
            kept[f] = kept[f]._copy()
        return kept

    return preserve


def _width(t: Any) -> tuple[int, bool]:
    from ..frontend import types as T

    t0 = T.strip_newtype(t)
    if isinstance(t0, T.BitType):
        return t0.width, t0.signed
    return T.width_of(t0), False


__all__ = ["CloneSession", "Digest", "Output", "Switch", "field"]
