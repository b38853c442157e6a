"""A topology file's fabric running in Mininet and programmed by the controller.

    with MininetFabric(topology, RunOptions(target="softswitch", workdir=Path("mn-out"))) as fab:
        fab.pingall()                       # loss in percent
        fab.set_lb("spray")
        before = fab.uplink_packets()
        ...

This is the controller's `FabricRun` (the same one `sprayfabric fabric up` runs) with one change:
its switch processes are not cabled with UDP sockets but started by Mininet, one per
switch node, on that node's veth interfaces (`FabricNet`), at the P4Runtime addresses the
run planned. Everything else is the controller's: fabric.p4 compiled for the target, one
session per switch, the pipeline pushed, routes/groups/modes/ARP entries written and
reconciled, restarted switches restored, counters polled, the control endpoint and the
state file that `sprayfabric fabric shell|status|set-lb|link` read (in `workdir`).

Leaving (normally, on an exception or Ctrl-C) closes the controller, then stops the
network; `FabricNet.stop` verifies that nothing the run created is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.entities import CounterEntry, Entity
from controller.fabric.desired import fabric_desired_state_with_arp
from controller.fabric.runner import FabricRun
from controller.lb import Policy
from controller.targets import SwitchProcess, Target

from .launch import launcher
from .net import FabricNet
from .report import Uplink, uplinks_of
from .switch import LaunchRequest, ProcessHandle, SwitchLaunch

__all__ = ["EGRESS_PORT_COUNTER", "MininetFabric", "RunOptions"]

EGRESS_PORT_COUNTER = "stats.egress_port_counter"  # packets sent per port (docs/fabric.md)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run a topology in Mininet."""

    target: Target = "softswitch"
    workdir: Path = Path(".sprayfabric")
    policy: Policy | None = None  # load-balancing policy (None: ecmp, no ECN/INT/...)
    pcap: bool = False
    bw_mbit: float | None = None  # every link's rate (None: the file's rates)
    netem: bool = False  # apply the file's delay/loss (needs tc netem in the kernel)
    free_ports: bool = False  # P4Runtime on free loopback ports instead of the file's
    tag: str = ""  # prefix of every interface name (parallel runs)
    topology_path: str = ""


def mininet_desired_state(run: FabricRun) -> dict[str, list[Entity]]:
    """The controller's desired state, plus ARP responder entries for Mininet's hosts.

    A Mininet host's default route leads straight out of its link (`FabricHost`), so it
    resolves every destination by ARP; each switch with hosts answers for every host
    address of its plane with its router MAC (`fabric_desired_state_with_arp`, as for the
    namespace hosts of `sprayfabric fabric up --target bmv2`), then routes the packets."""
    return fabric_desired_state_with_arp(run)


class _MininetRun(FabricRun):
    """The controller's FabricRun whose switch processes Mininet starts."""

    cabled_targets = ("softswitch", "bmv2")  # veths take either

    def __init__(self, topology: Any, options: RunOptions) -> None:
        super().__init__(
            topology,
            workdir=options.workdir,
            desired_state=mininet_desired_state,
            target=options.target,
            fixed_addresses=not options.free_ports,
            topology_path=options.topology_path,
            policy=options.policy or Policy(),
        )
        self.options = options
        self.fabric_net: FabricNet | None = None

    def start_processes(self) -> None:
        assert self.wiring is not None
        opts = self.options
        ports = {
            name: int(w.grpc_addr.rsplit(":", 1)[1]) for name, w in self.wiring.switches.items()
        }
        # softswitch also gets the run's cable to the INT collector (a UDP port); BMv2 has
        # no such ports, so its reports go nowhere
        collector = {
            name: {p: spec for p, spec in w.ports if p == w.collector_port}
            for name, w in self.wiring.switches.items()
            if opts.target == "softswitch"
        }
        self.fabric_net = FabricNet(
            self.topology,
            launch=self._recorded(launcher(opts.target)),
            workdir=opts.workdir,
            grpc_ports=ports,
            pcap=opts.pcap,
            bw_mbit=opts.bw_mbit,
            netem=opts.netem,
            tag=opts.tag,
            extra_interfaces=collector,
        )
        self.fabric_net.start()

    def _recorded(self, launch: SwitchLaunch) -> SwitchLaunch:
        """`launch`, each process it starts adopted by the run at once (its handle and its
        record in the ledger: `FabricRun.adopt`)."""

        def recorded(req: LaunchRequest) -> ProcessHandle:
            handle = launch(req)
            if isinstance(handle, SwitchProcess):
                self.adopt(req.name, handle)
            return handle

        return recorded

    def restart_switch(self, name: str) -> int:
        """Stop switch `name`'s process by PID and start it again, empty, on the same veths
        and address (the controller's watcher restores its state); the new PID."""
        if self.fabric_net is None or self.fabric_net.net is None:
            raise RuntimeError("the fabric is not running")
        node = self.fabric_net.net[name]
        with self.lock:
            handle = node.restart_process()  # adopted by the run as it starts
        handle.wait_ready(60.0)
        return handle.pid

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            if self.fabric_net is not None:
                net, self.fabric_net = self.fabric_net, None
                net.stop()


