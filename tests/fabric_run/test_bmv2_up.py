"""`sprayfabric up --target bmv2`: a 2x2 leaf-spine of simple_switch_grpc processes on veth
pairs, hosts as network namespaces, programmed by the controller; every host pings and
sends frames to every other; stopping removes every veth and namespace. Without root or
without BMv2 the command refuses in one line."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from controller.fabric.bmv2 import Bmv2Run, bmv2_unavailable
from controller.fabric.traffic import send
from controller.lb import load_policy
from controller.topology import load_topology
from sprayfabric.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOPO = ROOT / "topologies" / "leaf-spine-2x2.yaml"


def _refusal(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["up", str(TOPO), "--target", "bmv2", "--free-ports"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("sprayfabric: error: target bmv2")
    return err


def test_refuses_without_bmv2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no simple_switch_grpc, no p4c-bm2-ss
    monkeypatch.chdir(tmp_path)
    err = _refusal(capsys)
    assert "simple_switch_grpc and p4c-bm2-ss on PATH" in err
    assert not (tmp_path / ".sprayfabric").exists()


def test_refuses_without_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for tool in ("simple_switch_grpc", "p4c-bm2-ss"):  # present, but never run
        f = tmp_path / tool
        f.write_text("#!/bin/sh\nexit 99\n")
        f.chmod(f.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ.get('PATH', '')}")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.chdir(tmp_path)
    assert "needs root" in _refusal(capsys)


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (veth pairs and network namespaces)"
    return bmv2_unavailable()


@pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
@pytest.mark.skipif(
    shutil.which("ping") is None,
    reason="needs ping between the hosts (Debian: apt-get install iputils-ping)",
)
def test_2x2_on_bmv2_every_pair(tmp_path: Path) -> None:
    topo = load_topology(TOPO)
    run = Bmv2Run(
        topo,
        workdir=tmp_path,
        tag=f"b{os.getpid() % 10000}",
        fixed_addresses=False,
        poll_interval=0.5,
        policy=load_policy(ROOT / "topologies" / "policy-default.yaml"),  # spray, ECN, INT
    )
    try:
        run.start(control=False)
        assert run.veth_plan is not None and run.sessions is not None
        plan = run.veth_plan
        names = [n for pair in plan.pairs for n in pair] + [
            h.switch_iface for h in plan.hosts.values()
        ]
        assert all(Path("/sys/class/net", n).exists() for n in names)
        assert all(len(n) <= 15 for n in names)
        # one simple_switch_grpc per switch, each with its own device id and ports
        cmds = {n: h.command() for n, h in run.handles.items()}
        pids = [h.pid for h in run.handles.values()]
        assert all(c[0].endswith("simple_switch_grpc") for c in cmds.values())
        for sw in topo.switches:
            c = cmds[sw.name]
            assert c[c.index("--device-id") + 1] == str(sw.device_id)
        assert len({c[c.index("--thrift-port") + 1] for c in cmds.values()}) == len(cmds)
        assert len({h.grpc_addr for h in run.handles.values()}) == len(cmds)
        # programmed by the same code path: what each switch holds is what it should
        again = run.sessions.sync_all()
        assert all(r.changed == 0 and r.read > 0 for r in again.values())

        hosts = {h.name: h for h in run.host_states()}
        for a in hosts.values():
            for b in hosts.values():
                if a is b:
                    continue
                ping = subprocess.run(
                    ["ip", "netns", "exec", a.netns or "", "ping", "-c", "1", "-W", "3", b.ip],
                    capture_output=True,
                    text=True,
                    timeout=30,
                )
                assert ping.returncode == 0, (a.name, b.name, ping.stdout, ping.stderr)
                r = send(a, b, 20, flows=4, rate_pps=400, wait=0.5)
                assert (r.sent, r.received) == (20, 20), (a.name, b.name, r)
        # RoCEv2 is INT-watched: leaf2's reports reach the collector through its veth tap
        assert run.collector is not None
        before = run.collector.received
        r = send(hosts["h1"], hosts["h4"], 30, flows=4, roce=True, rate_pps=300, wait=0.5)
        assert r.received == 30
        assert run.collector.wait_for(before + 30, timeout=10), run.collector.received
        hops = [h.switch_id for h in run.collector.reports()[-1].hops]
        assert hops[0] == topo.switch("leaf1").device_id and len(hops) == 3
        # every switch counted its fabric traffic (fabric.p4's counters, read over P4Runtime)
        leaf_uplinks = [run.topology.port_to("leaf1", s) for s in ("spine1", "spine2")]
        from controller.telemetry import poll_counters

        s = run.sessions["leaf1"].session
        assert s is not None
        snap = poll_counters(s, "leaf1", leaf_uplinks, members=False)
        assert sum(snap.tx[p].packets for p in leaf_uplinks) >= 2 * 20
        # a restarted simple_switch_grpc (same veths, address, device id) is restored
        before = run.sessions["spine1"].counts.restores
        old_pid = run.handles["spine1"].pid
        assert run.restart_switch("spine1") != old_pid
        pids.append(run.handles["spine1"].pid)
        assert run.sessions.wait_restored("spine1", before, timeout=60)
        assert run.sessions.sync_all(["spine1"])["spine1"].changed == 0
        r = send(hosts["h3"], hosts["h1"], 40, flows=8, rate_pps=400, wait=0.5)
        assert r.received == 40
        # the poller's view: counters read although PI reads no registers (queue unknown)
        links = run.telemetry()["links"]
        assert links and all(lk["queue"] is None for lk in links)
        assert sum(lk["tx_packets"] for lk in links if lk["switch"] == "leaf1") > 0
    finally:
        run.stop()
    assert not any(Path("/sys/class/net", n).exists() for n in names)
    assert not any(Path("/var/run/netns", h.netns).exists() for h in plan.hosts.values())
    assert not (tmp_path / "veths.json").exists()
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="needs root and iproute2's ip (veth pairs and network namespaces)",
)
def test_veths_left_by_a_dead_run_are_removed_and_foreign_names_refused(tmp_path: Path) -> None:
    from controller.fabric.veth import VethError, VethNet, plan_veths

    topo = load_topology(TOPO)
    tag = f"v{os.getpid() % 10000}"
    plan = plan_veths(topo, {"leaf1": 510}, tag)
    record = tmp_path / "veths.json"
    first = VethNet(plan, record)
    first.create()
    names = [n for pair in plan.pairs for n in pair] + [h.switch_iface for h in plan.hosts.values()]
    try:
        assert all(Path("/sys/class/net", n).exists() for n in names)
        # the process that made them dies without removing them
        dead = subprocess.Popen(["true"])
        dead.wait()
        text = record.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead.pid}')
        record.write_text(text)
        second = VethNet(plan, record)
        second.create()  # removes the leftovers, then makes them again
        assert all(Path("/sys/class/net", n).exists() for n in names)
        assert second.remove() == []
        assert not any(Path("/sys/class/net", n).exists() for n in names)
        assert not record.exists()
        # a name taken by something else is never touched
        subprocess.run(
            ["ip", "link", "add", names[0], "type", "veth", "peer", "name", f"{tag}x"], check=True
        )
        try:
            with pytest.raises(VethError, match="already exist"):
                VethNet(plan, record).create()
            assert Path("/sys/class/net", names[0]).exists()
            assert not any(Path("/sys/class/net", n).exists() for n in names[1:])
        finally:
            subprocess.run(["ip", "link", "del", names[0]], check=False)
    finally:
        first.remove()
        for n in names:
            subprocess.run(["ip", "link", "del", n], capture_output=True, check=False)


@pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
@pytest.mark.skipif(shutil.which("simple_switch_CLI") is None, reason="needs simple_switch_CLI")
def test_bmv2_queue_rate_makes_queues_marks_and_trims(tmp_path: Path) -> None:
    """Egress ports slowed to 200 packets/s through simple_switch_CLI: 1,000 packets/s of
    ECN-capable RoCEv2 from h1 to h4 fill leaf1's uplinks, so the data plane marks, trims
    and sends CNPs."""
    run = Bmv2Run(
        load_topology(TOPO),
        workdir=tmp_path,
        tag=f"q{os.getpid() % 10000}",
        fixed_addresses=False,
        policy=load_policy(ROOT / "topologies" / "policy-default.yaml"),
        queue_rate=200,
        priority_queues=2,
    )
    try:
        run.start(control=False)
        hosts = {h.name: h for h in run.host_states()}
        r = send(hosts["h1"], hosts["h4"], 800, flows=8, roce=True, ecn=True, rate_pps=1000)
        assert r.ce_marked > 0 and r.trimmed > 0, r
        assert run.sessions is not None
        s = run.sessions["leaf1"].session
        assert s is not None
        from controller.telemetry import poll_counters

        snap = poll_counters(s, "leaf1", [1, 3, 4], members=False)
        assert snap.ecn_marked[3].packets + snap.ecn_marked[4].packets > 0
        assert snap.cnp[1].packets > 0  # toward the sender
    finally:
        run.stop()
