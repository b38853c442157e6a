"""A switch for the client tests: softswitch in-process (SwitchRuntime + P4RuntimeServer on
127.0.0.1:0) running a small program with every kind of P4Runtime entity, ports 1-4 as
in-process queues, the CPU port 64. Each test gets a fresh pipeline and a primary session.

Packets are `sel a b(16) c(32) mac(48) d` (see world.PROGRAM: `sel` picks what ingress does)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller import P4RuntimeSession
from p4rt_proto import p4info_pb2
from softswitch.device_config import load_device_config, make_device_config
from softswitch.p4info import p4info_for
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.ports import QueuePort
from softswitch.runtime import SwitchRuntime

from .world import CPU_PORT, PROGRAM

PORTS = (1, 2, 3, 4)


@dataclass
class Pipeline:
    p4info: p4info_pb2.P4Info
    device_config: bytes


@dataclass
class Switch:
    runtime: SwitchRuntime
    server: P4RuntimeServer
    address: str
    ports: dict[int, QueuePort]

    def send(self, port: int, data: bytes) -> None:
        self.ports[port].feed(data)

    def recv(self, port: int, timeout: float = 2.0) -> bytes | None:
        return self.ports[port].take(timeout)

    def quiet(self, timeout: float = 0.2) -> dict[int, bytes]:
        """The first frame any port sends within `timeout` s, by port (empty when the
        switch kept quiet)."""
        deadline = time.monotonic() + timeout
        while True:
            for p, q in self.ports.items():
                data = q.take(timeout=0)
                if data is not None:
                    return {p: data}
            if time.monotonic() > deadline:
                return {}
            time.sleep(0.002)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    path: Path = tmp_path_factory.mktemp("controller") / "world.p4"
    path.write_text(PROGRAM)
    data = make_device_config(path)
    return Pipeline(p4info_for(load_device_config(data)), data)


@pytest.fixture(scope="module")
def switch() -> Iterator[Switch]:
    runtime = SwitchRuntime(cpu_port=CPU_PORT)
    ports = {p: QueuePort(f"p{p}") for p in PORTS}
    for p, q in ports.items():
        runtime.add_port(p, q)
    runtime.start()
    server = P4RuntimeServer(runtime, device_id=1, address="127.0.0.1:0")
    port = server.start()
    try:
        yield Switch(runtime, server, f"127.0.0.1:{port}", ports)
    finally:
        server.stop()
        runtime.stop()


@pytest.fixture
def sw(switch: Switch, pipeline: Pipeline) -> Iterator[P4RuntimeSession]:
    """A primary session on a freshly pushed pipeline (no state from earlier tests)."""
    with P4RuntimeSession(switch.address, device_id=1, election_id=10) as s:
        s.set_pipeline(pipeline.p4info, pipeline.device_config, cookie=None)
        for q in switch.ports.values():
            q.take_all()
        yield s
