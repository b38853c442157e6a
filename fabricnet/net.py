"""A topology file's fabric as a Mininet network of P4 switch processes.

    with FabricNet(topology, launch=launcher, workdir=Path("mn-out")) as fnet:
        fnet.start()                 # hosts, links, one switch process per switch, ready
        ...                          # program the switches over fnet.switch_targets()
    # stopped: switch processes, captures, traffic, hosts' namespaces, links -- all gone

Hosts get the IP and MAC of the file (the prefix length of the switch subnet they are in)
and a default route to their gateway; each link gets its rate as an htb limit (Mininet's
`TCLink`; `bw_mbit` overrides every rate, rates above Mininet's 1000 Mbit/s limit are left
unshaped). Link delay and loss need `tc netem`, which these machines' kernels lack: they
are applied only with `netem=True`.

Everything created is recorded in a `Footprint` (interface names, PIDs, the hosts'
namespaces). `stop()` stops the network the Mininet way, then checks the footprint and
removes whatever is still there, by those names and PIDs only; it runs on any exit from
the `with` block (an exception, Ctrl-C, a failed test) and raises `CleanupError` if
something could not be removed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .footprint import CleanupError, Footprint, Leftovers
from .hosts import FabricHost
from .mn import ensure_mininet
from .plan import host_prefix, interface_name, link_shape
from .switch import P4Switch, SwitchLaunch

ensure_mininet()

from mininet.link import TCLink  # noqa: E402
from mininet.net import Mininet  # noqa: E402

__all__ = ["CleanupError", "FabricNet", "SwitchEndpoint"]

log = logging.getLogger("fabricnet")


@dataclass(frozen=True, slots=True)
class SwitchEndpoint:
    """A switch process as the controller sees it."""

    name: str
    device_id: int
    grpc_address: str


class FabricNet:
    """Mininet built from a `controller.topology.Topology`; see the module docstring."""

    def __init__(
        self,
        topology: Any,
        *,
        launch: SwitchLaunch,
        workdir: Path,
        grpc_ports: dict[str, int] | None = None,
        pcap: bool = False,
        bw_mbit: float | None = None,
        netem: bool = False,
        tag: str = "",
        gateway_of: Any = None,
        free_ports: bool = False,
        extra_interfaces: dict[str, dict[int, str]] | None = None,
    ) -> None:
        """`launch` starts one switch process (`fabricnet.launch.launcher`); logs and pcaps
        go under `workdir`. P4Runtime addresses: `grpc_ports[switch]` on loopback, else the
        file's `grpc` address (unless `free_ports`), else a free port. `bw_mbit` replaces
        every link's rate, `netem` applies the file's delay/loss, `tag` prefixes every
        interface name (runs side by side), `gateway_of(host)` gives a host's default
        gateway (None: out of its link), `extra_interfaces[switch]` adds ports that are not
        Mininet links."""
        self.topology = topology
        self.launch = launch
        self.workdir = Path(workdir)
        self.grpc_ports = grpc_ports or {}
        self.pcap = pcap
        self.bw_mbit = bw_mbit
        self.netem = netem
        self.tag = tag
        self.gateway_of = gateway_of
        self.free_ports = free_ports
        self.extra_interfaces = extra_interfaces or {}
        self.footprint = Footprint()
        self.net: Any = None

    # ------------------------------------------------------------ building
    def build(self) -> None:
        """Create the Mininet network: switches (not yet started), hosts and links."""
        topo = self.topology
        self.net = Mininet(
            controller=None,
            switch=P4Switch,
            host=FabricHost,
            link=TCLink,
            autoSetMacs=False,
            autoStaticArp=False,
            build=False,
            waitConnected=False,
        )
        log_dir = self.workdir / "logs"
        pcap_dir = self.workdir / "pcap" if self.pcap else None
        for sw in topo.switches:
            node = self.net.addSwitch(
                sw.name,
                launch=self.launch,
                device_id=sw.device_id,
                grpc_address=self._grpc_address(sw),
                log_dir=log_dir,
                pcap_dir=pcap_dir,
                extra_interfaces=self.extra_interfaces.get(sw.name),
            )
            self.footprint.add_process(node.pid, f"mininet shell of {sw.name}")
        subnets = {sw.name: sw.subnets for sw in topo.switches}
        for h in topo.hosts:
            prefix = host_prefix(h.ip, subnets.get(h.switch, ()))
            gateway = self.gateway_of(h) if self.gateway_of is not None else None
            node = self.net.addHost(
                h.name, ip=f"{h.ip.split('/')[0]}/{prefix}", mac=h.mac, gateway=gateway
            )
            self.footprint.add_process(node.pid, f"mininet shell of {h.name}")
            self.footprint.add_namespace(h.name, node.pid)
        for link in [topo.host_link(h) for h in topo.hosts] + list(topo.links):
            self._add_link(link)

    def _grpc_address(self, sw: Any) -> str:
        if sw.name in self.grpc_ports:
            return f"127.0.0.1:{self.grpc_ports[sw.name]}"
        if sw.grpc_addr and not self.free_ports:
            return str(sw.grpc_addr)
        return "127.0.0.1:0"  # the launcher picks a free port

    def _add_link(self, link: Any) -> None:
        name_a = interface_name(self.tag, link.a, link.a_port)
        name_b = interface_name(self.tag, link.b, link.b_port)
        shape = link_shape(
            link.rate_bps, link.delay_ns, link.loss, bw_mbit=self.bw_mbit, netem=self.netem
        )
        # record the names before creating them: a failure half-way is still cleaned up
        self.footprint.add_link(name_a)
        self.footprint.add_link(name_b)
        self.net.addLink(
            link.a,
            link.b,
            port1=link.a_port,
            port2=link.b_port,
            intfName1=name_a,
            intfName2=name_b,
            **shape.params(),
        )

    # ------------------------------------------------------------ running
    def start(self) -> None:
        """Build (if not yet), configure hosts, start every switch process and wait until
        each is ready."""
        if self.net is None:
            self.build()
        self.net.build()
        for sw in self.net.switches:
            # record the process as soon as it exists (Mininet starts them one by one and
            # waits for readiness in batchStartup)
            sw.on_process = self._record_switch_process
        self.net.start()

    def _record_switch_process(self, sw: P4Switch, pid: int, what: str) -> None:
        self.footprint.add_process(pid, f"{what} of {sw.name}")

    def switch_targets(self) -> list[SwitchEndpoint]:
        """Name, device id and P4Runtime address of every switch (after start())."""
        if self.net is None:
            raise RuntimeError("the network is not running")
        return [
            SwitchEndpoint(sw.name, sw.device_id, self.net[sw.name].grpc_address)
            for sw in self.topology.switches
        ]

    def host(self, name: str) -> Any:
        return self.net[name]

    def track(self, pid: int, what: str) -> None:
        """Record a process started in the network (traffic), so stop() removes it."""
        self.footprint.add_process(pid, what)

    def stop(self) -> None:
        """Stop everything and verify that nothing is left (raise CleanupError if so)."""
        try:
            if self.net is not None:
                # switch processes first, while their interfaces still exist (Mininet
                # deletes links before it stops switches)
                errors = []
                for sw in self.net.switches:
                    try:
                        sw.stop_process()
                    except Exception as e:  # keep stopping the others
                        errors.append(f"{sw.name}: {e}")
                self.net.stop()
                if errors:
                    log.warning("stopping switch processes: %s", "; ".join(errors))
        finally:
            self.net = None
            left = self.footprint.sweep() if self.footprint.leftovers() else Leftovers((), (), ())
            if left:
                raise CleanupError(left)

    def __enter__(self) -> FabricNet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
