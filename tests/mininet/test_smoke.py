"""Mininet smoke test (root, Mininet installed): a 2x2 leaf-spine with 2 hosts per leaf,
softswitch processes programmed by the controller over P4Runtime.

- pingall: every host reaches every other (ARP answered by the switches' ARP responders);
- under ecmp, one ping flow from h1 to h3 stays on one uplink of leaf1; under spray the
  same flow's packets leave by both uplinks (read from egress port counters over
  P4Runtime); with the link leaf1-spine1 down (the prompt's `link down`), all of them take
  spine2 and none is lost; a restarted switch process is restored by the controller;
- afterwards nothing the run created is left: no interface, process or namespace.
Traffic stays small: softswitch is a Python process per switch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from fabricnet.mn import mininet_missing_reason

from ._tags import unique_tag

REASON = mininet_missing_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"Mininet smoke test: {REASON}")

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = ROOT / "topologies" / "leaf-spine-2x2.yaml"
PINGS = 24


def _uplink_delta(before: dict, after: dict, leaf: str) -> dict[str, int]:
    return {u.peer: after[u] - before[u] for u in after if u.switch == leaf}


def _recorded_pids(workdir: Path) -> dict[str, int]:
    """{switch: PID} from the run's ledger of switch processes."""
    data = json.loads((workdir / "switches.json").read_text())
    return {p["name"]: p["pid"] for p in data["processes"]}


def test_leaf_spine_pingall_and_spray_uses_both_uplinks(tmp_path: Path) -> None:
    from controller.topology import load_topology
    from fabricnet.fabric import MininetFabric, RunOptions

    topology = load_topology(TOPOLOGY)
    tag = unique_tag("zs")
    options = RunOptions(workdir=tmp_path, free_ports=True, tag=tag)
    fab = MininetFabric(topology, options)
    with fab:
        net = fab.net
        assert net is not None
        assert fab.pingall() == 0.0
        h1 = fab.mininet.get("h1")
        h3_ip = fab.host_ip("h3")
        prompt = fab.control()  # what the sprayfabric> prompt calls

        def pings() -> dict[str, int]:
            before = fab.uplink_packets()
            out = h1.cmd(f"ping -c {PINGS} -i 0.05 -W 2 {h3_ip}")
            assert f"{PINGS} received" in out, out
            return _uplink_delta(before, fab.uplink_packets(), "leaf1")

        prompt.set_lb("ecmp")  # what the run started with: nothing to change
        ecmp = pings()
        # every next-hop group of every switch gets one MODIFY
        assert fab.run.sessions is not None
        groups = sum(
            1
            for sw in fab.run.sessions.switches.values()
            for e in sw.desired
            if getattr(e, "table", "").endswith("next_hop_group")
        )
        assert groups >= 4  # at least one group per switch
        assert prompt.set_lb("spray") == f"every group -> spray: {groups} entries modified"
        spray = pings()
        prompt.link_down("leaf1", "spine1")
        rerouted = pings()
        prompt.link_up("leaf1", "spine1")
        assert "leaf1:3 -> spine1" in prompt.counters()
        # a switch process restarted empty on its veths is restored by the controller
        sessions = fab.run.sessions
        assert sessions is not None
        restores = sessions["spine2"].counts.restores
        old_pid = fab.mininet.get("spine2").process.pid
        new_pid = fab.run.restart_switch("spine2")
        assert new_pid != old_pid
        # the ledger names each live switch process, so a killed run's are stopped later
        recorded = _recorded_pids(tmp_path)
        live = {n: fab.mininet.get(n).process.pid for n in ("leaf1", "leaf2", "spine1", "spine2")}
        assert recorded == live, (recorded, live)
        assert sessions.wait_restored("spine2", restores, timeout=120)
        out = h1.cmd(f"ping -c 5 -i 0.1 -W 2 {h3_ip}")
        assert "5 received" in out, out
        footprint = net.footprint
    # ecmp: one flow, one uplink; spray: both uplinks carry the same flow
    assert sorted(ecmp.values()) == [0, PINGS], ecmp
    assert sum(spray.values()) == PINGS and min(spray.values()) > 0, spray
    assert rerouted == {"spine1": 0, "spine2": PINGS}, rerouted
    # nothing the run created is left, and a clean stop removes the ledger
    assert not footprint.leftovers(), str(footprint.leftovers())
    assert not (tmp_path / "switches.json").exists()
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f"{tag}leaf" not in links and f"{tag}spine" not in links and f"{tag}h1" not in links
    assert len(footprint.namespaces) == len(topology.hosts)
