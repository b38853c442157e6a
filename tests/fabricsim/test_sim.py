"""fabricsim on small fabrics: repeatable runs, every packet accounted for, recovery from
a link failure, the cost of reordering for in-order receivers, PFC spreading and the
storm watchdog. Each run executes fabric.p4 at every hop, so flows are kept short."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.lb import FabricConstants
from controller.topology.generators import leaf_spine
from fabricsim.network import NetParams, Network
from fabricsim.run import SimConfig, simulate
from fabricsim.switchnode import PfcParams
from fabricsim.workloads import make_workload
from softswitch.codegen.program import CompiledProgram

from .accounting import assert_conserved


def strip(r: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items() if k not in ("wall_s", "cpu_s", "loop_wall_s", "loop_cpu_s")}


def test_same_seed_same_summary_other_seed_differs(program: CompiledProgram) -> None:
    topo = leaf_spine(2, 2, 2)
    cfg = SimConfig(workload="permutation", mode="spray", flow_bytes=40_000, seed=3)
    a = simulate(topo, cfg, program=program)
    b = simulate(topo, cfg, program=program)
    assert a["flows_completed"] == 4
    assert strip(a) == strip(b)
    c = simulate(topo, replace(cfg, seed=4), program=program)
    assert strip(c) != strip(a)


def test_every_packet_is_delivered_dropped_or_trimmed_and_counted(program: CompiledProgram) -> None:
    """Incast into a shallow queue (6 packets, trimming above 4: a burst that arrives
    between two departures, before egress records the depth, overflows it): trims and
    tail drops happen; after draining, what hosts sent plus the CNPs switches made equals
    what hosts received plus every drop. (INT is off here: its reports are clones that
    leave through the collector port.)"""
    topo = leaf_spine(2, 2, 4)
    nets: list[Network] = []
    cfg = SimConfig(
        workload="incast",
        mode="adaptive",
        flow_bytes=30_000,
        net=NetParams(queue_depth=6),
        trim_threshold=4,
        cnp_threshold=4,
        drain=True,
        int_telemetry=False,
    )
    r = simulate(topo, cfg, program=program, on_network=nets.append)
    net = nets[0]
    assert r["flows_completed"] == 4
    assert r["trims"] > 0 and r["cnps"] > 0 and r["drops_by_cause"]["queue_full"] > 0
    switch_drops = assert_conserved(net, r)
    # the switches' drop counts are what the summary reports
    assert switch_drops == r["drops_by_cause"]["queue_full"] + sum(
        r["drops_by_cause"]["pipeline"].values()
    )
    # trimmed packets reached their hosts as trimmed (data) or short ACKs, or were tail
    # dropped in the priority queue (a trimmed packet holds its port for its cut length
    # only, but a burst can still outnumber the queue's slots)
    trimmed_data = sum(rv.trimmed for h in net.hosts.values() for rv in h.receivers.values())
    short_acks = sum(h.acks_lost for h in net.hosts.values())
    arrived = trimmed_data + short_acks
    assert 0 < arrived <= r["trims"] <= arrived + r["drops_by_cause"]["queue_full"]


def test_link_failure_mid_run_recovers_without_lasting_blackhole(program: CompiledProgram) -> None:
    topo = leaf_spine(2, 2, 2)
    cfg = SimConfig(
        workload="permutation",
        mode="ecmp",
        flow_bytes=200_000,
        seed=2,
        fail_link=("leaf1", "spine1", 8_000),
        detect_ns=1_000,
        controller_delay_ns=6_000,
    )
    r = simulate(topo, cfg, program=program)
    steps = {x["step"]: x for x in r["reroutes"]}
    assert steps["port_down"]["updates"] > 0 and steps["reroute"]["updates"] > 0
    # the failure cost packets, but none after the routes were rewritten
    assert r["drops_by_cause"]["link"] > 0
    assert r["drops_by_cause"]["link"] == steps["reroute"]["link_losses"]
    assert r["switch_drops"] == steps["reroute"]["switch_drops"]
    # named as fabric.p4 names its reasons (DROP_NO_LIVE_MEMBER: spine1's only member
    # toward leaf1 is dead until the reroute)
    pipeline = r["drops_by_cause"]["pipeline"]
    assert pipeline.get("no_live_member", 0) > 0
    assert set(pipeline) <= {n.lower() for n in FabricConstants.load().drop_reasons}
    assert r["flows_completed"] == 4


def test_in_order_receiver_pays_for_spraying_tolerant_one_does_not(
    program: CompiledProgram,
) -> None:
    topo = leaf_spine(3, 3, 3)  # 9 flows on 3 uplinks per leaf: queues differ per path
    base = SimConfig(workload="permutation", flow_bytes=60_000, seed=5)
    res = {
        (mode, rx): simulate(topo, replace(base, mode=mode, receiver=rx), program=program)
        for mode in ("ecmp", "spray")
        for rx in ("tolerant", "in_order")
    }
    tol, ino = res[("spray", "tolerant")], res[("spray", "in_order")]
    assert tol["reordered_pct"] > 5  # spraying reorders...
    assert tol["retransmissions"] == 0  # ...which out-of-order placement absorbs
    assert ino["retransmissions"] > 100  # go-back-N resends after every gap
    assert ino["throughput_pct_of_line_rate"] < 0.8 * tol["throughput_pct_of_line_rate"]
    assert ino["fct_p99_us"] > tol["fct_p99_us"]
    # under ECMP a flow keeps its path: the in-order receiver loses (almost) nothing
    e_tol, e_ino = res[("ecmp", "tolerant")], res[("ecmp", "in_order")]
    assert e_ino["throughput_pct_of_line_rate"] > 0.8 * e_tol["throughput_pct_of_line_rate"]


def test_pfc_pauses_spread_upstream_under_incast(program: CompiledProgram) -> None:
    topo = leaf_spine(2, 2, 4)
    cfg = SimConfig(
        workload="incast",
        mode="ecmp",
        flow_bytes=60_000,
        net=NetParams(pfc=PfcParams(enabled=True, xoff=8, xon=4)),
        transport="none",
        ecn_threshold=None,
        cnp_threshold=None,
        trim_threshold=None,
    )
    r = simulate(topo, cfg, program=program)
    paused = r["pfc_pause_us_by_node"]
    assert r["flows_completed"] == 4 and r["drops"] == 0  # lossless
    # the receiver's leaf paused the spines, which paused the senders' leaf, which paused
    # the senders: congestion spread two hops upstream
    dst_leaf = topo.host(r["flows"][0]["dst"]).switch
    src_leaf = next(s.name for s in topo.switches if s.role == "leaf" and s.name != dst_leaf)
    assert any(paused.get(s, 0) > 0 for s in ("spine1", "spine2"))
    assert paused.get(src_leaf, 0) > 0
    assert any(paused.get(f["src"], 0) > 0 for f in r["flows"])


def test_pfc_storm_spreads_and_the_watchdog_ends_it(program: CompiledProgram) -> None:
    """h4 stops receiving and keeps its leaf paused. Without a watchdog its leaf's queue
    fills, pauses the spines, and a flow into the same leaf that never touches h4 is stuck
    behind it; with the watchdog the leaf drops h4's traffic and the other flows finish."""
    topo = leaf_spine(2, 2, 2)
    hosts = [h.name for h in topo.hosts]
    # a permutation where both leaf1 hosts send across to leaf2 (one of them to h4)
    seed = next(
        s
        for s in range(100)
        if {(f.src, f.dst) for f in make_workload("permutation", hosts, 1, s)} >= {("h1", "h4")}
        and any(f.dst == "h3" and f.src == "h2" for f in make_workload("permutation", hosts, 1, s))
    )
    pfc = PfcParams(enabled=True, xoff=8, xon=4)
    cfg = SimConfig(
        workload="permutation",
        mode="ecmp",
        flow_bytes=150_000,
        seed=seed,
        net=NetParams(pfc=pfc),
        storm=("h4", 2_000),
        time_limit_ns=300_000,
    )
    stuck = simulate(topo, cfg, program=program)
    fixed = simulate(
        topo, replace(cfg, net=NetParams(pfc=replace(pfc, watchdog_ns=20_000))), program=program
    )

    def victim_done(r: dict[str, Any]) -> bool:
        (f,) = [f for f in r["flows"] if f["src"] == "h2" and f["dst"] == "h3"]
        return "fct_us" in f

    assert stuck["pfc_watchdog_trips"] == 0 and fixed["pfc_watchdog_trips"] >= 1
    assert (
        stuck["pfc_pause_us_by_node"].get("spine1", 0)
        + stuck["pfc_pause_us_by_node"].get("spine2", 0)
        > 100
    )  # the storm reached the spines
    assert not victim_done(stuck)  # h2 -> h3 never touches h4, and is stuck anyway
    assert victim_done(fixed)
    assert fixed["pfc_pause_us"] < stuck["pfc_pause_us"]
    assert fixed["drops_by_cause"]["pfc_watchdog"] > 0


def test_ecmp_on_a_fat_tree_uses_every_core(program: CompiledProgram) -> None:
    """Hash ECMP is not polarised: an aggregation switch does not pick its core with the
    bits its edge switch already used (each tier rotates the hash), so a permutation's
    inter-pod flows reach all four cores of a k=4 fat-tree, not two."""
    from pathlib import Path

    from controller.topology import load_topology

    topo = load_topology(Path(__file__).resolve().parents[2] / "topologies" / "fat-tree-k4.yaml")
    cores = [s.name for s in topo.switches if s.role == "core"]
    for seed in (1, 2):
        nets: list[Network] = []
        cfg = SimConfig(workload="permutation", mode="ecmp", flow_bytes=30_000, seed=seed)
        r = simulate(topo, cfg, program=program, on_network=nets.append)
        assert r["flows_completed"] == 16
        through = {
            c: sum(w.packets for (a, _b), w in nets[0].wires.items() if a == c) for c in cores
        }
        assert all(n > 0 for n in through.values()), (seed, through)
