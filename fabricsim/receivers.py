"""Receivers: what a NIC does with a packet that arrives out of order.

- `tolerant` (direct placement, as NICs that write each packet where it belongs): every
  packet is kept, however far ahead of the next expected one.
- `selective` (IRN / UET style): a bitmap of `window` packets from the next expected PSN;
  a packet beyond it is dropped and NACKed (the sender sends it again), one inside it is
  kept.
- `go_back_n` (RoCE NICs without out-of-order placement): only the expected PSN is kept;
  after a gap one NACK asks for the expected PSN and the sender goes back to it.

Every data packet is acknowledged with the cumulative PSN and its own PSN; a trimmed one
(its payload cut by a switch) is NACKed. Per flow the receiver counts what the run
reports: packets out of order, their reorder distance, how many it holds out of order
after each arrival (the reorder window's occupancy, as a histogram), packets dropped for
falling outside the window, and duplicates (a retransmission of something it already
had: a spurious retransmission).

Transport hooks: for a receiver-driven transport (`pulls`) each arrival, data or trimmed
header, earns the flow one pull while it is incomplete (the host paces them); as a DCQCN
notification point (`np_interval_ns`) a CE-marked packet makes a CNP, at most one per
flow per interval; for a transport that reads INT, the records `fabricsim.int_echo` files
under a PSN (`echo`) go into the ACK of the packet that carried them.
"""

from __future__ import annotations

from .frames import FlowFrames

__all__ = ["RECEIVERS", "Receiver"]

RECEIVERS = ("tolerant", "selective", "go_back_n")
ALIASES = {"in_order": "go_back_n"}


class Receiver:
    """One flow's receiving side; `deliver` returns the frames to send back (ACK/NACK,
    and a CNP when it is a notification point)."""

    __slots__ = (
        "arrivals",
        "ce",
        "complete",
        "duplicates",
        "expected",
        "fid",
        "frames",
        "got",
        "got_count",
        "held",
        "kind",
        "last_cnp",
        "max_psn",
        "nak_for",
        "np_interval_ns",
        "npkts",
        "occupancy",
        "ooo",
        "outside_window",
        "pull_no",
        "pulls",
        "reorder_dist",
        "trimmed",
        "window",
        "cnps_sent",
        "echo",
    )

    def __init__(
        self,
        fid: int,
        npkts: int,
        frames: FlowFrames,
        kind: str = "tolerant",
        *,
        window: int | None = None,
        pulls: bool = False,
        np_interval_ns: int | None = None,
    ) -> None:
        kind = ALIASES.get(kind, kind)
        if kind not in RECEIVERS:
            raise ValueError(f"receiver {kind!r}: one of {', '.join(RECEIVERS)}")
        if kind == "selective" and (window is None or window < 1):
            raise ValueError("a selective-repeat receiver needs a window of at least 1 packet")
        self.fid = fid
        self.npkts = npkts
        self.frames = frames
        self.kind = kind
        self.window = window if kind == "selective" else None
        self.got = bytearray(npkts)
        self.got_count = 0
        self.expected = 0
        self.held = 0  # packets kept beyond `expected`
        self.nak_for = -1
        self.max_psn = -1
        self.arrivals = 0
        self.ooo = 0
        self.reorder_dist: list[int] = []
        self.occupancy: dict[int, int] = {}  # held after an arrival -> how often
        self.outside_window = 0
        self.duplicates = 0
        self.ce = 0
        self.trimmed = 0
        self.complete = False
        self.pulls = pulls
        self.pull_no = 0
        self.np_interval_ns = np_interval_ns
        self.last_cnp: int | None = None
        self.cnps_sent = 0
        self.echo: dict[int, bytes] = {}  # PSN -> INT records for its ACK (int_echo)

    @property
    def in_order(self) -> bool:
        return self.kind == "go_back_n"

    def deliver(self, psn: int, ce: bool, trimmed: bool, now: int = 0) -> list[bytes]:
        self.arrivals += 1
        out: list[bytes] = []
        if ce:
            self.ce += 1
            if self.np_interval_ns is not None and (
                self.last_cnp is None or now - self.last_cnp >= self.np_interval_ns
            ):
                self.last_cnp = now
                self.cnps_sent += 1
                out.append(self.frames.cnp())
        if psn < self.max_psn:
            self.ooo += 1
            self.reorder_dist.append(self.max_psn - psn)
        else:
            self.max_psn = psn
        frames = self.frames
        echo = self.echo.pop(psn, b"") if self.echo else b""
        if trimmed:
            self.trimmed += 1
            if self.in_order:
                if psn == self.expected:  # the one we wait for: ask again, every time
                    self.nak_for = -1
                nak = self._nak(ce)
                if nak is not None:
                    out.append(nak)
            else:
                out.append(frames.ack(self.expected, psn, True, ce))
        elif self.in_order:
            if psn == self.expected:
                self.expected += 1
                self.got_count += 1
                if self.expected >= self.npkts:
                    self.complete = True
                out.append(frames.ack(self.expected, psn, False, ce, echo))
            elif psn < self.expected:
                self.duplicates += 1
                out.append(frames.ack(self.expected, psn, False, ce))
            else:
                nak = self._nak(ce)
                if nak is not None:
                    out.append(nak)
        elif self.got[psn]:
            self.duplicates += 1
            out.append(frames.ack(self.expected, psn, False, ce))
        elif self.window is not None and psn >= self.expected + self.window:
            self.outside_window += 1
            out.append(frames.ack(self.expected, psn, True, ce))
        else:
            self.got[psn] = 1
            self.got_count += 1
            if psn == self.expected:
                self.expected += 1
                while self.expected < self.npkts and self.got[self.expected]:
                    self.expected += 1
                    self.held -= 1
            else:
                self.held += 1
            if self.got_count >= self.npkts:
                self.complete = True
            out.append(frames.ack(self.expected, psn, False, ce, echo))
        occ = self.occupancy
        occ[self.held] = occ.get(self.held, 0) + 1
        return out

    def wants_pull(self) -> bool:
        """A receiver-driven flow earns a pull per arrival until it has everything."""
        return self.pulls and not self.complete

    def next_pull(self) -> bytes:
        self.pull_no += 1
        return self.frames.pull(self.expected, self.pull_no)

    def _nak(self, ce: bool) -> bytes | None:
        if self.nak_for == self.expected:
            return None
        self.nak_for = self.expected
        return self.frames.ack(self.expected, self.expected, True, ce)
