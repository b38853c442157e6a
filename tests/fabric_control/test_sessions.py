"""The session manager against in-process fabric.p4 switches over loopback gRPC: concurrent
programming, read-back reconciliation (a second run writes nothing), exact diffs, stale
entries removed, restarted switches restored by the watcher."""

from __future__ import annotations

import time

import pytest

from controller import P4RuntimeSession, TableEntry, codec
from controller.entities import CloneSession, Replica
from controller.fabric import FabricError, FabricSessions, Pipeline, SwitchTarget, content, identity
from controller.p4info import P4Schema

from .conftest import LocalSwitch


def desired_for(schema: P4Schema, k: int, routes: int = 20, mode: str = "use_ecmp") -> list:
    """A switch's state: router MAC, `routes` /24 routes over two groups of two members,
    an INT report clone session."""
    out: list = [
        codec.table_entry(
            schema, "my_station", {"eth_dst": f"00:00:00:00:aa:{k:02x}"}, "set_routable"
        ),
        CloneSession(1, (Replica(4),)),
    ]
    for g in (1, 2):
        out.append(
            codec.table_entry(
                schema,
                "next_hop_group",
                {"group_id": g},
                mode,
                {"group_size": 2, "live_members": 3},
            )
        )
        for i in (0, 1):
            out.append(
                codec.table_entry(
                    schema,
                    "next_hop_member",
                    {"group_id": g, "member_index": i},
                    "set_next_hop",
                    {
                        "port": 1 + i + 2 * (g - 1),
                        "smac": f"00:00:00:00:aa:{k:02x}",
                        "dmac": f"00:00:00:00:bb:{i:02x}",
                    },
                )
            )
    for r in range(routes):
        out.append(
            codec.table_entry(
                schema,
                "routing_v4",
                {"ipv4_dst": f"10.{k}.{r}.0/24"},
                "set_next_hop_group",
                {"group_id": 1 + r % 2},
            )
        )
    return out


def read_state(address: str, device_id: int, schema: P4Schema) -> set:
    """Everything the switch holds, in canonical form, through a separate session."""
    s = P4RuntimeSession(address, device_id, election_id=1, p4info=schema.p4info)
    try:
        s.connect(wait_primary=False)  # a backup may read
        got = list(s.read(*(TableEntry(t.name) for t in schema.tables), CloneSession()))
    finally:
        s.close()
    return {(identity(e), content(e)) for e in got}


def canonical(entities: list) -> set:
    return {(identity(e), content(e)) for e in entities}


@pytest.fixture
def fabric(local_switches: list[LocalSwitch], fabric_pipeline: Pipeline):
    fab = FabricSessions([s.target for s in local_switches], fabric_pipeline, workers=4)
    try:
        yield fab
    finally:
        fab.close()


