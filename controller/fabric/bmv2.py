"""`sprayfabric up --target bmv2`: the same fabric run on BMv2 `simple_switch_grpc`
processes, cabled with veth pairs, hosts as network namespaces (root only).

    run = Bmv2Run(topology, workdir=Path(".sprayfabric"))
    run.start()          # compile (cached), veths + namespaces, one switch per process, program
    ...                  # ip netns exec sf-h1 ping 10.0.1.1
    run.stop()           # switch processes by PID, then every veth and namespace it made

Everything but the cables is `FabricRun`'s: fabric.p4 compiled for the target (here
`p4c-bm2-ss`, kept in a cache keyed by the sources' content), the switch processes started
by the one launcher (`controller.targets.SwitchProcess`, each with its own `--device-id`,
`--thrift-port` and P4Runtime port), the pipeline pushed over P4Runtime, routes and knobs
written and reconciled by the same sessions, restarted switches restored, counters polled.
The cables (`veth.py`): a veth pair per link, named after switch and port; a host is a
network namespace `sf-<host>` whose `eth0` is cabled to its switch, with the topology's IP
and MAC and a default route out of `eth0` (the switches answer ARP for every host address,
`fabric_desired_state_with_arp`); each switch's INT collector port is a veth pair whose
other end the controller reads (`FrameTap`) and hands to the INT collector.

What BMv2 does not do: P4Runtime register reads (PI answers UNIMPLEMENTED), so the
telemetry's queue occupancy per port comes from INT reports only.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..targets import SwitchSpec
from .desired import fabric_desired_state_with_arp
from .runner import FabricRun
from .veth import FrameTap, VethNet, VethPlan, plan_veths

__all__ = ["Bmv2Run", "bmv2_unavailable"]

log = logging.getLogger("controller.fabric.bmv2")


def bmv2_unavailable() -> str | None:
    """Why a BMv2 fabric cannot run here (one line), or None when it can."""
    missing = [t for t in ("simple_switch_grpc", "p4c-bm2-ss") if shutil.which(t) is None]
    if missing:
        return (
            f"target bmv2 needs {' and '.join(missing)} on PATH (the p4lang BMv2 switch and "
            "compiler); without them use --target softswitch"
        )
    if os.geteuid() != 0:
        return (
            "target bmv2 needs root: its cables are veth pairs and its hosts network "
            "namespaces; run as root, or use --target softswitch (no root)"
        )
    if shutil.which("ip") is None:
        return "target bmv2 needs the `ip` command (iproute2) for its veth pairs"
    return None


class Bmv2Run(FabricRun):
    """A `FabricRun` of simple_switch_grpc processes on veth pairs (module docstring).
    `tag` prefixes every interface and namespace name (runs side by side)."""

    cabled_targets = ("bmv2",)

    def __init__(
        self,
        topology: Any,
        *,
        workdir: Path,
        tag: str = "",
        queue_rate: int | None = None,
        queue_depth: int | None = None,
        priority_queues: int | None = None,
        **kwargs: Any,
    ) -> None:
        """`queue_rate` (packets/s) and `queue_depth` (packets) of every egress port are
        set with `simple_switch_CLI` on each switch's Thrift port once it is programmed
        (and again after a restart); `priority_queues` is simple_switch_grpc's own option."""
        kwargs.setdefault("desired_state", fabric_desired_state_with_arp)
        super().__init__(topology, workdir=workdir, target="bmv2", **kwargs)
        self.tag = tag
        self.queue_commands = "".join(
            f"{cmd} {v}\n"
            for cmd, v in (("set_queue_rate", queue_rate), ("set_queue_depth", queue_depth))
            if v is not None
        )
        self.priority_queues = priority_queues
        self.veth_plan: VethPlan | None = None
        self.veths: VethNet | None = None
        self.tap: FrameTap | None = None

    def start(self, control: bool = True) -> None:
        reason = bmv2_unavailable()
        if reason is None and self.queue_commands and shutil.which("simple_switch_CLI") is None:
            reason = "queue rates on BMv2 need simple_switch_CLI on PATH"
        if reason is not None:
            raise ValueError(reason)
        super().start(control)
        try:
            for name in self.handles:
                self.set_queues(name)
        except BaseException:
            self.stop()
            raise

    def set_queues(self, name: str) -> None:
        """Apply the run's queue rate and depth to switch `name` (simple_switch_CLI)."""
        if not self.queue_commands:
            return
        h = self.handles[name]
        cli = shutil.which("simple_switch_CLI") or "simple_switch_CLI"
        done = subprocess.run(
            [cli, "--thrift-port", str(h.thrift_port)],
            input=self.queue_commands,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0 or "Error" in done.stdout:
            raise RuntimeError(
                f"{name}: simple_switch_CLI on thrift port {h.thrift_port}: "
                f"{(done.stderr or done.stdout).strip()[-300:]}"
            )

    def restart_switch(self, name: str) -> int:
        """FabricRun's restart; the queue settings again once the watcher restored it."""
        assert self.sessions is not None
        before = self.sessions[name].counts.restores
        pid = super().restart_switch(name)
        if self.queue_commands:

            def again() -> None:
                assert self.sessions is not None
                if self.sessions.wait_restored(name, before, 120.0):
                    try:
                        self.set_queues(name)
                    except RuntimeError as e:
                        log.warning("%s", e)

            threading.Thread(target=again, name=f"queues-{name}", daemon=True).start()
        return pid

    def start_processes(self) -> None:
        """Veth pairs and namespaces first, the collector's tap, then the switches."""
        assert self.wiring is not None and self.collector is not None
        collector_ports = {n: w.collector_port for n, w in self.wiring.switches.items()}
        self.veth_plan = plan_veths(self.topology, collector_ports, self.tag)
        self.veths = VethNet(self.veth_plan, self.workdir / "veths.json")
        self.veths.create()
        self.tap = FrameTap(self.veth_plan.collector_ifaces.values(), self.collector.handle)
        self.tap.start()
        super().start_processes()

    def spec(self, name: str) -> SwitchSpec:
        """FabricRun's spec on this switch's veths (a free Thrift port at each start)."""
        assert self.veth_plan is not None
        spec = replace(super().spec(name), ports=self.veth_plan.switch_ports[name])
        if self.priority_queues is not None:
            spec = replace(spec, target_args=("--priority-queues", str(self.priority_queues)))
        return spec

    def host_attachment(self, host: str) -> dict[str, Any]:
        """A host is a network namespace here; the UDP addresses are unused."""
        assert self.veth_plan is not None
        ns = self.veth_plan.hosts[host]
        nowhere = ("", 0)
        return {"address": nowhere, "switch_address": nowhere, "netns": ns.netns, "iface": ns.iface}

    def host_netns(self, host: str) -> str:
        """The network namespace that is host `host`."""
        if self.veth_plan is None:
            raise RuntimeError("the fabric is not running")
        return self.veth_plan.hosts[host].netns

    def stop(self) -> None:
        """FabricRun's stop, then every veth pair and namespace this run made, whatever
        happened before (a leftover is logged, and removed by the next run's create)."""
        try:
            if self.tap is not None:
                self.tap.close()
                self.tap = None
            super().stop()
        finally:
            if self.veths is not None:
                left = self.veths.remove()
                if left:
                    log.warning("could not remove: %s", ", ".join(left))
                self.veths = None
