"""Every entity kind written by name, read back typed, and seen working on packets."""

from __future__ import annotations

from controller import (
    ActionProfileGroup,
    ActionProfileMember,
    CloneSession,
    CounterData,
    CounterEntry,
    GroupMember,
    GroupRef,
    MeterConfig,
    MulticastGroup,
    P4RuntimeSession,
    Replica,
    Update,
)

from .conftest import Switch
from .world import packet


def test_exact_table_insert_modify_delete(sw: P4RuntimeSession, switch: Switch) -> None:
    e = sw.table_entry("host", {"a": 1, "mac": "00:00:00:00:00:0b"}, "fwd", {"port": 2})
    sw.insert(e)
    frame = packet(1, a=1, mac=0xB)
    switch.send(1, frame)
    assert switch.recv(2) == frame
    (got,) = sw.read_table("host")
    assert got == e
    sw.modify(sw.table_entry("host", {"a": 1, "mac": "00:00:00:00:00:0b"}, "fwd", {"port": 4}))
    switch.send(1, frame)
    assert switch.recv(4) == frame
    sw.delete(e)
    assert list(sw.read_table("host")) == []
    switch.send(1, frame)
    assert switch.quiet() == {}  # default action: drop


def test_default_action_modify_and_reset(sw: P4RuntimeSession, switch: Switch) -> None:
    sw.modify(sw.default_entry("route", "fwd", {"port": 3}))
    switch.send(1, packet(2, c=1))
    assert switch.recv(3) is not None
    sw.modify(sw.default_entry("route"))  # back to the initial default (NoAction: port 0)
    switch.send(1, packet(2, c=1))
    assert switch.quiet() == {}


def test_lpm_longest_prefix(sw: P4RuntimeSession, switch: Switch) -> None:
    sw.insert(
        sw.table_entry("route", {"c": "10.0.0.0/8"}, "fwd", {"port": 2}),
        sw.table_entry("route", {"c": "10.1.0.0/16"}, "fwd", {"port": 3}),
    )
    switch.send(1, packet(2, c=0x0A010001))
    assert switch.recv(3) is not None
    switch.send(1, packet(2, c=0x0A020001))
    assert switch.recv(2) is not None


def test_ternary_range_optional_priorities_and_direct_resources(
    sw: P4RuntimeSession, switch: Switch
) -> None:
    low = sw.table_entry("acl", {"a": (0x10, 0xF0)}, "fwd", {"port": 2}, priority=1)
    high = sw.table_entry(
        "acl", {"a": (0x12, 0xFF), "b": (100, 200), "d": 0}, "fwd", {"port": 3}, priority=9
    )
    sw.insert(low, high)
    switch.send(1, packet(3, a=0x12, b=150))
    assert switch.recv(3) is not None
    switch.send(1, packet(3, a=0x12, b=250))
    assert switch.recv(2) is not None
    switch.send(1, packet(3, a=0x12, b=150, d=1))  # optional d=0 does not match
    assert switch.recv(2) is not None
    frame_len = len(packet(3))
    assert sw.read_direct_counter(high) == CounterData(1, frame_len)
    assert sw.read_direct_counter(low) == CounterData(2, 2 * frame_len)
    by_priority = {e.priority: e.counter for e in sw.read_table("acl")}
    assert by_priority == {9: CounterData(1, frame_len), 1: CounterData(2, 2 * frame_len)}
    cfg = MeterConfig(cir=1, cburst=1, pir=2, pburst=2)
    sw.modify(sw.direct_meter(high, cfg))
    assert sw.read_direct_meter(high) == cfg
    sw.modify(sw.direct_counter(high, CounterData(0, 0)))
    assert sw.read_direct_counter(high) == CounterData(0, 0)


