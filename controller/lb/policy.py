"""The load-balancing policy of a fabric, as typed values (no P4 names here).

A `Policy` holds the fabric-wide group mode, per-group overrides and the congestion and
telemetry knobs; `encode.py` turns it into fabric.p4's table entries. Every value is
checked when the object is made (ranges that depend on the program's field widths are
checked against the P4Info when encoding).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

__all__ = [
    "INT_INSTRUCTIONS",
    "MODES",
    "MODE_ALIASES",
    "MODE_CHOICES",
    "MODE_LABELS",
    "SPRAY_KINDS",
    "Cnp",
    "EcnRed",
    "EcnStep",
    "GroupMode",
    "IntCollector",
    "IntPolicy",
    "IntWatch",
    "Policy",
    "Trim",
    "ModeLabel",
    "instruction_bitmap",
    "mode_label",
]

Mode = Literal["ecmp", "flowlet", "spray", "adaptive"]
SprayKind = Literal["random", "round_robin"]
MODES: tuple[Mode, ...] = ("ecmp", "flowlet", "spray", "adaptive")
SPRAY_KINDS: tuple[SprayKind, ...] = ("random", "round_robin")

# The one list of group-mode labels that commands (`lb set`, `sim run --mode`, `sim sweep
# --modes`, `--lb-mode`), policy files and the simulator's `SimConfig.mode` take: one label
# per mode a group can be in, in the order help texts list them. `GroupMode.parse` turns a
# label into a GroupMode, `mode_label` a GroupMode back into its label.
ModeLabel = Literal["ecmp", "flowlet", "spray", "spray_round_robin", "adaptive", "spray_random"]
MODE_LABELS: tuple[ModeLabel, ...] = ("ecmp", "flowlet", "spray", "spray_round_robin", "adaptive")
# other spellings of the same modes, accepted as well: `spray` is random spraying
MODE_ALIASES: Mapping[ModeLabel, ModeLabel] = MappingProxyType({"spray_random": "spray"})
# what a command line accepts: the labels, then their aliases
MODE_CHOICES: tuple[ModeLabel, ...] = (*MODE_LABELS, *MODE_ALIASES)

# INT-MD instruction bits (bit 0 is the most significant of the 16-bit bitmap; INT v2.1
# section 5.8; docs/fabric.md lists what fabric.p4 pushes for each)
INT_INSTRUCTIONS: Mapping[str, int] = MappingProxyType(
    {
        "switch_id": 0,
        "ports": 1,
        "hop_latency": 2,
        "queue": 3,
        "ingress_timestamp": 4,
        "egress_timestamp": 5,
        "l2_ports": 6,
        "tx_utilization": 7,
        "buffer": 8,
    }
)


def instruction_bitmap(names: tuple[str, ...]) -> int:
    """The 16-bit INT instruction bitmap of instruction names (see INT_INSTRUCTIONS)."""
    bits = 0
    for n in names:
        if n not in INT_INSTRUCTIONS:
            raise ValueError(
                f"unknown INT instruction {n!r} (one of {', '.join(INT_INSTRUCTIONS)})"
            )
        bits |= 1 << (15 - INT_INSTRUCTIONS[n])
    return bits


def _nonneg(what: str, v: int) -> None:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{what}: expected a non-negative integer, got {v!r}")


@dataclass(slots=True, frozen=True)
class GroupMode:
    """How a next-hop group picks a member: `ecmp` (flow hash), `flowlet` (re-pick after a
    gap of `gap_us`), `spray` (per packet, `random` or `round_robin`), `adaptive` (DRILL)."""

    mode: Mode = "ecmp"
    gap_us: int = 100  # flowlet only
    spray: SprayKind = "random"  # spray only

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode: {self.mode!r} is not one of {', '.join(MODES)}")
        if self.spray not in SPRAY_KINDS:
            raise ValueError(f"spray: {self.spray!r} is not one of {', '.join(SPRAY_KINDS)}")
        _nonneg("gap_us", self.gap_us)

    @property
    def label(self) -> str:
        """`ecmp`, `flowlet`, `spray_random`, `spray_round_robin` or `adaptive`."""
        return f"spray_{self.spray}" if self.mode == "spray" else self.mode

    @classmethod
    def parse(cls, text: str, gap_us: int = 100) -> GroupMode:
        """From a label: `ecmp`, `flowlet`, `spray` (random), `spray_random`,
        `spray_round_robin` (or `spray-round-robin`), `adaptive`."""
        t = text.strip().lower().replace("-", "_")
        if t.startswith("spray_"):
            return cls("spray", gap_us, t.removeprefix("spray_"))  # type: ignore[arg-type]
        return cls(t, gap_us)  # type: ignore[arg-type]


def mode_label(mode: GroupMode) -> ModeLabel:
    """The MODE_LABELS label of `mode` (its gap aside): `GroupMode.parse`'s inverse, up to
    aliases (random spraying is `spray`)."""
    if mode.mode == "spray":
        return "spray" if mode.spray == "random" else "spray_round_robin"
    return mode.mode


@dataclass(slots=True, frozen=True)
class EcnStep:
    """DCTCP: mark CE when the egress queue held more than `threshold` packets."""

    threshold: int

    def __post_init__(self) -> None:
        _nonneg("ecn step threshold", self.threshold)


@dataclass(slots=True, frozen=True)
class EcnRed:
    """RED/DCQCN ramp: no marks up to `min_threshold`, probability rising to
    `max_probability`/256 at `max_threshold`, every packet above."""

    min_threshold: int
    max_threshold: int
    max_probability: int

    def __post_init__(self) -> None:
        for n in ("min_threshold", "max_threshold", "max_probability"):
            _nonneg(f"ecn red {n}", getattr(self, n))
        if self.min_threshold > self.max_threshold:
            raise ValueError(
                f"ecn red: min_threshold {self.min_threshold} > max_threshold {self.max_threshold}"
            )
        if self.max_probability > 256:
            raise ValueError(f"ecn red max_probability: {self.max_probability} > 256 (/256)")


@dataclass(slots=True, frozen=True)
class Trim:
    """Trim packets to their headers when the egress queue exceeds `queue_threshold`;
    trimmed packets get `dscp` and go out at queue `priority`."""

    queue_threshold: int
    dscp: int = 46
    priority: int = 1

    def __post_init__(self) -> None:
        for n in ("queue_threshold", "dscp", "priority"):
            _nonneg(f"trim {n}", getattr(self, n))
        if self.dscp > 63:
            raise ValueError(f"trim dscp: {self.dscp} > 63")


@dataclass(slots=True, frozen=True)
class Cnp:
    """Send a CNP back to a RoCEv2 sender whose packets head for a queue above
    `queue_threshold`, at most one per flow per `interval_us`, with `dscp`."""

    queue_threshold: int
    interval_us: int = 50
    dscp: int = 48

    def __post_init__(self) -> None:
        for n in ("queue_threshold", "interval_us", "dscp"):
            _nonneg(f"cnp {n}", getattr(self, n))
        if self.dscp > 63:
            raise ValueError(f"cnp dscp: {self.dscp} > 63")


def _net(what: str, v: str | None) -> None:
    if v is not None:
        try:
            ipaddress.ip_network(v, strict=True)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None


@dataclass(slots=True, frozen=True)
class IntWatch:
    """Flows that get INT at their first switch: prefixes for the addresses, exact values
    (or None: any) for protocol and ports; a larger `priority` wins on overlap.
    `l4_sport_mask` makes the source port a ternary match (the bits it sets must equal
    `l4_sport`'s): a range of source ports, as a sender's flows use."""

    ip_src: str | None = None  # "10.0.0.0/8", "2001:db8::/32"
    ip_dst: str | None = None
    ip_proto: int | None = None
    l4_sport: int | None = None
    l4_dport: int | None = None
    priority: int = 10
    l4_sport_mask: int | None = None  # None: l4_sport matches exactly

    def __post_init__(self) -> None:
        _net("int watchlist ip_src", self.ip_src)
        _net("int watchlist ip_dst", self.ip_dst)
        for n in ("ip_proto", "l4_sport", "l4_dport"):
            v = getattr(self, n)
            if v is not None:
                _nonneg(f"int watchlist {n}", v)
        if self.priority < 1:
            raise ValueError(f"int watchlist priority: {self.priority} < 1")
        if self.l4_sport_mask is not None:
            _nonneg("int watchlist l4_sport_mask", self.l4_sport_mask)
            if self.l4_sport is None or self.l4_sport & ~self.l4_sport_mask:
                raise ValueError(
                    "int watchlist l4_sport_mask: needs an l4_sport whose bits are within it"
                )


@dataclass(slots=True, frozen=True)
class IntCollector:
    """Where INT reports go: the collector's addresses, the UDP port it listens on, and
    where it is attached (switch name and port). Reports leave a sink switch from
    `src_port` (UDP)."""

    ip: str
    mac: str
    udp_port: int = 32766
    switch: str | None = None
    port: int | None = None
    src_port: int = 32766
    truncate_bytes: int = 0  # clone session packet_length (0: whole packet)
    # every switch reports the packets its ingress drops, at most one report per drop
    # reason every drop_report_gap_us (0: no drop reports)
    drop_report_gap_us: int = 0
    # every switch reports a packet that waited behind queue_report_threshold packets or
    # more, at most one report per port every queue_report_gap_us (threshold 0: none)
    queue_report_threshold: int = 0
    queue_report_gap_us: int = 1000

    def __post_init__(self) -> None:
        try:
            if ipaddress.ip_address(self.ip).version != 4:
                raise ValueError("reports are IPv4")
        except ValueError as e:
            raise ValueError(f"int collector ip: {e}") from None
        for n in (
            "udp_port",
            "src_port",
            "truncate_bytes",
            "drop_report_gap_us",
            "queue_report_threshold",
            "queue_report_gap_us",
        ):
            _nonneg(f"int collector {n}", getattr(self, n))


@dataclass(slots=True, frozen=True)
class IntPolicy:
    watchlist: tuple[IntWatch, ...] = ()
    max_hops: int = 8
    instructions: int = instruction_bitmap(("switch_id", "ports", "hop_latency", "queue"))
    collector: IntCollector | None = None

    def __post_init__(self) -> None:
        _nonneg("int max_hops", self.max_hops)
        _nonneg("int instructions", self.instructions)


@dataclass(slots=True, frozen=True)
class Policy:
    """The whole policy: `mode` for every group unless `groups` names it; the knobs apply
    to every port of every switch (MTU: `mtu`, or `port_mtu[port]`)."""

    mode: GroupMode = field(default_factory=GroupMode)
    groups: Mapping[int, GroupMode] = field(default_factory=dict)
    ecn: EcnStep | EcnRed | None = None
    trim: Trim | None = None
    cnp: Cnp | None = None
    int_md: IntPolicy | None = None  # INT-MD (the file's `int` section)
    mtu: int = 1500
    port_mtu: Mapping[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", MappingProxyType(dict(self.groups)))
        object.__setattr__(self, "port_mtu", MappingProxyType(dict(self.port_mtu)))
        _nonneg("mtu", self.mtu)
        for p, m in self.port_mtu.items():
            _nonneg(f"mtu of port {p}", m)

    def group_mode(self, group_id: int) -> GroupMode:
        return self.groups.get(group_id, self.mode)

    def mtu_of(self, port: int) -> int:
        return self.port_mtu.get(port, self.mtu)

    def with_mode(self, mode: GroupMode, group_id: int | None = None) -> Policy:
        """This policy with `mode` fabric-wide (dropping per-group overrides), or for one
        group."""
        if group_id is None:
            return replace(self, mode=mode, groups={})
        return replace(self, groups={**self.groups, group_id: mode})
