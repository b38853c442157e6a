"""A Mininet switch that is a P4 switch process (softswitch or BMv2 simple_switch_grpc).

Mininet's own switches need Open vSwitch (a kernel module) or an OpenFlow controller;
neither is used here. `P4Switch` is a plain `mininet.node.Switch` in the root namespace
whose `start()` launches one user-space switch process attached to the node's veth
interfaces (`-i PORT@IFACE`, the port numbers of the topology file), with its own
P4Runtime gRPC port on loopback, and whose `stop()` stops that process by its PID.
How the process is started is given by the network (`launch`): the project's one switch
launcher, for either target.

Per switch it leaves a log file (the process's own log) and, on request, one pcap per
port (`tcpdump -i IFACE -w DIR/IFACE.pcap`, also stopped by PID).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .hosts import disable_offloads
from .mn import ensure_mininet

ensure_mininet()

from mininet.node import Switch  # noqa: E402

__all__ = ["P4Switch", "ProcessHandle", "SwitchLaunch", "LaunchRequest"]


class ProcessHandle(Protocol):
    """A running switch process: its PID, a readiness wait and a stop by PID."""

    @property
    def pid(self) -> int: ...

    @property
    def grpc_addr(self) -> str: ...

    def wait_ready(self, timeout: float) -> object: ...

    def stop(self) -> object: ...


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """What a switch process needs: where it listens (port 0: any free port), which
    interfaces, where it logs."""

    name: str
    device_id: int
    grpc_address: str
    interfaces: Mapping[int, str]  # P4 port number -> interface (or a softswitch udp: cable)
    log_path: Path
    cpu_port: int = 255


SwitchLaunch = Callable[[LaunchRequest], ProcessHandle]


class P4Switch(Switch):
    """One P4 switch process on this node's interfaces; no OpenFlow, no OVS."""

    def __init__(
        self,
        name: str,
        *,
        launch: SwitchLaunch,
        device_id: int,
        grpc_address: str,
        log_dir: Path,
        pcap_dir: Path | None = None,
        ready_timeout: float = 120.0,
        extra_interfaces: Mapping[int, str] | None = None,
        **params: Any,
    ) -> None:
        # Mininet derives a datapath id from digits in the name unless given one
        params.setdefault("dpid", f"{device_id + 1:016x}")
        super().__init__(name, **params)
        self.launch = launch
        self.device_id = device_id
        self.grpc_address = grpc_address
        self.log_path = Path(log_dir) / f"{name}.log"
        self.pcap_dir = pcap_dir
        self.ready_timeout = ready_timeout
        # ports that are not Mininet links (softswitch's `udp:` cables), port -> spec
        self.extra_interfaces = dict(extra_interfaces or {})
        self.process: ProcessHandle | None = None
        self.captures: list[subprocess.Popen[bytes]] = []
        # called with (switch, pid, what) for every process started, as soon as it exists
        self.on_process: Callable[[P4Switch, int, str], None] | None = None

    # ------------------------------------------------------------ Mininet's interface
    def data_ports(self) -> dict[int, str]:
        """P4 port number -> interface name (without Mininet's loopback control port 0)."""
        return {port: intf.name for port, intf in self.intfs.items() if intf.name != "lo"}

    def start(self, controllers: object) -> None:  # noqa: ARG002 (no OpenFlow controller)
        """Start the switch process (readiness is awaited in `batchStartup`)."""
        ports = self.data_ports()
        for iface in ports.values():
            # no IPv6 chatter (router solicitations, MLD) from the kernel on switch ports
            self.cmd(f"sysctl -qw net.ipv6.conf.{iface}.disable_ipv6=1")
            # softswitch turns offloads off itself, BMv2 does not: whole frames both ways
            disable_offloads(self, iface)
        if self.pcap_dir is not None:
            self._start_captures(ports)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        spec = LaunchRequest(
            name=self.name,
            device_id=self.device_id,
            grpc_address=self.grpc_address,
            interfaces={**ports, **self.extra_interfaces},
            log_path=self.log_path,
        )
        self.process = self.launch(spec)
        self.grpc_address = self.process.grpc_addr  # a port 0 request gets a free port
        self._started(self.process.pid, "switch process")

    @classmethod
    def batchStartup(cls, switches: list[P4Switch], **_kwargs: Any) -> list[P4Switch]:  # noqa: N802
        """Mininet calls this after every `start()`: wait until each process is ready
        (PID alive, gRPC answering), so the switches start in parallel."""
        for sw in switches:
            if sw.process is not None:
                sw.process.wait_ready(sw.ready_timeout)
        return switches

    def connected(self) -> bool:
        return self.process is not None

    def restart_process(self) -> ProcessHandle:
        """Stop the switch process by PID and start it again, empty, on the same interfaces
        and P4Runtime address (not yet ready: wait on the returned handle)."""
        if self.process is not None:
            self.process.stop()
        self.process = self.launch(
            LaunchRequest(
                name=self.name,
                device_id=self.device_id,
                grpc_address=self.grpc_address,
                interfaces={**self.data_ports(), **self.extra_interfaces},
                log_path=self.log_path,
            )
        )
        self._started(self.process.pid, "switch process (restarted)")
        return self.process

    def stop_process(self) -> None:
        """Stop the switch process and the captures, by PID (idempotent)."""
        try:
            if self.process is not None:
                self.process.stop()
        finally:
            self.process = None
            self._stop_captures()

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's name)
        """Stop the switch process and the captures, then delete the interfaces."""
        try:
            self.stop_process()
        finally:
            super().stop(deleteIntfs)

    # ------------------------------------------------------------ pcaps
    def _start_captures(self, ports: Mapping[int, str]) -> None:
        tcpdump = shutil.which("tcpdump")
        if tcpdump is None:
            raise RuntimeError("--pcap needs tcpdump (Debian: apt-get install tcpdump)")
        assert self.pcap_dir is not None
        self.pcap_dir.mkdir(parents=True, exist_ok=True)
        for iface in ports.values():
            out = self.pcap_dir / f"{iface}.pcap"
            with open(self.pcap_dir / f"{iface}.tcpdump.log", "wb") as log:
                proc = subprocess.Popen(
                    [tcpdump, "-i", iface, "-U", "-n", "-q", "-Z", "root", "-w", str(out)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                )
            self.captures.append(proc)
            self._started(proc.pid, f"tcpdump on {iface}")

    def _stop_captures(self) -> None:
        for proc in self.captures:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGINT)  # tcpdump flushes its file on SIGINT
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
        self.captures.clear()

    def _started(self, pid: int, what: str) -> None:
        if self.on_process is not None:
            self.on_process(self, pid, what)

    def pids(self) -> list[int]:
        """PIDs this switch started (the switch process and its captures)."""
        found = [p.pid for p in self.captures]
        if self.process is not None:
            found.append(self.process.pid)
        return found
