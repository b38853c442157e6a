"""In-process fabric.p4 switches behind real P4Runtime servers on loopback gRPC, for the
session manager's tests (the process-level tests start softswitch processes instead)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from controller.fabric import Pipeline, SwitchTarget
from softswitch.device_config import load_device_config, make_device_config
from softswitch.p4info import p4info_for
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.ports import QueuePort
from softswitch.runtime import SwitchRuntime
from tests.fabric.fabric import FABRIC_P4

CPU_PORT = 255


@pytest.fixture(scope="session")
def fabric_pipeline() -> Pipeline:
    data = make_device_config(FABRIC_P4)
    return Pipeline(p4info_for(load_device_config(data)), data)


@dataclass
class LocalSwitch:
    """A softswitch runtime + P4Runtime server in this process; `restart()` replaces both
    with fresh ones on the same address, as a switch process that was restarted."""

    name: str
    device_id: int
    port: int = 0
    runtime: SwitchRuntime | None = None
    server: P4RuntimeServer | None = None
    ports: dict[int, QueuePort] = field(default_factory=dict)

    def start(self) -> None:
        self.runtime = SwitchRuntime(device_id=self.device_id, cpu_port=CPU_PORT)
        self.ports = {p: QueuePort(f"{self.name}-{p}") for p in (1, 2, 3, 4)}
        for p, q in self.ports.items():
            self.runtime.add_port(p, q)
        self.runtime.start()
        self.server = P4RuntimeServer(
            self.runtime, device_id=self.device_id, address=f"127.0.0.1:{self.port}"
        )
        self.port = self.server.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.runtime is not None:
            self.runtime.stop()
            self.runtime = None

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def target(self) -> SwitchTarget:
        return SwitchTarget(self.name, f"127.0.0.1:{self.port}", self.device_id)


@pytest.fixture
def local_switches() -> Iterator[list[LocalSwitch]]:
    switches = [LocalSwitch(f"s{i}", device_id=i) for i in (1, 2, 3)]
    try:
        for s in switches:
            s.start()
        yield switches
    finally:
        for s in switches:
            s.stop()