def test_program_then_nothing_to_write(
    fabric: FabricSessions, local_switches, fabric_pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    want = {s.name: desired_for(schema, s.device_id) for s in local_switches}
    fabric.set_desired(want)
    first = fabric.sync_all()
    assert {
        n: (r.pipeline_pushed, r.inserted, r.modified, r.deleted) for n, r in first.items()
    } == {n: (True, len(v), 0, 0) for n, v in want.items()}
    for s in local_switches:
        assert read_state(s.target.address, s.device_id, schema) == canonical(want[s.name])
    second = fabric.sync_all()
    assert all(r.writes == 0 and r.changed == 0 and not r.pipeline_pushed for r in second.values())
    assert all(r.read == len(want[n]) for n, r in second.items())


def test_only_the_difference_is_written(
    fabric: FabricSessions, local_switches, fabric_pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    s1 = local_switches[0]
    base = desired_for(schema, 1, routes=4)
    fabric.set_desired({"s1": base})
    fabric.sync_all(["s1"])
    changed = desired_for(schema, 1, routes=5, mode="use_spray_random")  # +1 route, 2 groups
    gone = codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": "10.1.0.0/24"}, "set_next_hop_group", {"group_id": 1}
    )
    assert gone in changed
    changed.remove(gone)
    fabric.set_desired({"s1": changed})
    r = fabric.sync_all(["s1"])["s1"]
    # route 10.1.4.0/24 added, 10.1.0.0/24 removed, both groups switched to spray
    assert (r.inserted, r.modified, r.deleted) == (1, 2, 1)
    assert r.writes == 2  # the delete, then the rest (all table entries: one phase)
    assert read_state(s1.target.address, 1, schema) == canonical(changed)

    # with groups ordered before routes, the route that names them is written after them
    fabric["s1"].table_order = [schema.table("next_hop_group").name]
    fabric.set_desired({"s1": base})
    r = fabric.sync_all(["s1"])["s1"]
    assert (r.inserted, r.modified, r.deleted, r.writes) == (1, 2, 1, 3)
    assert read_state(s1.target.address, 1, schema) == canonical(base)


def test_stale_entries_are_deleted(fabric: FabricSessions, local_switches, fabric_pipeline) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    s2 = local_switches[1]
    want = desired_for(schema, 2, routes=3)
    fabric.set_desired({"s2": want})
    fabric.sync_all(["s2"])
    # someone else writes a route and a clone session behind the controller's back
    with P4RuntimeSession(s2.target.address, 2, election_id=100) as other:
        other.use_p4info(schema.p4info)
        other.insert(
            other.table_entry("routing_v4", {"ipv4_dst": "192.168.0.0/16"}, "drop_route"),
            CloneSession(7, (Replica(3),)),
        )
    r = fabric.sync_all(["s2"])["s2"]
    assert (r.inserted, r.modified, r.deleted) == (0, 0, 2)
    assert read_state(s2.target.address, 2, schema) == canonical(want)


def test_failures_name_the_switch(fabric_pipeline: Pipeline, local_switches) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    member = codec.table_entry(
        schema,
        "next_hop_member",
        {"group_id": 1, "member_index": 0},
        "set_next_hop",
        {"port": 1, "smac": 1, "dmac": 2},
    )
    dup = [member, CloneSession(1, (Replica(4),)), CloneSession(1, (Replica(4),))]
    targets = [local_switches[0].target, SwitchTarget("ghost", "127.0.0.1:1", 9)]
    with FabricSessions(targets, fabric_pipeline, workers=2) as fab:
        fab.set_desired({"s1": dup})
        for sw in fab.switches.values():
            sw.rpc_timeout = 5
        with pytest.raises(FabricError) as err:
            fab.run_each("sync", lambda sw: sw.sync(connect_timeout=1.0))
        assert set(err.value.failures) == {"ghost"}
        assert "no P4Runtime server at 127.0.0.1:1" in str(err.value)
        assert "s1" in err.value.results


def test_restarted_switch_is_restored(
    fabric: FabricSessions, local_switches, fabric_pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    want = {s.name: desired_for(schema, s.device_id, routes=10) for s in local_switches}
    fabric.set_desired(want)
    fabric.sync_all()
    fabric.start_watch(interval=0.1)
    s3 = local_switches[2]
    before = fabric["s3"].counts.restores
    s3.restart()  # a fresh, empty switch on the same address
    assert fabric.wait_restored("s3", before, timeout=20)
    event = [e for e in fabric.events if e.switch == "s3" and e.result is not None][-1]
    assert event.reason == "stream ended" and event.result.pipeline_pushed
    assert event.result.inserted == len(want["s3"])
    assert read_state(s3.target.address, 3, schema) == canonical(want["s3"])
    # the others were left alone
    assert fabric["s1"].counts.restores == 0 and fabric["s2"].counts.restores == 0


def test_punted_arp_teaches_hosts(fabric: FabricSessions, local_switches, fabric_pipeline) -> None:
    from controller.fabric.hosts import ExpectedHost, HostTracker
    from tests.fabric.packets import ETH_ARP, arp, ethernet

    schema = P4Schema(fabric_pipeline.p4info)
    fabric.set_desired({s.name: desired_for(schema, s.device_id, routes=1) for s in local_switches})
    fabric.sync_all()
    tracker = HostTracker(
        [
            ExpectedHost("h1", "10.1.0.10", "00:00:00:00:01:0a", "s1", 3),
            ExpectedHost("h2", "10.2.0.10", "00:00:00:00:02:0a", "s2", 3),
        ]
    )
    fabric.start_watch(interval=0.05, on_packet_in=tracker.packet_in)

    def who_has(src_mac: str, src_ip: str) -> bytes:
        body = arp(1, src_mac, src_ip, "00:00:00:00:00:00", "10.1.0.1")
        return ethernet("ff:ff:ff:ff:ff:ff", src_mac, ETH_ARP) + body

    local_switches[0].ports[3].feed(who_has("00:00:00:00:01:0a", "10.1.0.10"))  # h1, in place
    local_switches[0].ports[4].feed(who_has("00:00:00:00:02:0a", "10.2.0.10"))  # h2, moved
    local_switches[1].ports[2].feed(who_has("00:00:00:00:99:99", "10.99.0.1"))  # unknown
    deadline = time.monotonic() + 10
    while len(tracker.hosts) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    got = {ip: (h.switch, h.port, h.verdict, h.host) for ip, h in tracker.hosts.items()}
    assert got == {
        "10.1.0.10": ("s1", 3, "expected", "h1"),
        "10.2.0.10": ("s1", 4, "moved", "h2"),
        "10.99.0.1": ("s2", 2, "unknown", None),
    }


def test_update_writes_the_difference_without_reading_back(
    fabric: FabricSessions, local_switches, fabric_pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    s1 = local_switches[0]
    base = desired_for(schema, 1, routes=4)
    # never synced: update reads the switch back (a full sync)
    r = fabric.update_all({"s1": base})["s1"]
    assert r.pipeline_pushed and r.inserted == len(base)
    changed = desired_for(schema, 1, routes=5, mode="use_spray_random")
    r = fabric.update_all({"s1": changed})["s1"]
    assert (r.inserted, r.modified, r.deleted, r.read) == (1, 2, 0, 0)
    assert read_state(s1.target.address, 1, schema) == canonical(changed)
    # the same entry objects, in another order, minus one route, plus an equal copy of
    # another and one new route
    copy = codec.table_entry(schema, "my_station", {"eth_dst": "00:00:00:00:aa:01"}, "set_routable")
    new_route = codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": "10.9.0.0/16"}, "set_next_hop_group", {"group_id": 2}
    )
    assert copy == changed[0] and copy is not changed[0]
    changed = [new_route, *reversed(changed[1:-1]), copy]
    r = fabric.update_all({"s1": changed})["s1"]
    assert (r.inserted, r.modified, r.deleted, r.read) == (1, 0, 1, 0)
    assert read_state(s1.target.address, 1, schema) == canonical(changed)

    # an entry deleted behind the controller's back: the incremental MODIFY of it fails,
    # and update falls back to reading the switch and writing what it lacks
    grp = next(e for e in changed if getattr(e, "table", "").endswith("next_hop_group"))
    with P4RuntimeSession(s1.target.address, 1, election_id=100) as other:
        other.use_p4info(schema.p4info)
        other.delete(*[e for e in changed if getattr(e, "table", "").endswith("routing_v4")])
        other.delete(grp)
    fabric["s1"].connect()  # primary again once the other client left
    r = fabric.update_all({"s1": base})["s1"]
    assert r.read > 0  # it was read back
    assert read_state(s1.target.address, 1, schema) == canonical(base)

    # a restarted switch: the new session forgets what was written, update syncs in full
    s1.restart()
    deadline = time.monotonic() + 10
    while fabric["s1"].connected and time.monotonic() < deadline:
        time.sleep(0.05)
    r = fabric.update_all({"s1": changed})["s1"]
    assert r.pipeline_pushed and r.inserted == len(changed)
    assert read_state(s1.target.address, 1, schema) == canonical(changed)


class _Recording:
    """A southbound that records each write before passing it to the switch's session."""

    def __init__(self, fab: FabricSessions) -> None:
        self.fab = fab
        self.calls: list[tuple[str, list[str]]] = []

    def write(self, switch: str, updates) -> None:  # type: ignore[no-untyped-def]
        self.calls.append((switch, [u.type.name for u in updates]))
        self.fab[switch].write(updates)

    def read(self, switch: str, entities):  # type: ignore[no-untyped-def]
        return list(self.fab[switch].connect().read(*entities))


def test_sync_writes_through_the_southbound_it_is_given(
    fabric: FabricSessions, local_switches, fabric_pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    s1 = local_switches[0]
    fabric.set_desired({"s1": desired_for(schema, 1, routes=4)})
    fabric.sync_all(["s1"])
    changed = desired_for(schema, 1, routes=5, mode="use_spray_random")
    south = _Recording(fabric)
    fabric["s1"].set_desired(changed)
    r = fabric["s1"].sync(south=south)
    # every update of the sync went through it: the deletes' phase, then the rest
    assert [n for n, _ in south.calls] == ["s1"] * len(south.calls)
    assert sum(len(kinds) for _, kinds in south.calls) == r.changed > 0
    assert read_state(s1.target.address, 1, schema) == canonical(changed)
    assert fabric["s1"].sync(south=south).changed == 0
