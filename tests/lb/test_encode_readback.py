"""What the encoder writes is what a switch holds: every table and clone session of
docs/fabric.md written through P4Runtime to softswitch and read back, mode changes and
live-bitmap updates by MODIFY, WCMP slots."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from controller import CloneSession, P4RuntimeSession, TableEntry, Ternary
from controller.lb import (
    Cnp,
    EcnRed,
    EcnStep,
    FabricEncoder,
    GroupMode,
    IntCollector,
    IntPolicy,
    IntWatch,
    NextHop,
    Policy,
    PortRole,
    RouteGroup,
    SwitchIntent,
    Trim,
)

ROUTER_MAC = "00:00:00:00:aa:01"


def nh(port: int) -> NextHop:
    return NextHop(port, f"00:00:00:00:{port:02x}:{port:02x}")


INTENT = SwitchIntent(
    name="leaf1",
    router_mac=ROUTER_MAC,
    ports=(PortRole(1, "host"), PortRole(2, "host"), PortRole(3), PortRole(4), PortRole(5)),
    groups=(
        RouteGroup(1, ("10.0.2.0/24", "2001:db8:2::/64"), (nh(3), nh(4), nh(5))),
        RouteGroup(2, ("10.0.3.0/24",), (nh(3), nh(4)), weights=(30, 10)),
        RouteGroup(3, ("10.0.1.1/32",), (NextHop(1, "00:00:00:00:01:01", "00:00:00:00:aa:09"),)),
    ),
    arp=(("10.0.1.254", ROUTER_MAC),),
    switch_id=11,
    report_ip="10.255.0.1",
)

POLICY = Policy(
    mode=GroupMode("flowlet", gap_us=250),
    groups={2: GroupMode("spray", spray="round_robin")},
    ecn=EcnRed(10, 40, 64),
    trim=Trim(48, dscp=46, priority=1),
    cnp=Cnp(16, interval_us=50, dscp=48),
    int_md=IntPolicy(
        watchlist=(
            IntWatch(ip_dst="10.0.0.0/8", ip_proto=17, l4_dport=4791, priority=20),
            IntWatch(ip_src="2001:db8::/32"),
            IntWatch(ip_proto=17, l4_sport=0xC000, l4_sport_mask=0xC000, priority=5),
        ),
        max_hops=6,
        collector=IntCollector("10.0.100.1", "00:00:00:00:64:01", switch="leaf1", port=2),
    ),
    mtu=1500,
    port_mtu={3: 9000},
)


def key(e: TableEntry) -> tuple[Any, ...]:
    """A comparable form of an entry: table, matches, action, params, priority."""
    action = e.action
    assert action is not None and hasattr(action, "params")
    return (
        e.table,
        tuple(sorted(e.match.items())),
        action.name,  # type: ignore[union-attr]
        tuple(sorted(action.params.items())),  # type: ignore[union-attr]
        e.priority,
    )


def read_table(s: P4RuntimeSession, table: str) -> set[tuple[Any, ...]]:
    return {key(e) for e in s.read_table(table)}


def test_everything_one_switch_needs_reads_back(
    session: P4RuntimeSession, encoder: FabricEncoder
) -> None:
    entities = encoder.switch_entities(INTENT, POLICY)
    session.insert(*entities)
    written = [e for e in entities if isinstance(e, TableEntry)]
    tables = {e.table for e in written}
    # every knob table of docs/fabric.md is written
    assert {t.split(".")[-1] for t in tables} == {
        "my_station", "arp_responder", "routing_v4", "routing_v6", "next_hop_group",
        "next_hop_member", "ecn_config", "trim_config", "cnp_config", "int_watchlist",
        "int_sink_ports", "int_ports", "int_report",
    }  # fmt: skip
    for t in tables:
        assert read_table(session, t) == {key(e) for e in written if e.table == t}, t

    sessions = {s.session_id: s for s in session.read(CloneSession())}
    c = encoder.c
    assert {sid for sid in sessions} == {c.int_report_session} | {
        c.cnp_session_base + p for p in (1, 2, 3, 4, 5)
    }
    assert [r.port for r in sessions[c.cnp_session_base + 4].replicas] == [4]
    assert [r.port for r in sessions[c.int_report_session].replicas] == [2]  # collector port


def test_entries_carry_the_policy(encoder: FabricEncoder) -> None:
    by_table: dict[str, list[TableEntry]] = {}
    for e in encoder.switch_entities(INTENT, POLICY):
        if isinstance(e, TableEntry):
            by_table.setdefault(e.table.split(".")[-1], []).append(e)
    groups = {e.match["group_id"].value: e.action for e in by_table["next_hop_group"]}  # type: ignore[union-attr]
    assert groups[1].name.endswith("use_flowlet")  # type: ignore[union-attr]
    assert dict(groups[1].params) == {"group_size": 3, "live_members": 0b111, "gap_us": 250}  # type: ignore[union-attr]
    assert groups[2].name.endswith("use_spray_round_robin")  # type: ignore[union-attr]
    assert dict(groups[2].params) == {"group_size": 4, "live_members": 0b1111}  # type: ignore[union-attr]
    ports = {e.match["eg_port"].value: e.action.params["mtu"] for e in by_table["int_ports"]}  # type: ignore[union-attr]
    assert ports == {1: 1500, 2: 1500, 3: 9000, 4: 1500, 5: 1500}
    assert sorted(e.match["eg_port"].value for e in by_table["int_sink_ports"]) == [1, 2]  # type: ignore[union-attr]
    (report,) = by_table["int_report"]
    assert dict(report.action.params) == {  # type: ignore[union-attr]
        "src_mac": 0xAA01,
        "dst_mac": 0x6401,
        "src_ip": 0x0AFF0001,
        "dst_ip": 0x0A006401,
        "src_port": 32766,
        "dst_port": 32766,
    }
    watch = {e.priority: e.match for e in by_table["int_watchlist"]}
    v4 = watch[20]["ip_dst"]
    assert (v4.value, v4.mask) == (0x0A000000, ((1 << 128) - 1) ^ 0xFFFFFF)  # type: ignore[union-attr]
    assert watch[20]["l4_dport"].value == 4791  # type: ignore[union-attr]
    assert set(watch[10]) == {"ip_src"}


@pytest.mark.parametrize(
    "mode",
    [
        GroupMode("ecmp"),
        GroupMode("flowlet", gap_us=77),
        GroupMode("spray"),
        GroupMode("spray", spray="round_robin"),
        GroupMode("adaptive"),
    ],
    ids=lambda m: m.label,
)
def test_each_mode_is_one_modify(
    session: P4RuntimeSession, encoder: FabricEncoder, mode: GroupMode
) -> None:
    g = INTENT.groups[0]
    session.insert(*encoder.group_entities(g, GroupMode("ecmp"), ROUTER_MAC))
    members_before = read_table(session, "next_hop_member")
    session.modify(encoder.set_mode(g, mode))
    (entry,) = session.read_table("next_hop_group")
    assert entry.action.name == f"FabricIngress.load_balance.use_{mode.label}"  # type: ignore[union-attr]
    expected = {"group_size": 3, "live_members": 0b111}
    if mode.mode == "flowlet":
        expected["gap_us"] = 77
    assert dict(entry.action.params) == expected  # type: ignore[union-attr]
    assert read_table(session, "next_hop_member") == members_before  # members untouched


def test_ports_down_and_up_rewrite_only_the_live_bitmaps(
    session: P4RuntimeSession, encoder: FabricEncoder
) -> None:
    session.insert(*encoder.switch_entities(INTENT, Policy()))

    def live() -> dict[int, int]:
        return {
            e.match["group_id"].value: e.action.params["live_members"]  # type: ignore[union-attr]
            for e in session.read_table("next_hop_group")
        }

    assert live() == {1: 0b111, 2: 0b1111, 3: 0b1}
    down = encoder.ports_down(INTENT, Policy(), [4])
    assert sorted(e.match["group_id"].value for e in down) == [1, 2]  # type: ignore[union-attr]
    session.modify(*down)
    # group 1: slot 1 is port 4; group 2 (weights 3:1 -> ports 3 3 4 3): slot 2
    assert live() == {1: 0b101, 2: 0b1011, 3: 0b1}
    session.modify(*encoder.ports_down(INTENT, Policy(), [4, 3]))
    assert live() == {1: 0b100, 2: 0b0000, 3: 0b1}
    session.modify(*encoder.ports_up(INTENT, Policy(), [4], still_dead=[3]))
    assert live() == {1: 0b110, 2: 0b0100, 3: 0b1}
    session.modify(*encoder.ports_up(INTENT, Policy(), [3]))
    assert live() == {1: 0b111, 2: 0b1111, 3: 0b1}


def test_wcmp_members_read_back_replicated(
    session: P4RuntimeSession, encoder: FabricEncoder
) -> None:
    g = RouteGroup(9, ("10.0.9.0/24",), (nh(3), nh(4), nh(5)), weights=(200, 100, 100))
    session.insert(*encoder.group_entities(g, GroupMode("ecmp"), ROUTER_MAC))
    members = {
        e.match["member_index"].value: e.action.params["port"]  # type: ignore[union-attr]
        for e in session.read_table("next_hop_member")
    }
    assert members == {0: 3, 1: 4, 2: 5, 3: 3}  # 2:1:1 in 4 slots, interleaved
    (group,) = session.read_table("next_hop_group")
    assert group.action.params["group_size"] == 4  # type: ignore[union-attr]


def test_ecn_step_and_red(session: P4RuntimeSession, encoder: FabricEncoder) -> None:
    session.insert(encoder.ecn(3, EcnStep(20)), encoder.ecn(4, EcnRed(5, 30, 256)))
    got = {
        e.match["eg_port"].value: (e.action.name.split(".")[-1], dict(e.action.params))  # type: ignore[union-attr]
        for e in session.read_table("ecn_config")
    }
    assert got == {
        3: ("mark_ecn_step", {"threshold": 20}),
        # a probability of 256/256 is written as the largest the 8-bit field holds
        4: ("mark_ecn_red", {"min_threshold": 5, "max_threshold": 30, "max_probability": 255}),
    }


def test_encoder_refuses_what_the_program_cannot_do(encoder: FabricEncoder) -> None:
    with pytest.raises(ValueError, match="size 33 out of 1..32"):
        encoder.group(1, GroupMode(), 33)
    with pytest.raises(ValueError, match="bits beyond 2 slots"):
        encoder.group(1, GroupMode(), 2, live=0b100)
    with pytest.raises(ValueError, match="below 1024"):
        encoder.group(2000, GroupMode("adaptive"), 2)
    encoder.group(2000, GroupMode("ecmp"), 2)  # stateless: any id
    many = RouteGroup(5, ("10.5.0.0/16",), tuple(nh(p) for p in range(1, 34)))
    with pytest.raises(ValueError, match="33 next hops do not fit in 32"):
        encoder.layout(many)
    with pytest.raises(ValueError, match="does not fit in 19 bits"):
        encoder.ecn(1, EcnStep(1 << 19))


def test_drop_reports_go_on_every_switch_with_a_collector_path(
    session: P4RuntimeSession, encoder: FabricEncoder
) -> None:
    assert POLICY.int_md is not None and POLICY.int_md.collector is not None
    col = replace(
        POLICY.int_md.collector,
        switch=None,
        port=None,
        drop_report_gap_us=500,
        queue_report_threshold=8,
        queue_report_gap_us=50,
    )
    policy = replace(POLICY, int_md=replace(POLICY.int_md, collector=col))
    spine = SwitchIntent(
        name="spine1",
        router_mac=ROUTER_MAC,
        ports=(PortRole(1), PortRole(2)),
        groups=(RouteGroup(1, ("10.0.2.0/24",), (nh(1), nh(2))),),
        switch_id=21,
        report_ip="10.255.0.21",
        collector_port=2,
        collector_next_hop_mac="00:00:00:00:64:01",
    )
    # without drop or queue reports a spine (no hosts: no INT sink) sends no report at all
    assert not any(
        isinstance(e, TableEntry)
        and e.table.endswith(("int_report", "drop_reasons", "queue_report_config"))
        for e in encoder.switch_entities(spine, POLICY)
    )
    session.insert(*encoder.switch_entities(spine, policy))
    (entry,) = session.read_table("drop_reasons")
    assert entry.match == {}  # every reason
    assert dict(entry.action.params) == {"switch_id": 21, "min_gap_us": 500}  # type: ignore[union-attr]
    (report,) = session.read_table("int_report")
    assert report.match["eg_port"].value == 2  # type: ignore[union-attr]
    queues = {
        e.match["eg_port"].value: dict(e.action.params)  # type: ignore[union-attr]
        for e in session.read_table("queue_report_config")
    }
    assert queues == {p: {"switch_id": 21, "queue_threshold": 8, "min_gap_us": 50} for p in (1, 2)}
    sessions = {s.session_id: s for s in session.read(CloneSession())}
    assert [r.port for r in sessions[encoder.c.int_report_session].replicas] == [2]


def test_a_drop_report_entry_for_one_reason(encoder: FabricEncoder) -> None:
    e = encoder.drop_report(3, 100, encoder.c.drop_reasons["NO_ROUTE"])
    assert e.match["reason"] == Ternary(2, 0xFF)
    assert e.priority > encoder.drop_report(3, 100).priority  # one reason beats "every"
