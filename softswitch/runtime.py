"""The switch at run time: one `Switch`, its ports, its lock and the threads that move packets.

Two ways to run it:

- live (`start()`, wall clock): one thread per receiving port injects each frame; one
  scheduler thread serves queues that a rate limit keeps busy, calling
  `switch.run_until(now)` when the traffic manager has a packet due.
- driven (`step(until_us)`, usually a `SimClock`): the caller moves time; `step` serves the
  queues up to `until_us`, delivers what leaves and returns it. With a `SimClock`, `step`
  also returns the packets that left at `inject` time (unthrottled ports send at once),
  so a simulator sees every output, with its time, in order.

Every access to the switch holds `lock` (the P4Runtime server takes it too). Frames go out
on ports with the lock held, so the order on each port is the switch's order; CPU
listeners and digest listeners are called after the lock is released, so a listener may
take its own locks, or call back into the runtime, without deadlock. An output to a port
with no `Port` attached is counted (`stats.unattached`) and dropped.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice, repeat
from typing import cast

from .clock import Clock, SimClock, WallClock
from .ports import CpuPort, Port, PortClosed
from .program_info import CompiledProgram
from .v1model.switch import Digest, Output, Switch

__all__ = ["RuntimeStats", "SwitchRuntime"]

log = logging.getLogger("softswitch.runtime")
_PENDING_MAX = 1 << 20  # driven-mode outputs kept for the next step() call
_IDLE_WAIT_S = 0.5  # the scheduler rechecks this often even when nothing wakes it
_BURST = 64  # frames a receive thread takes from a port at once


@dataclass(slots=True)
class RuntimeStats:
    rx: int = 0  # frames injected
    tx: int = 0  # frames handed to ports (and CPU listeners)
    unattached: int = 0  # outputs to a port with no Port attached
    tx_errors: int = 0  # a port refused a frame (e.g. larger than the interface MTU)
    no_pipeline: int = 0  # frames that arrived before a program was loaded
    errors: int = 0  # frames whose processing raised


class SwitchRuntime:
    """Owns one `Switch` (None until a pipeline is set), its ports and the packet threads."""

    def __init__(
        self,
        *,
        device_id: int = 0,
        cpu_port: int | None = None,
        clock: Clock | None = None,
        seed: int = 0,
        log_console: bool = False,
        priority_queues: int = 1,
        queue_depth: int | None = None,
        queue_rate_pps: float | None = None,
        queue_rate_bps: float | None = None,
        name: str | None = None,
        queueing: str = "shared",
    ) -> None:
        if queueing not in ("shared", "bmv2"):
            raise ValueError(f"queueing {queueing!r}: shared or bmv2")
        self.queueing = queueing  # how a port serves its priority queues (v1model/tm.py)
        self.lock = threading.RLock()
        self.name = name if name is not None else f"device {device_id}"  # in data-path logs
        self.switch: Switch | None = None
        self.cpu_port = cpu_port
        self.device_id = device_id
        self.clock: Clock = clock if clock is not None else WallClock()
        self.seed = seed
        self.log_console = log_console
        self.priority_queues = priority_queues
        self.queue_depth = queue_depth
        self.queue_rate_pps = queue_rate_pps
        self.queue_rate_bps = queue_rate_bps
        self.ports: dict[int, Port] = {}
        self.stats = RuntimeStats()
        self._cpu = CpuPort()
        self._digest_listeners: list[Callable[[Digest], None]] = []
        self._wake = threading.Condition(self.lock)
        self._running = False
        self._receive_threads = True
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._driven = isinstance(self.clock, SimClock)
        self._pending: deque[Output] = deque(maxlen=_PENDING_MAX)
        self._queue_settings: list[tuple[str, int | None, int | None, object]] = []
        # how each port takes a frame: `send_later` where it has one (sent at its `flush`)
        self._senders: dict[int, Callable[[bytes], object]] = {}
        # ports that buffer output (pcap files, transmit rings): called after every batch;
        # a flush may return how many frames the port refused
        self._flushes: list[Callable[[], int | None]] = []
        # frames sent to the CPU port, for its listeners once the lock is released
        self._cpu_out: list[bytes] = []

    # ------------------------------------------------------------ pipeline
    def load(self, compiled: CompiledProgram) -> Switch:
        """Build a Switch for `compiled` with the runtime's settings and make it current.
        Packets queued in the previous switch are dropped with it."""
        sw = Switch(
            compiled,
            seed=self.seed,
            clock=self.clock,
            log_console=self.log_console,
            cpu_port=self.cpu_port,
            trace=self.log_console,
            priority_queues=self.priority_queues,
            device=self.name,
        )
        sw.tm.set_queueing(self.queueing)
        if self.queue_depth is not None:
            sw.tm.set_depth(self.queue_depth)
        if self.queue_rate_pps is not None or self.queue_rate_bps is not None:
            sw.tm.set_rate(pps=self.queue_rate_pps, bps=self.queue_rate_bps)
        with self.lock:
            self._apply_queue_settings(sw)
            self.switch = sw
            self._wake.notify_all()
        return sw

    def load_device_config(self, data: bytes) -> Switch:
        """Compile a device config (`softswitch compile -o`, P4Runtime's p4_device_config)
        with tracing when the runtime logs to the console, and load it."""
        from .device_config import load_device_config

        return self.load(load_device_config(data, trace=self.log_console))

    # ------------------------------------------------------------ queues (like simple_switch_CLI)
    def set_queue_rate(
        self,
        port: int | None = None,
        *,
        pps: float | None = None,
        bps: float | None = None,
        priority: int | None = None,
    ) -> None:
        """Egress service rate of one port (all ports when None) and priority queue (all
        when None), in packets/s or bits/s; both None: unthrottled. With "shared"
        queueing it applies to the packets already queued too, with "bmv2" to those
        queued from now on (v1model/tm.py). Kept across pipeline loads."""
        self._check_priority(priority)
        if (pps is not None and pps <= 0) or (bps is not None and bps <= 0):
            raise ValueError("queue rates must be positive")
        with self.lock:
            if self.switch is not None:
                self.switch.tm.set_rate(port=port, pps=pps, bps=bps, priority=priority)
            self._record_queue_setting(("rate", port, priority, (pps, bps)))
            self._wake.notify_all()

    def set_queue_depth(
        self, depth: int, port: int | None = None, priority: int | None = None
    ) -> None:
        """Egress queue depth in packets of one port (all ports when None) and priority
        queue (all when None). Kept across pipeline loads."""
        self._check_priority(priority)
        if depth < 1:
            raise ValueError("queue depth must be at least 1 packet")
        with self.lock:
            if self.switch is not None:
                self.switch.tm.set_depth(depth, port=port, priority=priority)
            self._record_queue_setting(("depth", port, priority, depth))

    def _check_priority(self, priority: int | None) -> None:
        if priority is not None and not 0 <= priority < self.priority_queues:
            raise ValueError(
                f"priority {priority} out of range: this switch has {self.priority_queues} "
                f"queue(s) per port (0..{self.priority_queues - 1}; --priority-queues N)"
            )

    def queue_occupancy(self, port: int, priority: int = 0) -> int:
        """Packets waiting in a port's queue now."""
        with self.lock:
            return self.switch.tm.occupancy(port, priority) if self.switch is not None else 0

    def _record_queue_setting(self, setting: tuple[str, int | None, int | None, object]) -> None:
        """Keep `setting` for the next loads; an earlier one for the same queues is
        dropped (this one overwrites all it did), so the list stays short however often
        a rate is changed."""
        self._queue_settings = [s for s in self._queue_settings if s[:3] != setting[:3]]
        self._queue_settings.append(setting)

    def _apply_queue_settings(self, sw: Switch) -> None:
        for kind, port, priority, value in self._queue_settings:
            if kind == "rate":
                pps, bps = cast("tuple[float | None, float | None]", value)
                sw.tm.set_rate(port=port, pps=pps, bps=bps, priority=priority)
            else:
                sw.tm.set_depth(cast(int, value), port=port, priority=priority)

    # ------------------------------------------------------------ ports and listeners
    def add_port(self, port_no: int, port: Port) -> None:
        """Attach `port` as switch port `port_no` (replacing and closing any before it)."""
        if not 0 <= port_no < 511:
            raise ValueError(f"port {port_no} out of range (0..510; 511 is the drop port)")
        with self.lock:
            old = self.ports.get(port_no)
            self.ports[port_no] = port
            self._senders[port_no] = getattr(port, "send_later", port.send)
            self._flushes = [f for p in self.ports.values() if (f := getattr(p, "flush", None))]
            running = self._running
        if old is not None and old is not port:
            old.close()
        if running and self._receive_threads:
            self._start_rx(port_no, port)

    def add_cpu_listener(self, cb: Callable[[bytes], None]) -> None:
        """`cb(frame)` for every frame the switch sends to `cpu_port` (outside the lock)."""
        self._cpu.add_listener(cb)

    def add_digest_listener(self, cb: Callable[[Digest], None]) -> None:
        """`cb(digest)` for every digest a packet produces (outside the lock)."""
        self._digest_listeners.append(cb)

    # ------------------------------------------------------------ packets
    def inject(self, port: int, data: bytes) -> None:
        """A frame arrives on `port` now (thread-safe; also P4Runtime packet-out, with the
        CPU port as `port`). What leaves at once is delivered before this returns."""
        with self.lock:
            sw = self.switch
            if sw is None:
                self.stats.no_pipeline += 1
                return
            self.stats.rx += 1
            try:
                outs = sw.receive(port, data)
            except Exception:
                self.stats.errors += 1
                log.exception("port %d: processing a %d-byte frame failed", port, len(data))
                outs = []
            cpu, digests = self._deliver(sw, outs)
            if self._running and sw.tm.configured and sw.tm.next_time() is not None:
                self._wake.notify()
        if cpu or digests:
            self._notify(cpu, digests)

    def inject_many(self, frames: Iterable[tuple[int, bytes]], chunk: int = 64) -> int:
        """`inject` for a stream of (port, frame) pairs, in order; returns how many were
        taken. The lock is taken once per `chunk` frames (a replay or a burst from a port
        pays one lock hand-off per chunk, and P4Runtime waits at most one chunk); what the
        chunk sends goes to the ports at its end, and CPU and digest listeners are called
        after it, outside the lock."""
        it = iter(frames)
        taken = 0
        while batch := list(islice(it, chunk)):
            taken += len(batch)
            self._run_batch(batch, len(batch))
        return taken

    def _run_batch(self, batch: Iterable[tuple[int, bytes]], count: int) -> None:
        """Inject `count` (port, frame) pairs under one hold of the lock."""
        stats = self.stats
        with self.lock:
            sw = self.switch
            if sw is None:
                stats.no_pipeline += count
                return
            # frames taken together arrived together: one reading of the clock for all
            # (not when a rate-limited queue needs the time as each packet arrives), and
            # their ingress passes run before their egress passes (Switch.receive_batch)
            hold = not self._driven and not sw.tm.configured
            if hold:
                sw.hold_time()
            # live: each frame goes to its port's sender the moment the switch sends it
            # (driven runs keep every Output for `step`)
            if not self._driven:
                sw.set_output(self._to_port)
            try:
                outs = sw.receive_batch(batch, self._failed)
            finally:
                if hold:
                    sw.release_time()
                if not self._driven:
                    sw.set_output(None)
            stats.rx += count
            cpu, digests = self._deliver(sw, outs)
            if self._running and sw.tm.configured and sw.tm.next_time() is not None:
                self._wake.notify()
        if cpu or digests:
            self._notify(cpu, digests)

    def _failed(self, port: int, data: bytes, e: Exception) -> None:
        """A frame whose processing raised: counted and logged, the batch goes on."""
        self.stats.errors += 1
        log.error(
            "port %d: processing a %d-byte frame failed",
            port,
            len(data),
            exc_info=e,
        )

    def step(self, until_us: float) -> list[Output]:
        """Driven mode: serve the queues up to `until_us` (a SimClock moves there), deliver
        the outputs and return them (with a SimClock, also those sent since the last step)."""
        with self.lock:
            sw = self.switch
            if sw is None:
                return []
            outs = sw.run_until(until_us)
            cpu, digests = self._deliver(sw, outs)
            if self._driven:
                result = list(self._pending)
                self._pending.clear()
            else:
                result = outs
        self._notify(cpu, digests)
        return result

    def _deliver(self, sw: Switch, outs: list[Output]) -> tuple[list[bytes], list[Digest]]:
        """Hand outputs to their ports and flush the ports (lock held); return CPU frames
        and digests for the listeners, to be called once the lock is released."""
        stats = self.stats
        if self._driven:
            self._pending.extend(outs)
        for o in outs:
            self._to_port(o.port, o.data)
        for flush in self._flushes:
            try:
                refused = flush()
            except OSError as e:
                log.warning("writing a port's output failed: %s", e)
                continue
            if refused:
                stats.tx -= refused
                stats.tx_errors += refused
                log.debug("a port refused %d frames", refused)
        cpu, self._cpu_out = self._cpu_out, []
        digests = sw.digests
        if digests:
            sw.digests = []
        return cpu, digests

    def _to_port(self, port: int, data: bytes) -> None:
        """One frame the switch sent (lock held), counted: to its port's sender; a frame
        for the CPU port is kept for its listeners too. In a live batch the switch calls
        this the moment it sends the frame (`Switch.set_output`)."""
        send = self._senders.get(port)
        if port == self.cpu_port:
            self._cpu_out.append(data)
            if send is None:
                self.stats.tx += 1
                return
        elif send is None:
            self.stats.unattached += 1
            return
        try:
            send(data)
            self.stats.tx += 1
        except OSError as e:
            self.stats.tx_errors += 1
            log.debug("port %d: send failed: %s", port, e)

    def _notify(self, cpu: list[bytes], digests: list[Digest]) -> None:
        for frame in cpu:
            self._cpu.send(frame)
        for d in digests:
            for cb in list(self._digest_listeners):
                try:
                    cb(d)
                except Exception:
                    log.exception("digest listener %r failed", cb)

    # ------------------------------------------------------------ live mode
    def start(self, receive: bool = True) -> None:
        """Live mode: a receive thread per port (unless `receive` is False: someone else
        injects what the ports receive, e.g. a chassis's `UdpReceiver`) and the queue
        scheduler."""
        with self.lock:
            if self._running:
                return
            self._running = True
            self._receive_threads = receive
            self._stopping.clear()
            ports = list(self.ports.items())
        t = threading.Thread(target=self._schedule, name="softswitch-tm", daemon=True)
        self._threads.append(t)
        t.start()
        if receive:
            for port_no, port in ports:
                self._start_rx(port_no, port)

    def _start_rx(self, port_no: int, port: Port) -> None:
        t = threading.Thread(
            target=self._receive, args=(port_no, port), name=f"softswitch-rx{port_no}", daemon=True
        )
        self._threads.append(t)
        t.start()

    def _receive(self, port_no: int, port: Port) -> None:
        """One port's receive loop. A port with `recv_burst` (AF_PACKET) hands over what
        has queued up since the last call, injected under one hold of the lock."""
        stopping = self._stopping
        inject = self.inject
        burst = getattr(port, "recv_burst", None)
        while not stopping.is_set():
            try:
                if burst is not None:
                    frames = burst(0.25, _BURST)
                    if frames and self.ports.get(port_no) is port:
                        self._run_batch(zip(repeat(port_no), frames), len(frames))
                    continue
                data = port.recv(0.25)
            except PortClosed:
                return
            except OSError as e:
                if stopping.is_set():
                    return
                log.warning("port %d: receive failed: %s", port_no, e)
                stopping.wait(0.1)
                continue
            if data is not None and self.ports.get(port_no) is port:
                inject(port_no, data)

    def _schedule(self) -> None:
        """Serve rate-limited queues: sleep until the traffic manager's next packet is due."""
        while True:
            with self.lock:
                if self._stopping.is_set():
                    return
                sw = self.switch
                t = sw.tm.next_time() if sw is not None else None
                if sw is None or t is None:
                    self._wake.wait(_IDLE_WAIT_S)
                    continue
                now = self.clock.now_us()
                if t > now:
                    self._wake.wait(min((t - now) / 1e6, _IDLE_WAIT_S))
                    continue
                try:
                    outs = sw.run_until(now)
                except Exception:
                    self.stats.errors += 1
                    log.exception("serving the queues failed")
                    outs = []
                cpu, digests = self._deliver(sw, outs)
            self._notify(cpu, digests)

    def stop(self) -> None:
        """Stop the threads and close the ports (pcap outputs are complete afterwards)."""
        with self.lock:
            self._stopping.set()
            self._running = False
            self._wake.notify_all()
            ports = list(self.ports.values())
        for p in ports:
            try:
                p.close()
            except OSError as e:
                log.warning("closing a port failed: %s", e)
        current = threading.current_thread()
        for t in self._threads:
            if t is not current:
                t.join(timeout=2.0)
        self._threads = [t for t in self._threads if t.is_alive()]

    def __enter__(self) -> SwitchRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
