"""fabricsim's controller keeps its group ids across a reroute: a link failure on a k=4
fat-tree writes exactly the routes whose next hops changed and the entries of the groups
of next-hop sets that appeared or went (worked out from the topology by the reference BFS
of tests/lb/test_stable_group_ids.py), and the link's return puts back every entry as it
was first installed."""

from __future__ import annotations

from controller.lb import Policy
from controller.lb.wcmp import slots
from controller.topology.generators import fat_tree
from fabricsim.controlplane import fabric_controller
from fabricsim.network import NetParams, Network
from softswitch.codegen.program import CompiledProgram
from tests.lb.test_stable_group_ids import Key, reference_tables


def group_entries(key: Key, max_members: int) -> int:
    """The group entry and one member entry per slot."""
    hops, weights = key
    w = None if len(set(weights)) <= 1 else list(weights)
    return 1 + len(slots(w, len(hops), max_members))


def expected_updates(
    before: dict[str, dict[str, Key]], after: dict[str, dict[str, Key]], m: int
) -> int:
    n = 0
    for name, old in before.items():
        new = after[name]
        n += sum(1 for p in old.keys() | new.keys() if old.get(p) != new.get(p))
        came = set(new.values()) - set(old.values())
        gone = set(old.values()) - set(new.values())
        n += sum(group_entries(k, m) for k in came | gone)
    return n


def test_reroute_writes_only_what_changed(program: CompiledProgram) -> None:
    topo = fat_tree(4)
    net = Network(topo, program, NetParams(), seed=1)
    control = fabric_controller(topo, net.switches, program, Policy())
    control.install()
    first = {n: dict(v) for n, v in control.core.installed.items()}
    installed = sum(len(v) for v in control.core.installed.values())
    link = ("pod1-edge1", "pod1-agg0")
    healthy, cut = reference_tables(topo, []), reference_tables(topo, [link])
    m = control.core.encoders["pod1-edge1"].max_members
    want = expected_updates(healthy, cut, m)
    assert 0 < want < installed / 4
    assert control.reroute(*link) == want
    # the link comes back: routes and groups as they were
    assert control.restore(*link) == expected_updates(cut, healthy, m)
    assert control.core.installed == first
