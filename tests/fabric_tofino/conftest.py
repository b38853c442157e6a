"""Tofino fabrics without an SDE: one fake P4Runtime server per switch (fake_p4runtime.py),
a bf-p4c output directory made of stand-in files, and the P4Info the program has (the
v1model build's: fabric_tna keeps its table, key, action and parameter names)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import text_format

from controller.topology import Topology, load_topology
from p4rt_proto import p4info_pb2
from softswitch.device_config import load_device_config, make_device_config
from softswitch.p4info import p4info_for
from tests.fabric.fabric import FABRIC_P4

from .fake_p4runtime import FakeP4Runtime

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = ROOT / "topologies" / "leaf-spine-2x2.yaml"
BINARY = b"\x7fTOFINO-stand-in\x00\x01\x02"


@pytest.fixture(scope="session")
def p4info() -> p4info_pb2.P4Info:
    return p4info_for(load_device_config(make_device_config(FABRIC_P4)))


@pytest.fixture
def topo() -> Topology:
    return load_topology(TOPOLOGY)


def make_bf_out(
    root: Path, p4info: p4info_pb2.P4Info, binary: str = "tofino.bin", tables: bool = True
) -> Path:
    """A directory laid out as bf-p4c's -o: pipe/<binary>, pipe/context.json (listing the
    P4Info's tables with the pipe's prefix, when `tables`) and p4info.txt."""
    out = root / "fabric_tna"
    (out / "pipe").mkdir(parents=True)
    (out / "pipe" / binary).write_bytes(BINARY)
    names = [f"pipe.{t.preamble.name}" for t in p4info.tables] if tables else []
    (out / "pipe" / "context.json").write_text(
        json.dumps({"program_name": "fabric_tna", "tables": [{"name": n} for n in names]})
    )
    (out / "p4info.txt").write_text(text_format.MessageToString(p4info))
    return out


@pytest.fixture
def bf_out(tmp_path: Path, p4info: p4info_pb2.P4Info) -> Path:
    return make_bf_out(tmp_path, p4info)


@pytest.fixture
def fakes(topo: Topology) -> Iterator[dict[str, FakeP4Runtime]]:
    """A fake P4Runtime server (device id 1, as Stratum's default node) per switch."""
    out = {s.name: FakeP4Runtime(device_id=1) for s in topo.switches}
    for f in out.values():
        f.start()
    try:
        yield out
    finally:
        for f in out.values():
            f.stop()


@pytest.fixture
def switches_file(tmp_path: Path, fakes: dict[str, FakeP4Runtime]) -> Path:
    path = tmp_path / "switches.json"
    path.write_text(
        json.dumps({n: {"address": f.address, "device_id": 1} for n, f in fakes.items()})
    )
    return path
