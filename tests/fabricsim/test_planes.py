"""Multi-plane fabrics in fabricsim: the permutation workload is of servers, each
server's flow striped over its NICs (one subflow per plane); flows that would cross
planes are refused."""

from __future__ import annotations

import random

import pytest

from fabricsim.experiments import load_spec
from fabricsim.run import SimConfig, simulate
from fabricsim.workloads import permutation
from softswitch.codegen.program import CompiledProgram


def test_striped_permutation_of_servers() -> None:
    servers = {f"s{i}": [f"s{i}-a", f"s{i}-b", f"s{i}-c"] for i in range(6)}
    nics = [n for v in servers.values() for n in v]
    flows = permutation(nics, 1000, random.Random(7), servers=servers)
    assert len(flows) == 18 and [f.fid for f in flows] == list(range(18))
    server_of = {n: s for s, v in servers.items() for n in v}
    plane_of = {n: k for v in servers.values() for k, n in enumerate(v)}
    dst_of: dict[str, set[str]] = {}
    for f in flows:
        assert plane_of[f.src] == plane_of[f.dst]  # one subflow per plane, same plane
        assert server_of[f.src] != server_of[f.dst]  # a derangement of servers
        dst_of.setdefault(server_of[f.src], set()).add(server_of[f.dst])
    assert all(len(d) == 1 for d in dst_of.values())  # one destination server per server
    assert sorted(d for ds in dst_of.values() for d in ds) == sorted(servers)  # a permutation
    per_server: dict[str, int] = {}
    for f in flows:
        per_server[server_of[f.src]] = per_server.get(server_of[f.src], 0) + f.size
    assert set(per_server.values()) == {1000}  # 334 + 333 + 333
    assert {f.size for f in flows} == {333, 334}


def test_one_nic_per_server_is_the_plain_permutation() -> None:
    hosts = [f"h{i}" for i in range(9)]
    plain = permutation(hosts, 500, random.Random(3))
    same = permutation(hosts, 500, random.Random(3), servers={h: [h] for h in hosts})
    assert plain == same


def test_uneven_servers_refused() -> None:
    with pytest.raises(ValueError, match="different numbers of NICs"):
        permutation(["a", "b", "c"], 10, random.Random(1), servers={"x": ["a", "b"], "y": ["c"]})


def test_two_plane_run_uses_both_planes(program: CompiledProgram) -> None:
    topo = load_spec("leaf-spine:2x2x2:planes=2")
    r = simulate(
        topo,
        SimConfig(workload="permutation", mode="spray", transport="dctcp", flow_bytes=30_000),
        program=program,
    )
    flows = r["flows"]
    assert len(flows) == 8 and all("fct_us" in f for f in flows)
    plane = {h.name: h.plane for h in topo.hosts}
    assert sorted(plane[f["src"]] for f in flows) == [0] * 4 + [1] * 4
    assert all(f["bytes"] == 15_000 for f in flows)


def test_cross_plane_workload_refused(program: CompiledProgram) -> None:
    topo = load_spec("leaf-spine:2x2x2:planes=2")
    with pytest.raises(ValueError, match="crosses planes"):
        simulate(topo, SimConfig(workload="all_to_all", flow_bytes=10_000), program=program)
