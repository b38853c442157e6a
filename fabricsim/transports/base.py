"""What every transport implements, and what it is told about the path.

A transport here is the congestion-control half of a RoCE-style sender: the reliability
half (PSNs, retransmission queue, go-back-N or selective repeat) is `fabricsim.sender`.
The sender asks its transport two things before each packet, `window` (packets allowed in
flight; `math.inf` for a purely rate-based one) and `rate_bps` (the pacing rate), and
tells it what happened: a packet sent, an ACK (with the CE echo, the RTT sample and the
INT hop records the receiver echoed), a CNP, a NACK, a timeout.

A receiver-driven transport (`pull_driven`) sends its first window unasked and then one
packet per PULL the receiver sends; its receiver paces those pulls (`fabricsim.hostnode`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["CongestionControl", "IntHop", "PathInfo", "Unreactive"]


@dataclass(slots=True, frozen=True)
class PathInfo:
    """What a sender knows when its flow starts (as a NIC is configured with it)."""

    line_rate_bps: float
    base_rtt_ns: int  # unloaded round trip of a full packet and its ACK
    packet_bytes: int  # a full data packet on the wire

    @property
    def bdp_packets(self) -> float:
        """The bandwidth-delay product in full packets (at least one)."""
        return max(1.0, self.line_rate_bps * self.base_rtt_ns / 1e9 / (8 * self.packet_bytes))


@dataclass(slots=True, frozen=True)
class IntHop:
    """One hop's INT-MD record as the receiver echoed it: queue occupancy (packets, as
    fabric.p4 stamps it), bytes the egress port had sent, the egress timestamp (ns) and
    the port's rate."""

    qlen_pkts: int
    tx_bytes: int
    ts_ns: int
    rate_bps: float


class CongestionControl(Protocol):
    """One flow's congestion controller (see the module docstring)."""

    name: str
    pull_driven: bool
    initial_credits: float  # pull-driven: packets sent before the first pull
    control_in_header_class: bool  # ACKs/NACKs/pulls carry the trim DSCP (high priority)
    notification_interval_ns: int | None  # a DCQCN receiver's CNP pacing (None: no CNPs)

    def window(self) -> float: ...

    def rate_bps(self, now: int) -> float: ...

    def on_send(self, now: int, nbytes: int) -> None: ...

    def on_ack(
        self, now: int, acked: int, ece: bool, rtt_ns: int | None, hops: Sequence[IntHop]
    ) -> None: ...

    def on_cnp(self, now: int) -> None: ...

    def on_nack(self, now: int) -> None: ...

    def on_timeout(self, now: int) -> None: ...


class Unreactive:
    """A transport's defaults: window-driven from the first packet, control packets in the
    data's class, no CNPs, and every event ignored; a transport overrides what it reacts to."""

    pull_driven = False
    control_in_header_class = False
    initial_credits = 0.0
    notification_interval_ns: int | None = None

    def on_send(self, now: int, nbytes: int) -> None:
        pass

    def on_ack(
        self, now: int, acked: int, ece: bool, rtt_ns: int | None, hops: Sequence[IntHop]
    ) -> None:
        pass

    def on_cnp(self, now: int) -> None:
        pass

    def on_nack(self, now: int) -> None:
        pass

    def on_timeout(self, now: int) -> None:
        pass


class FixedWindow(Unreactive):
    """No congestion control: a window of `window_pkts` at line rate (the baseline)."""

    name = "none"

    def __init__(self, path: PathInfo, window_pkts: float | None = None) -> None:
        self.path = path
        self.cwnd = window_pkts if window_pkts is not None else math.ceil(path.bdp_packets) + 1

    def window(self) -> float:
        return self.cwnd

    def rate_bps(self, now: int) -> float:
        return self.path.line_rate_bps
