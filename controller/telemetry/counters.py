"""Counter polling: fabric.p4's counters of one switch in one Read, and rates between polls.

`poll_counters(session, ports)` reads, for the ports given, the port counters (received,
sent), ECN-marked, trimmed and CNP counters, the queue depth egress last recorded
(`port_queue_depth`), every drop reason, and every next-hop member with its direct counter
(`next_hop_member_counter`): one Read RPC of a few entities per port, plus one wildcard read
of the member table. Counters a build profile leaves out (e.g. no ECN) are skipped.

`rates(old, new)` turns two snapshots into per-second figures: bytes/packets per port and
each member's share of its group's packets (the load-balancing spread).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import grpc

from ..entities import CounterData, CounterEntry, Entity, RegisterEntry, TableEntry
from ..errors import P4RuntimeError
from ..p4info import EntityInfo, P4InfoError
from ..p4rt import P4RuntimeSession

__all__ = [
    "COUNTERS",
    "CounterSnapshot",
    "MemberCount",
    "Rates",
    "poll_counters",
    "rates",
]

# snapshot field -> the counter's P4Info name (a unique suffix)
COUNTERS = {
    "rx": "stats.ingress_port_counter",
    "tx": "stats.egress_port_counter",
    "ecn_marked": "ecn.ecn_marked_counter",
    "trimmed": "trim.trimmed_counter",
    "cnp": "cnp_trigger.cnp_counter",
}
DROP_COUNTER = "stats.drop_counter"
QUEUE_REGISTER = "port_queue_depth"
MEMBER_TABLE = "load_balance.next_hop_member"


@dataclass(frozen=True, slots=True)
class MemberCount:
    group: int
    index: int
    port: int
    packets: int
    bytes: int


@dataclass(frozen=True, slots=True)
class CounterSnapshot:
    """One switch's counters at `time` (monotonic seconds); per port unless said."""

    switch: str
    time: float
    rx: Mapping[int, CounterData] = field(default_factory=dict)
    tx: Mapping[int, CounterData] = field(default_factory=dict)
    ecn_marked: Mapping[int, CounterData] = field(default_factory=dict)
    trimmed: Mapping[int, CounterData] = field(default_factory=dict)
    cnp: Mapping[int, CounterData] = field(default_factory=dict)
    queue_depth: Mapping[int, int] = field(default_factory=dict)
    drops: Mapping[int, CounterData] = field(default_factory=dict)  # by drop reason
    members: tuple[MemberCount, ...] = ()


def _available(session: P4RuntimeSession, kind: str, name: str) -> EntityInfo | None:
    try:
        names = session.schema.registers if kind == "register" else session.schema.counters
        return names[name]
    except P4InfoError:
        return None


def poll_counters(
    session: P4RuntimeSession,
    switch: str,
    ports: Iterable[int],
    members: bool = True,
    reasons: Iterable[int] | None = None,
) -> CounterSnapshot:
    """Read one switch's counters for `ports` (see the module docstring); `reasons`: the
    drop reasons to read (default: every one but 0, "no drop", up to the counter's size)."""
    ports = sorted(set(ports))
    full: dict[str, str] = {}
    for key, name in COUNTERS.items():
        found = _available(session, "counter", name)
        if found:
            full[key] = found.name
    want: list[Entity] = [CounterEntry(n, p) for n in full.values() for p in ports]
    drop_info = _available(session, "counter", DROP_COUNTER)
    drop = drop_info.name if drop_info else None
    if drop_info:
        if reasons is None:
            reasons = range(1, drop_info.message.size)
        want += [CounterEntry(drop_info.name, r) for r in reasons]
    queue = _available(session, "register", QUEUE_REGISTER)
    if queue:
        want += [RegisterEntry(queue.name, p) for p in ports]
    t = time.monotonic()
    by_name: dict[str, dict[int, CounterData]] = {n: {} for n in full.values()}
    drops: dict[int, CounterData] = {}
    depth: dict[int, int] = {}
    try:
        got = list(session.read(*want))
    except P4RuntimeError as err:
        if not queue or err.code != grpc.StatusCode.UNIMPLEMENTED:
            raise
        # a target that reads no registers (BMv2's PI): the counters alone
        got = list(session.read(*(w for w in want if not isinstance(w, RegisterEntry))))
    for e in got:
        if isinstance(e, CounterEntry) and e.index is not None and e.data is not None:
            if e.counter == drop:
                drops[e.index] = e.data
            else:
                by_name[e.counter][e.index] = e.data
        elif isinstance(e, RegisterEntry) and e.index is not None and e.value is not None:
            depth[e.index] = e.value
    member_counts: list[MemberCount] = []
    if members:
        try:
            table = session.schema.table(MEMBER_TABLE)
        except P4InfoError:
            table = None
        if table is not None:
            member_counts = [_member(e) for e in session.read_table(table.name)]
    return CounterSnapshot(
        switch,
        t,
        **{key: by_name[name] for key, name in full.items()},
        queue_depth=depth,
        drops=drops,
        members=tuple(sorted(member_counts, key=lambda m: (m.group, m.index))),
    )


def _member(e: TableEntry) -> MemberCount:
    group = index = port = 0
    for name, m in e.match.items():
        if name.endswith("group_id"):
            group = m.value  # type: ignore[union-attr]
        elif name.endswith("member_index"):
            index = m.value  # type: ignore[union-attr]
    params = getattr(e.action, "params", {})
    port = int(params.get("port", 0))
    c = e.counter or CounterData()
    return MemberCount(group, index, port, c.packets, c.bytes)


@dataclass(frozen=True, slots=True)
class Rates:
    """Per-second figures between two snapshots of one switch."""

    seconds: float
    rx_bps: Mapping[int, float]  # bits per second per port
    tx_bps: Mapping[int, float]
    rx_pps: Mapping[int, float]
    tx_pps: Mapping[int, float]
    member_share: Mapping[tuple[int, int], float]  # (group, index) -> share of the group's packets


def _per_second(
    old: Mapping[int, CounterData], new: Mapping[int, CounterData], dt: float
) -> tuple[dict[int, float], dict[int, float]]:
    bps: dict[int, float] = {}
    pps: dict[int, float] = {}
    for k, n in new.items():
        o = old.get(k, CounterData())
        bps[k] = max(0, n.bytes - o.bytes) * 8 / dt
        pps[k] = max(0, n.packets - o.packets) / dt
    return bps, pps


def rates(old: CounterSnapshot, new: CounterSnapshot) -> Rates:
    dt = max(new.time - old.time, 1e-9)
    rx_bps, rx_pps = _per_second(old.rx, new.rx, dt)
    tx_bps, tx_pps = _per_second(old.tx, new.tx, dt)
    before = {(m.group, m.index): m.packets for m in old.members}
    delta = {
        (m.group, m.index): max(0, m.packets - before.get((m.group, m.index), 0))
        for m in new.members
    }
    totals: dict[int, int] = {}
    for (g, _i), d in delta.items():
        totals[g] = totals.get(g, 0) + d
    share = {k: (d / totals[k[0]] if totals[k[0]] else 0.0) for k, d in delta.items()}
    return Rates(dt, rx_bps, tx_bps, rx_pps, tx_pps, share)