def test_action_selector_members_and_groups(sw: P4RuntimeSession, switch: Switch) -> None:
    members = [sw.member("lb", i, "set_b", {"b": 100 + i, "port": 1 + i}) for i in (1, 2)]
    group = sw.group("lb", 7, [1, (2, 1)], max_size=4)
    sw.insert(*members, group)
    sw.insert(sw.table_entry("balance", {"a": 5}, group=7))
    (got,) = [e for e in sw.read_table("balance")]
    assert got.action == GroupRef(7)
    read_members = sorted(
        sw.read(ActionProfileMember("Ing.lb")),
        key=lambda m: m.member_id,  # type: ignore[union-attr]
    )
    assert read_members == members
    (g,) = sw.read(ActionProfileGroup("Ing.lb", 7))
    assert g == ActionProfileGroup("Ing.lb", 7, (GroupMember(1, 1), GroupMember(2, 1)), 4)
    seen = set()
    for c in range(40):
        switch.send(1, packet(4, a=5, c=c))
        out = switch.quiet(1.0)
        ((port, frame),) = out.items()
        assert frame[2:4] == (100 + port - 1).to_bytes(2, "big")
        seen.add(port)
    assert seen == {2, 3}


def test_multicast_group_and_clone_session(sw: P4RuntimeSession, switch: Switch) -> None:
    sw.insert(sw.multicast_group(5, [2, (3, 1), Replica(4, 2)]))
    assert list(sw.read(MulticastGroup(0))) == [
        MulticastGroup(5, (Replica(2), Replica(3, 1), Replica(4, 2)))
    ]
    frame = packet(9, b=5)
    switch.send(1, frame)
    assert {p: switch.recv(p) for p in (2, 3, 4)} == {2: frame, 3: frame, 4: frame}
    sw.insert(sw.clone_session(6, [3], packet_length_bytes=8))
    assert list(sw.read(CloneSession(0))) == [CloneSession(6, (Replica(3),), 0, 8)]
    switch.send(1, packet(10, b=6))
    assert switch.recv(3) == packet(10, b=6)[:8]  # truncated clone; the original dropped
    assert switch.quiet() == {}


def test_indexed_counters(sw: P4RuntimeSession, switch: Switch) -> None:
    sw.insert(sw.table_entry("route", {"c": "0.0.0.0/1"}, "fwd", {"port": 2}))
    for d in (1, 1, 3):
        switch.send(1, packet(2, d=d))
        assert switch.recv(2) is not None
    n = len(packet(2))
    assert sw.read_counter("by_d", 1) == CounterData(2, 2 * n)
    cells = sw.read_counters("by_d")
    assert len(cells) == 8 and cells[3] == CounterData(1, n) and cells[0] == CounterData()
    sw.write([Update.modify(CounterEntry("Ing.by_d", 1, CounterData(0, 0)))])
    assert sw.read_counter("by_d", 1) == CounterData(0, 0)


def test_meter_config(sw: P4RuntimeSession, switch: Switch) -> None:
    assert sw.read_meter("by_a", 2) is None  # unconfigured: everything green
    cfg = MeterConfig(cir=1, cburst=1, pir=1, pburst=1)
    sw.modify(sw.meter("by_a", 2, cfg))
    assert sw.read_meter("by_a", 2) == cfg
    for _ in range(3):  # back to back: one packet fits the 1-packet bursts
        switch.send(1, packet(5, a=2))
    colors = [next(iter(switch.quiet(1.0))) - 1 for _ in range(3)]
    assert sorted(colors) == [0, 2, 2]  # green, then red past the burst


def test_registers(sw: P4RuntimeSession, switch: Switch) -> None:
    sw.modify(sw.register("store", 3, 41))
    assert sw.read_register("store", 3) == 41
    switch.send(1, packet(6, a=3))
    assert switch.recv(1)[2:4] == (41).to_bytes(2, "big")  # type: ignore[index]
    assert sw.read_register("store", 3) == 42
    values = {e.index: e.value for e in sw.read(sw.register("store"))}  # type: ignore[union-attr]
    assert len(values) == 16 and values[3] == 42 and values[0] == 0
