"""sprayfabric job-report: a collective's steps, its slowest flows and where they waited.

A ring all-reduce with a slow link is reported as slow at that link's switch and port;
the same all-reduce without the fault has even steps; INT covers every flow's hops; the
same run twice gives the same record."""

from __future__ import annotations

import json
import random
from pathlib import Path
from statistics import median
from typing import Any

import pytest

from controller.topology import load_topology
from fabricsim.collective import buffer_bytes, flow_steps
from fabricsim.faults import parse_fault
from fabricsim.job_report import job_report
from fabricsim.run import SimConfig, simulate
from fabricsim.workloads import make_workload
from sprayfabric.cli import main

TOPO = Path(__file__).resolve().parents[2] / "topologies" / "leaf-spine-2x2.yaml"
SLOW = ("leaf1", "spine2")
FRACTION = 0.5
CHUNK = 50_000


def _cli_run(tmp: Path, *extra: str) -> dict[str, Any]:
    out = tmp / "run.json"
    args = ["sim", str(TOPO), "--workload", "allreduce", "--chunk-bytes", str(CHUNK)]
    assert main([*args, *extra, "--json", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def slow_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("slow")
    return _cli_run(tmp, "--fault", f"slow:{SLOW[0]}-{SLOW[1]},{FRACTION}@0")


@pytest.fixture(scope="module")
def healthy_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _cli_run(tmp_path_factory.mktemp("healthy"))


def _ideal_us(run: dict[str, Any]) -> float:
    return max(f["ideal_ns"] for f in run["job"]["flows"]) / 1000


def test_steps_follow_the_dependencies() -> None:
    hosts = [f"h{i}" for i in range(1, 6)]
    ring = make_workload("allreduce", hosts, buffer_bytes("allreduce", 5, 1000), 3)
    steps = flow_steps(ring)
    assert sorted(set(steps.values())) == list(range(2 * (len(hosts) - 1)))
    for f in ring:
        assert f.size == 1000
        assert all(steps[d] == steps[f.fid] - 1 for d in f.after)
        assert (steps[f.fid] == 0) == (not f.after)
    a2a = make_workload("alltoall", hosts, buffer_bytes("alltoall", 5, 700), 3)
    assert {steps for steps in flow_steps(a2a).values()} == {0}
    assert {f.size for f in a2a} == {700} and len(a2a) == 5 * 4
    with pytest.raises(ValueError, match="not a collective"):
        buffer_bytes("permutation", 4, 10)


def test_step_depth_of_a_chain_beyond_recursion() -> None:
    from fabricsim.workloads import Flow

    n = 5000
    chain = [Flow(i, "a", "b", 1, 0, (i - 1,) if i else ()) for i in range(n)]
    random.Random(1).shuffle(chain)
    assert max(flow_steps(chain).values()) == n - 1


def test_slow_link_is_where_the_slowest_step_waited(slow_run: dict[str, Any]) -> None:
    d = job_report(slow_run)
    assert slow_run["faults"][0]["place"] == list(SLOW)
    slowest = d["steps"][d["slowest_step"]]
    assert slowest["duration_us"] == max(s["duration_us"] for s in d["steps"])
    assert sum(s["duration_us"] for s in d["steps"]) == pytest.approx(
        d["steps"][-1]["end_us"] - d["steps"][0]["start_us"], abs=0.01
    )  # the steps tile the job along its critical path
    top = slowest["slowest_flows"][0]
    assert top["fct_us"] == max(f["fct_us"] for f in slowest["slowest_flows"])
    flow = slowest["critical_flow"]
    assert flow["end_us"] == slowest["end_us"]
    for f in (flow, top):
        hop = f["waited_at"]
        # the queue in front of the slow link, at either of its ends
        assert {hop["switch"], hop["to"]} == set(SLOW)
        assert hop["hop_latency_ns"]["p99"] == max(h["hop_latency_ns"]["p99"] for h in f["hops"])
    hop = flow["waited_at"]
    assert f"flow {flow['src']}->{flow['dst']} (FCT {flow['fct_us']:g} us" in d["verdict"]
    assert f"{hop['switch']} port {hop['port']} (to {hop['to']})" in d["verdict"]
    assert f"step {slowest['step']} took" in d["verdict"]
    assert not d["verdict"].startswith("even")


def test_healthy_steps_are_even(healthy_run: dict[str, Any], slow_run: dict[str, Any]) -> None:
    d = job_report(healthy_run)
    assert d["incomplete_steps"] == []
    durations = [s["duration_us"] for s in d["steps"]]
    assert len(durations) == 2 * (len(healthy_run["job"]["hosts"]) - 1)
    # even: no step longer than the median step plus one chunk's ideal transfer (an ECMP
    # collision at most doubles a chunk's time on a shared uplink)
    bound = median(durations) + _ideal_us(healthy_run)
    assert max(durations) <= bound
    assert d["verdict"].startswith("even")
    # the slow link breaks that bound, so the bound tells the two runs apart
    slow = [s["duration_us"] for s in job_report(slow_run)["steps"]]
    assert max(slow) > median(slow) + _ideal_us(slow_run)
    assert job_report(slow_run)["slowest_over_median"] > d["slowest_over_median"]


def test_int_covers_every_flow_and_hop(healthy_run: dict[str, Any]) -> None:
    topo = load_topology(TOPO)
    leaf = {h.name: h.switch for h in topo.hosts}
    job = healthy_run["job"]
    pmtu = healthy_run["config"]["pmtu"]
    for f in job["flows"]:
        hops = job["int"][str(f["fid"])]
        switches = [h["switch"] for h in hops]
        # leaf, spine, leaf across leaves; the one leaf within it
        assert len(switches) == (1 if leaf[f["src"]] == leaf[f["dst"]] else 3)
        assert switches[0] == leaf[f["src"]] and switches[-1] == leaf[f["dst"]]
        assert hops[-1]["to"] == f["dst"]
        # every data packet carried INT through every hop (none left out for its MTU)
        assert all(h["packets"] >= -(-f["bytes"] // pmtu) for h in hops)


def test_job_report_cli_and_determinism(
    slow_run: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(slow_run))
    assert main(["job-report", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == job_report(slow_run)
    assert main(["job-report", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.strip().splitlines()[-1] == f"verdict: {job_report(slow_run)['verdict']}"
    # the same configuration again, in process: the same job record
    topo = load_topology(TOPO)
    cfg = SimConfig(
        workload="allreduce",
        flow_bytes=buffer_bytes("allreduce", len(topo.hosts), CHUNK),
        faults=(parse_fault(f"slow:{SLOW[0]}-{SLOW[1]},{FRACTION}@0"),),
    )
    again = json.loads(json.dumps(simulate(topo, cfg)["job"]))
    assert again == slow_run["job"]


def test_job_report_refuses_runs_without_a_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "perm.json"
    path.write_text(json.dumps({"config": {"workload": "permutation"}}))
    assert main(["job-report", str(path)]) == 1
    assert "no job record" in capsys.readouterr().err
    assert main(["job-report", str(tmp_path / "none.json")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["sim", str(TOPO), "--chunk-bytes", "1000"]) == 1
    assert "not a collective" in capsys.readouterr().err


def test_alltoall_one_step_slowest_flow_at_the_slow_link(tmp_path: Path) -> None:
    out = tmp_path / "a2a.json"
    args = ["sim", str(TOPO), "--workload", "alltoall", "--chunk-bytes", "20000"]
    fault = f"slow:{SLOW[0]}-{SLOW[1]},{FRACTION}@0"
    assert main([*args, "--fault", fault, "--json", str(out)]) == 0
    d = job_report(json.loads(out.read_text()))
    (step,) = d["steps"]
    assert step["flows"] == step["completed"] == 4 * 3
    hop = step["slowest_flows"][0]["waited_at"]
    assert {hop["switch"], hop["to"]} == set(SLOW)
    assert "1 step of 12 flows" in d["verdict"]


def _hop(sw: str, port: int, to: str, lat_us: int, queue: int) -> dict[str, Any]:
    return {
        "switch": sw,
        "port": port,
        "to": to,
        "packets": 10,
        "queue_pkts": {"p50": queue // 2, "p99": queue, "max": queue},
        "hop_latency_ns": {"p50": 0, "p99": lat_us * 1000, "max": lat_us * 1000, "sum": 0},
    }


def _synthetic() -> dict[str, Any]:
    """Two hosts a, b exchanging chunks for three steps: a->b then b->a, each waiting for
    the chunk it received; step 1's b->a is slow, and step 0 has a slow flow that is not on
    the critical path (c->d, waited for by nothing)."""
    flows = [
        # fid, src, dst, step, after, start, end (us)
        (0, "a", "b", 0, [], 0, 10),
        (1, "b", "a", 0, [], 0, 9),
        (2, "c", "d", 0, [], 0, 25),
        (3, "a", "b", 1, [1], 9, 19),
        (4, "b", "a", 1, [0], 10, 50),
        (5, "a", "b", 2, [4], 50, 60),
        (6, "b", "a", 2, [3], 19, 29),
    ]
    return {
        "job": {
            "workload": "allreduce",
            "hosts": ["a", "b", "c", "d"],
            "steps": 3,
            "flows": [
                {
                    "fid": fid,
                    "src": s,
                    "dst": d,
                    "bytes": 1000,
                    "step": k,
                    "after": after,
                    "start_ns": t0 * 1000,
                    "end_ns": t1 * 1000,
                    "ideal_ns": 8000,
                }
                for fid, s, d, k, after, t0, t1 in flows
            ],
            "int": {
                "4": [_hop("leaf2", 3, "spine1", 2, 9), _hop("spine1", 1, "leaf1", 30, 70)],
                "2": [_hop("leaf3", 1, "spine2", 12, 40)],
            },
        }
    }


def test_critical_path_times_the_steps() -> None:
    d = job_report(_synthetic())
    # critical path: 5 (ended last) <- 4 <- 0; steps tile [0, 60] us
    assert [(s["start_us"], s["end_us"]) for s in d["steps"]] == [(0, 10), (10, 50), (50, 60)]
    assert [s["critical_flow"]["fid"] for s in d["steps"]] == [0, 4, 5]
    assert d["steps"][0]["slowest_flows"][0]["fid"] == 2  # slow, but off the path
    assert d["steps"][0]["span_end_us"] == 25
    assert d["slowest_step"] == 1 and d["step_median_us"] == 10
    assert d["slowest_over_median"] == 4
    crit = d["steps"][1]["critical_flow"]
    assert crit["slowdown"] == 5 and crit["waited_at"]["switch"] == "spine1"
    assert d["verdict"] == (
        "step 1 took 4x the median step (40 us vs 10 us, 1.2x a chunk's ideal 8 us); flow "
        "b->a (FCT 40 us, 5x ideal) waited 30 us (p99 per packet) at spine1 port 1 "
        "(to leaf1) (queue p99 70 pkts)"
    )


def test_an_incomplete_step_is_the_verdict() -> None:
    run = _synthetic()
    run["job"]["flows"][5]["end_ns"] = None
    d = job_report(run)
    assert d["incomplete_steps"] == [2]
    assert d["steps"][2]["duration_us"] is None and d["steps"][2]["completed"] == 1
    assert d["verdict"].startswith("step 2 did not complete")


def test_sim_points_a_collective_at_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["sim", str(TOPO), "--workload", "alltoall", "--chunk-bytes", "2000"]
    assert main(args) == 0
    assert "steps    1: sprayfabric report job RUN.json" in capsys.readouterr().out
    assert main(["sim", str(TOPO), "--flow-bytes", "2000"]) == 0
    assert "report job" not in capsys.readouterr().out
