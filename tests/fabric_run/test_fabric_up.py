"""Acceptance: leaf-spine fabrics of softswitch processes over real gRPC, programmed by the
controller, carrying packets between every pair of hosts; a restarted switch restored
entry by entry; a failed link routed around with every pair still reachable."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.fabric import content, identity
from controller.fabric.desired import fabric_desired_state
from controller.fabric.runner import FabricRun
from controller.topology import load_topology

from .traffic import Hosts

ROOT = Path(__file__).resolve().parents[2]


def start(topo_file: str, workdir: Path) -> FabricRun:
    run = FabricRun(
        load_topology(ROOT / "topologies" / topo_file),
        workdir=workdir,
        desired_state=fabric_desired_state,
        fixed_addresses=False,  # other tests may run fabrics at the same time
        poll_interval=0.5,
        watch_interval=0.2,
    )
    run.start(control=False)
    return run


@pytest.fixture(scope="module")
def fabric2x2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FabricRun, Hosts]]:
    run = start("leaf-spine-2x2.yaml", tmp_path_factory.mktemp("fab2x2"))
    assert run.wiring is not None
    hosts = Hosts(run.wiring.hosts, run.topology)
    try:
        yield run, hosts
    finally:
        hosts.close()
        run.stop()


def check_all_pairs(run: FabricRun, hosts: Hosts, rounds: int = 1) -> None:
    sent, arrived = hosts.all_pairs(rounds)
    lost = [s for s, got in arrived.items() if not got]
    wrong = [
        (s, [h for h, _ in got])
        for s, got in arrived.items()
        if got and {h for h, _ in got} != {s.dst}
    ]
    dup = [s for s, got in arrived.items() if len(got) > 1]
    assert not lost and not wrong and not dup, (len(sent), lost[:5], wrong[:5], dup[:5])
    for s, got in arrived.items():
        data = got[0][1]
        dst = run.topology.host(s.dst)
        leaf = run.topology.switch(dst.switch)
        assert data[0:6].hex(":") == dst.mac and data[6:12].hex(":") == leaf.router_mac
        same_leaf = run.topology.host(s.src).switch == dst.switch
        assert data[22] == 64 - (1 if same_leaf else 3)  # TTL: one per switch crossed


def state_of(run: FabricRun, name: str) -> set:
    assert run.sessions is not None
    return {(identity(e), content(e)) for e in run.sessions[name].read_managed()}


def test_2x2_every_pair_and_nothing_to_rewrite(fabric2x2) -> None:
    run, hosts = fabric2x2
    check_all_pairs(run, hosts)
    assert run.sessions is not None
    for name, sw in run.sessions.switches.items():
        assert state_of(run, name) == {(identity(e), content(e)) for e in sw.desired}
    again = run.sessions.sync_all()
    assert all(r.writes == 0 and r.changed == 0 for r in again.values())


def test_2x2_restarted_switch_is_restored(fabric2x2) -> None:
    run, hosts = fabric2x2
    assert run.sessions is not None
    name = "spine1"
    want = {(identity(e), content(e)) for e in run.sessions[name].desired}
    before = run.sessions[name].counts.restores
    old_pid = run.handles[name].pid
    new_pid = run.restart_switch(name)
    assert new_pid != old_pid
    assert run.sessions.wait_restored(name, before, timeout=60)
    assert state_of(run, name) == want
    check_all_pairs(run, hosts)


def test_2x2_killed_switch_is_started_again_and_restored(fabric2x2) -> None:
    run, hosts = fabric2x2
    assert run.sessions is not None
    name = "leaf2"
    want = {(identity(e), content(e)) for e in run.sessions[name].desired}
    before = run.sessions[name].counts.restores
    old_pid = run.handles[name].pid
    os.kill(old_pid, signal.SIGKILL)  # a process this run started
    assert run.sessions.wait_restored(name, before, timeout=90)
    assert run.handles[name].pid != old_pid and run.respawns[name] >= 1
    assert state_of(run, name) == want
    check_all_pairs(run, hosts)


def test_2x2_link_down_traffic_moves(fabric2x2) -> None:
    run, hosts = fabric2x2
    assert run.sessions is not None
    port = run.topology.port_to("leaf1", "spine1")
    r = run.set_link("leaf1", "spine1", up=False)
    try:
        assert r["modified"] + r["inserted"] + r["deleted"] > 0
        tx_before = _tx(run, "leaf1", port)
        check_all_pairs(run, hosts, rounds=2)
        assert _tx(run, "leaf1", port) == tx_before  # nothing crossed the failed link
    finally:
        r = run.set_link("leaf1", "spine1", up=True)
    assert r["links_down"] == []
    check_all_pairs(run, hosts)
    assert _tx(run, "leaf1", port) > tx_before  # and it carries traffic again


def test_2x2_link_down_fast_repair_before_any_route_changes(fabric2x2) -> None:
    """The fast step alone (routes not yet recomputed): leaf1 and spine1 clear the live
    bits of their members on the failed link, so nothing is sent onto it from then on;
    leaf1's flows move to spine2 and all arrive; spine1's only way down to leaf1 is dead,
    so what it gets for leaf1 is dropped there, not sent (until the routes move it)."""
    run, hosts = fabric2x2
    assert run.sessions is not None
    p_leaf, p_spine = (
        run.topology.port_to("leaf1", "spine1"),
        run.topology.port_to("spine1", "leaf1"),
    )
    routes_before = {
        n: [e for e in sw.desired if "routing_v4" in getattr(e, "table", "")]
        for n, sw in run.sessions.switches.items()
    }
    try:
        fast = run.isolate_link("leaf1", "spine1")
        assert fast["leaf1"] >= 1 and fast["spine1"] >= 1, fast
        tx_leaf, tx_spine = _tx(run, "leaf1", p_leaf), _tx(run, "spine1", p_spine)
        # many flows from leaf1's hosts (hash ECMP would put about half on spine1)
        sent = [
            hosts.send(a, b, 1000 + i)
            for i in range(40)
            for a in ("h1", "h2")
            for b in ("h3", "h4")
        ]
        got = hosts.collect(quiet=2.0, want=len(sent))
        assert len(got) == len(sent) and {h for h, _ in got} == {"h3", "h4"}
        assert _tx(run, "leaf1", p_leaf) == tx_leaf
        # toward leaf1: leaf2 still sprays over spine1 (not recomputed), spine1 holds them
        for i in range(40):
            hosts.send("h3", "h1", 5000 + i)
        hosts.collect(quiet=1.0)
        assert _tx(run, "spine1", p_spine) == tx_spine
        # nothing but the live bits changed: routes are as they were
        for n, sw in run.sessions.switches.items():
            assert [
                e for e in sw.desired if "routing_v4" in getattr(e, "table", "")
            ] == routes_before[n]
    finally:
        r = run.set_link("leaf1", "spine1", up=True)
    assert r["links_down"] == [] and r["fast_groups"] == 0
    check_all_pairs(run, hosts)


def test_2x2_set_link_down_reports_the_fast_step(fabric2x2) -> None:
    run, hosts = fabric2x2
    try:
        r = run.set_link("leaf2", "spine2", up=False)
        assert r["fast_groups"] >= 2  # leaf2's group(s) over spine2 and spine2's toward leaf2
        check_all_pairs(run, hosts)
    finally:
        run.set_link("leaf2", "spine2", up=True)


def _tx(run: FabricRun, switch: str, port: int) -> int:
    from controller.telemetry import poll_counters

    assert run.sessions is not None
    s = run.sessions[switch].session
    assert s is not None
    return poll_counters(s, switch, [port], members=False).tx[port].packets


def test_4x4_every_pair(tmp_path: Path) -> None:
    run = start("leaf-spine-4x4.yaml", tmp_path)
    assert run.wiring is not None
    hosts = Hosts(run.wiring.hosts, run.topology)
    try:
        check_all_pairs(run, hosts)
    finally:
        hosts.close()
        run.stop()


def _group_actions(run: FabricRun) -> dict[tuple[str, int], str]:
    from controller.entities import TableEntry

    assert run.sessions is not None
    out = {}
    for name, sw in run.sessions.switches.items():
        for e in sw.read_managed():
            if isinstance(e, TableEntry) and e.table.endswith("next_hop_group"):
                gid = next(iter(e.match.values())).value  # type: ignore[union-attr]
                out[(name, gid)] = e.action.name.rsplit(".", 1)[-1]  # type: ignore[union-attr]
    return out


def test_2x2_set_lb_modifies_groups_only(fabric2x2) -> None:
    run, hosts = fabric2x2
    before = _group_actions(run)
    assert set(before.values()) == {"use_ecmp"}
    r = run.set_lb({"mode": "spray", "group": None})
    assert (r["inserted"], r["deleted"], r["modified"]) == (0, 0, len(before))
    assert set(_group_actions(run).values()) == {"use_spray_random"}
    check_all_pairs(run, hosts)
    r = run.set_lb({"mode": "flowlet", "group": 1, "gap_us": 50})
    with_g1 = [k for k in before if k[1] == 1]
    assert with_g1  # else the flowlet change below would be checked on nothing
    assert (r["inserted"], r["deleted"], r["modified"]) == (0, 0, len(with_g1))
    after = _group_actions(run)
    assert {k: v for k, v in after.items() if k[1] == 1} == dict.fromkeys(with_g1, "use_flowlet")
    assert {v for k, v in after.items() if k[1] != 1} == {"use_spray_random"}
    with pytest.raises(ValueError, match="'flood' is not one of"):
        run.set_lb({"mode": "flood"})
    run.set_lb({"mode": "ecmp", "group": None})
    assert _group_actions(run) == before


def test_several_switches_per_process_reach_every_pair(tmp_path: Path) -> None:
    """A k=4 fat-tree (20 switches) packed 3 to a `softswitch --chassis` process (7
    processes): every switch programmed through its process's one gRPC address by device
    id, every host pair reachable, and a second reconcile writes nothing."""
    from controller.topology.generators import fat_tree

    run = FabricRun(
        fat_tree(4),
        workdir=tmp_path,
        desired_state=fabric_desired_state,
        fixed_addresses=False,
        poll_interval=0.5,
        watch_interval=0.2,
        switches_per_process=3,
    )
    run.start(control=False)
    assert run.wiring is not None and run.sessions is not None
    hosts = Hosts(run.wiring.hosts, run.topology)
    try:
        procs = {id(h) for h in run.handles.values()}
        assert len(procs) == 7 and len(run.handles) == 20
        addrs = {w.grpc_addr for w in run.wiring.switches.values()}
        assert len(addrs) == 7
        check_all_pairs_any_ttl(run, hosts)
        again = run.sessions.sync_all()
        assert all(r.writes == 0 and r.changed == 0 for r in again.values())
    finally:
        hosts.close()
        run.stop()


def check_all_pairs_any_ttl(run: FabricRun, hosts: Hosts) -> None:
    """Every pair reaches its destination once, with its MAC (fat-tree paths vary in length)."""
    sent, arrived = hosts.all_pairs(1)
    lost = [s for s, got in arrived.items() if not got]
    wrong = [s for s, got in arrived.items() if got and {h for h, _ in got} != {s.dst}]
    assert sent and not lost and not wrong, (len(sent), lost[:5], wrong[:5])
    for s, got in arrived.items():
        assert got[0][1][0:6].hex(":") == run.topology.host(s.dst).mac