class MininetFabric:
    """See the module docstring."""

    def __init__(self, topology: Any, options: RunOptions) -> None:
        self.topology = topology
        self.options = options
        self.run = _MininetRun(topology, options)

    def __enter__(self) -> MininetFabric:
        self.run.start()  # stops whatever it started if it fails
        return self

    def __exit__(self, *exc: object) -> None:
        self.run.stop()

    # ------------------------------------------------------------ the network
    @property
    def net(self) -> FabricNet:
        if self.run.fabric_net is None:
            raise RuntimeError("the fabric is not running")
        return self.run.fabric_net

    @property
    def mininet(self) -> Any:
        return self.net.net

    def host_ip(self, name: str) -> str:
        return str(self.topology.host(name).ip)

    def track(self, pid: int, what: str) -> None:
        self.net.track(pid, what)

    def pingall(self, timeout: float = 2.0) -> float:
        """Mininet's pingall: every host pings every other once; the loss in percent."""
        return float(self.mininet.pingAll(timeout=str(timeout)))

    # ------------------------------------------------------------ the controller
    def set_lb(self, mode: str, group: int | None = None) -> dict[str, Any]:
        return self.run.set_lb({"mode": mode, "group": group})

    def set_link(self, a: str, b: str, up: bool) -> dict[str, Any]:
        return self.run.set_link(a, b, up)

    def uplinks(self) -> list[Uplink]:
        return uplinks_of(self.topology)

    def uplink_packets(self) -> dict[Uplink, int]:
        """Packets each leaf uplink has sent: fabric.p4's egress port counter, read from
        every leaf over its controller session (one Read per leaf)."""
        sessions = self.run.sessions
        if sessions is None:
            raise RuntimeError("the fabric is not running")
        out: dict[Uplink, int] = {}
        by_switch: dict[str, list[Uplink]] = {}
        for u in self.uplinks():
            by_switch.setdefault(u.switch, []).append(u)
        for name, ups in by_switch.items():
            session = sessions[name].session
            if session is None:
                raise RuntimeError(f"{name}: no P4Runtime session")
            counter = session.schema.counters[EGRESS_PORT_COUNTER].name
            got = {
                e.index: e.data.packets
                for e in session.read(*(CounterEntry(counter, u.port) for u in ups))
                if isinstance(e, CounterEntry) and e.data is not None
            }
            for u in ups:
                out[u] = got.get(u.port, 0)
        return out

    def control(self) -> FabricCommands:
        return FabricCommands(self)


class FabricCommands:
    """The prompt's fabric commands (`sprayfabric.mininet_prompt.FabricControl`) on a running fabric."""

    def __init__(self, fabric: MininetFabric) -> None:
        self.fabric = fabric

    def set_lb(self, mode: str, group: int | None = None) -> str:
        out = self.fabric.set_lb(mode, group)
        where = "every group" if group is None else f"group {group}"
        return f"{where} -> {mode}: {out.get('modified', 0)} entries modified"

    def link_down(self, a: str, b: str) -> str:
        out = self.fabric.set_link(a, b, up=False)
        return f"link {a}-{b} down; routes rewritten ({out.get('writes', 0)} writes)"

    def link_up(self, a: str, b: str) -> str:
        out = self.fabric.set_link(a, b, up=True)
        return f"link {a}-{b} up; routes rewritten ({out.get('writes', 0)} writes)"

    def counters(self) -> str:
        counts = self.fabric.uplink_packets()
        lines = [f"{'uplink':<24} {'packets sent':>12}"]
        lines += [f"{str(u):<24} {n:>12}" for u, n in sorted(counts.items())]
        return "\n".join(lines)
