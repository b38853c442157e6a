"""fabric.p4 on an in-process softswitch with its P4Runtime server on 127.0.0.1:0, and a
primary session with the pipeline pushed (fresh for every test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller import CloneSession, P4RuntimeSession, P4Schema
from controller.fabric import Pipeline
from controller.lb import FabricEncoder
from softswitch.device_config import load_device_config, make_device_config
from softswitch.p4info import p4info_for
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.runtime import SwitchRuntime
from tests.fabric.fabric import FABRIC_P4


@pytest.fixture(scope="session")
def pipeline() -> Pipeline:
    data = make_device_config(FABRIC_P4)
    return Pipeline(p4info_for(load_device_config(data)), data)


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    runtime = SwitchRuntime(cpu_port=255)
    runtime.start()
    server = P4RuntimeServer(runtime, device_id=1, address="127.0.0.1:0")
    port = server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop()
        runtime.stop()


@pytest.fixture(scope="module")
def primary(address: str, pipeline: Pipeline) -> Iterator[P4RuntimeSession]:
    """One session per module (a session closed and reopened at once with the same
    election id can race the server noticing the old stream's end)."""
    with P4RuntimeSession(address, device_id=1, election_id=20) as s:
        s.set_pipeline(pipeline.p4info, pipeline.device_config, cookie=None)
        yield s


@pytest.fixture
def session(primary: P4RuntimeSession) -> Iterator[P4RuntimeSession]:
    """The primary session on an empty switch; what a test wrote is deleted after it."""
    yield primary
    for info in primary.schema.tables:
        entries = list(primary.read_table(info.name))
        if entries:
            primary.delete(*entries)
    sessions = list(primary.read(CloneSession()))
    if sessions:
        primary.delete(*sessions)


@pytest.fixture(scope="module")
def encoder(pipeline: Pipeline) -> FabricEncoder:
    return FabricEncoder(P4Schema(pipeline.p4info))
