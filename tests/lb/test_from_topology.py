"""Routes computed on a topology file, mapped onto the encoder's input and encoded for
every switch: each routed prefix ends in a group whose members lead to the next hops the
routing chose, with the neighbours' MACs."""

from __future__ import annotations

from pathlib import Path

from controller import P4Schema
from controller.fabric import Pipeline
from controller.lb import FabricEncoder, Policy
from controller.lb.from_topology import switch_intent
from controller.routing import compute_routes
from controller.topology import load_topology

ROOT = Path(__file__).resolve().parents[2]


def test_leaf_spine_routes_become_groups_and_members(pipeline: Pipeline) -> None:
    topo = load_topology(ROOT / "topologies" / "leaf-spine-2x2.yaml")
    routes = compute_routes(topo)
    enc = FabricEncoder(P4Schema(pipeline.p4info))
    for name in topo.switch_names():
        sr = routes.switch_routes(name)
        intent = switch_intent(topo, sr)
        assert intent.router_mac == topo.switch(name).router_mac
        host_ports = {h.port for h in topo.hosts_of(name)}
        assert set(intent.ports_with("host")) == host_ports
        entities = enc.switch_entities(intent, Policy())
        members: dict[int, list[tuple[int, int]]] = {}
        routed: dict[str, int] = {}
        for e in entities:
            table = getattr(e, "table", "").split(".")[-1]
            if table == "next_hop_member":
                gid = e.match["group_id"].value  # type: ignore[union-attr]
                p = e.action.params  # type: ignore[union-attr]
                members.setdefault(gid, []).append((p["port"], p["dmac"]))
            elif table in ("routing_v4", "routing_v6"):
                m = next(iter(e.match.values()))  # type: ignore[union-attr]
                routed[f"{m.value}/{m.prefix_len}"] = e.action.params["group_id"]  # type: ignore[union-attr]
        assert len(routed) == len(sr.routes)
        for prefix, gid in sr.routes.items():
            want = sorted(
                (
                    topo.port_to(name, n),
                    int(
                        (
                            topo.switch(n).router_mac if topo.is_switch(n) else topo.host(n).mac
                        ).replace(":", ""),
                        16,
                    ),
                )
                for n in sr.groups[gid].neighbours
            )
            assert sorted(set(members[gid])) == want, (name, prefix)


def test_each_tier_rotates_the_ecmp_hash_by_its_own_bits(pipeline: Pipeline) -> None:
    """Edge switches pick with the flow hash as it is, aggregation switches with it rotated
    8 bits, cores 16 (their tier from the hosts, not from the role names): the default
    entry of ecmp_hash_bits is written where the rotation is not 0."""
    topo = load_topology(ROOT / "topologies" / "fat-tree-k4.yaml")
    routes = compute_routes(topo)
    enc = FabricEncoder(P4Schema(pipeline.p4info))
    want = {"edge": 0, "agg": 8, "core": 16}
    seen = set()
    for name in topo.switch_names():
        role = topo.switch(name).role
        intent = switch_intent(topo, routes.switch_routes(name))
        assert intent.ecmp_hash_rotation == want[role], name
        defaults = [
            e
            for e in enc.switch_entities(intent, Policy())
            if getattr(e, "table", "").endswith("ecmp_hash_bits")
        ]
        if want[role]:
            assert [(d.is_default, d.action.name.split(".")[-1]) for d in defaults] == [  # type: ignore[union-attr]
                (True, f"rotate_{want[role]}")
            ]
        else:
            assert defaults == []
        seen.add(role)
    assert seen == set(want)
