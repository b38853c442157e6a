"""A host: one NIC on one switch port, the senders and receivers of its flows.

The NIC sends one packet at a time at its wire's rate: acknowledgements (and CNPs) first,
then pulls of receiver-driven flows, paced at one per full data packet time of the host's
link (so what they bring back is what the link can take), then data from the flows whose
window (or pulls) and pacing allow, in turn. A PAUSE from the switch stops it.
A host in a PFC storm (`storm_from_ns`) keeps its switch paused from then on and takes in
nothing (a stuck receiver).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from .events import EventLoop
from .frames import ACK_LEN, AETH_NAK, AETH_PULL, OP_ACK, OP_CNP, OP_DATA, OP_PROBE
from .int_echo import decode_hops
from .links import Wire
from .receivers import Receiver
from .sender import Sender

__all__ = ["HostNode"]


class HostNode:
    __slots__ = (
        "acks_lost",
        "cnps_ignored",
        "ctrl",
        "dropped",
        "loop",
        "name",
        "nic_free",
        "on_complete",
        "on_probe",
        "pause_ns",
        "paused",
        "paused_since",
        "peer",
        "pull_gap_ns",
        "pull_next",
        "pull_q",
        "pulls_sent",
        "received",
        "receivers",
        "rr",
        "senders",
        "storm",
        "timer_at",
        "trim_dscp",
        "tx_at",
        "wire",
    )

    def __init__(self, name: str, loop: EventLoop, trim_dscp: int) -> None:
        self.name = name
        self.loop = loop
        self.trim_dscp = trim_dscp
        self.wire: Wire | None = None
        self.peer: Any = None  # (switch node, its port) for PAUSE frames
        self.senders: dict[int, Sender] = {}  # by the QP its ACKs/CNPs carry
        self.receivers: dict[int, Receiver] = {}  # by data QP
        self.rr: deque[Sender] = deque()
        self.ctrl: deque[bytes] = deque()
        self.pull_q: deque[Receiver] = deque()  # one entry per pull owed
        self.pull_gap_ns = 0
        self.pull_next = 0
        self.pulls_sent = 0
        self.nic_free = 0
        self.tx_at: int | None = None
        self.timer_at: int | None = None
        self.paused = False
        self.paused_since = 0
        self.pause_ns = 0
        self.storm = False
        self.dropped = 0
        self.cnps_ignored = 0
        self.acks_lost = 0
        self.received = 0
        self.on_probe: Callable[[bytes, int], None] | None = None  # fabricsim.probes
        self.on_complete: Callable[[int, int], None] | None = None

    # ------------------------------------------------------------ flows
    def start_sender(self, s: Sender) -> None:
        self.senders[s.frames.ack_qp] = s
        s.last_progress = self.loop.clock.ns
        self.rr.append(s)
        self._kick()
        self._arm_timer()

    def add_receiver(self, r: Receiver) -> None:
        self.receivers[r.frames.data_qp] = r

    # ------------------------------------------------------------ receive
    def receive(self, arg: tuple[int, bytes]) -> None:
        data = arg[1]
        self.received += 1
        if self.storm:
            self.dropped += 1
            return
        now = self.loop.clock.ns
        op = data[42]
        qp = int.from_bytes(data[47:50], "big")
        if op == OP_DATA:
            r = self.receivers.get(qp)
            if r is None:
                self.dropped += 1
                return
            tos = data[15]
            psn = int.from_bytes(data[51:54], "big")
            was_complete = r.complete
            frames = r.deliver(psn, (tos & 3) == 3, (tos >> 2) == self.trim_dscp, now)
            if r.wants_pull():
                self.pull_q.append(r)
            if frames:
                self.ctrl.extend(frames)
                self._kick()
            elif r.pulls:
                self._kick()
            if r.complete and not was_complete and self.on_complete is not None:
                self.on_complete(r.fid, now)
        elif op == OP_ACK:
            s = self.senders.get(qp)
            if s is None or len(data) < 58:
                self.acks_lost += s is not None  # a trimmed ACK carries no AETH
                return
            cum = int.from_bytes(data[51:54], "big")
            sack = int.from_bytes(data[55:58], "big")
            if data[54] == AETH_PULL:
                s.on_pull(cum, sack, now)
            elif len(data) > ACK_LEN:  # INT records echoed (fabricsim.int_echo)
                hops = decode_hops(data[58:-4])
                s.on_ack(cum, sack, data[54] == AETH_NAK, bool(data[46] & 0x40), now, hops)
            else:
                s.on_ack(cum, sack, data[54] == AETH_NAK, bool(data[46] & 0x40), now)
            if s.done:
                self._retire(s)
            self._kick()
        elif op == OP_PROBE and self.on_probe is not None:
            self.on_probe(data, now)
        elif op == OP_CNP:
            s = self.senders.get(qp ^ 1)
            if s is None or qp & 1 == 0:
                self.cnps_ignored += 1
                return
            s.on_cnp(now)
        else:
            self.dropped += 1

    def _retire(self, s: Sender) -> None:
        try:
            self.rr.remove(s)
        except ValueError:
            pass

    # ------------------------------------------------------------ transmit
    def _kick(self) -> None:
        now = self.loop.clock.ns
        t = self.nic_free if self.nic_free > now else now
        if self.tx_at is None or t < self.tx_at:
            self.tx_at = t
            self.loop.at(t, self._tx, t)

    def _tx(self, t: int) -> None:
        if self.tx_at != t:
            return
        self.tx_at = None
        if self.paused or self.wire is None:
            return
        now = self.loop.clock.ns
        if now < self.nic_free:
            self._kick()
            return
        frame = None
        pull_wait = None
        if self.ctrl:
            frame = self.ctrl.popleft()
        elif self.pull_q and now >= self.pull_next:
            r = self.pull_q.popleft()
            while self.pull_q and r.complete:
                r = self.pull_q.popleft()
            if not r.complete:
                frame = r.next_pull()
                self.pulls_sent += 1
                # the pacer keeps its schedule: a pull sent late (the NIC was busy with a
                # frame) does not push the next one back, unless the pacer sat idle
                nxt = self.pull_next + self.pull_gap_ns
                self.pull_next = nxt if nxt > now else now + self.pull_gap_ns
        elif self.pull_q:
            pull_wait = self.pull_next
        if frame is None and not self.ctrl:
            rr = self.rr
            wait = None
            for _ in range(len(rr)):
                s = rr[0]
                rr.rotate(-1)
                if not s.has_data() or not s.window_open():
                    continue
                if s.next_send > now:
                    if wait is None or s.next_send < wait:
                        wait = s.next_send
                    continue
                frame = s.take(now)
                break
            if frame is None:
                if pull_wait is not None and (wait is None or pull_wait < wait):
                    wait = pull_wait
                if wait is not None:
                    self.tx_at = wait
                    self.loop.at(wait, self._tx, wait)
                return
        if frame is None:
            return
        self.nic_free = now + self.wire.send(frame)
        self.tx_at = self.nic_free
        self.loop.at(self.nic_free, self._tx, self.nic_free)

    # ------------------------------------------------------------ timers
    def _arm_timer(self) -> None:
        if self.timer_at is not None or not self.rr:
            return
        rto = min(s.rto_ns for s in self.rr)
        self.timer_at = self.loop.clock.ns + rto // 4
        self.loop.at(self.timer_at, self._timer, self.timer_at)

    def _timer(self, t: int) -> None:
        self.timer_at = None
        now = self.loop.clock.ns
        fired = False
        for s in list(self.rr):
            if s.done:
                self._retire(s)
            elif s.on_timeout(now):
                fired = True
        if fired:
            self._kick()
        self._arm_timer()

    # ------------------------------------------------------------ PFC
    def on_pause(self, arg: tuple[int, bool]) -> None:
        on = arg[1]
        now = self.loop.clock.ns
        if on and not self.paused:
            self.paused = True
            self.paused_since = now
        elif not on and self.paused:
            self.paused = False
            self.pause_ns += now - self.paused_since
            self._kick()

    def start_storm(self, _arg: Any = None) -> None:
        """Become a stuck receiver: pause the switch for good and take in nothing."""
        self.storm = True
        if self.peer is not None and self.wire is not None:
            node, port = self.peer
            self.loop.at(self.loop.clock.ns + self.wire.delay_ns, node.on_pause, (port, True))

    def close_pauses(self, now: int) -> None:
        if self.paused:
            self.pause_ns += now - self.paused_since
            self.paused_since = now
