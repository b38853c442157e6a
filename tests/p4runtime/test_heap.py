"""softswitch.heap as the `softswitch` process uses it: the heap frozen at start-up, and
refrozen by the server's `after_commit` when SetForwardingPipelineConfig replaces the
program, so that the replaced program is collected and the new one is kept out of the
collector's scans."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc
from softswitch.compiler import compile_file
from softswitch.device_config import make_device_config
from softswitch.heap import freeze_heap, refreeze_heap
from softswitch.p4info import p4info_for
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.runtime import SwitchRuntime
from tests.p4util import program

_A = p4runtime_pb2.SetForwardingPipelineConfigRequest


def _config(path: Path, table: str) -> Any:
    _write(path, table)
    config = p4runtime_pb2.ForwardingPipelineConfig()
    config.p4info.CopyFrom(p4info_for(compile_file(path)))
    config.p4_device_config = make_device_config(path, [], {})
    return config


@pytest.fixture
def thawed() -> Iterator[None]:
    """The test process's heap thawed again however the test ends."""
    try:
        yield
    finally:
        gc.unfreeze()


def _frozen(obj: object) -> bool:
    """Tracked by the collector but in none of its generations: in the permanent one."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_a_replaced_program_is_collected_and_the_new_one_frozen(
    tmp_path: Path, thawed: None
) -> None:
    runtime = SwitchRuntime()
    server = P4RuntimeServer(runtime, address="127.0.0.1:0", after_commit=refreeze_heap)
    first, second = _config(tmp_path / "a.p4", "t_a"), _config(tmp_path / "b.p4", "t_b")
    port = server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        freeze_heap()  # as the process does once it is ready
        stub.SetForwardingPipelineConfig(_A(device_id=0, action=_A.VERIFY_AND_COMMIT, config=first))
        assert runtime.switch is not None and "I.t_a" in runtime.switch.tables
        # a table: part of reference cycles (its lookups are bound methods of it), which
        # only the collector frees, and never while they sit in the permanent generation
        old = weakref.ref(runtime.switch.tables["I.t_a"])
        assert _frozen(runtime.switch.tables["I.t_a"])  # committed, then frozen
        stub.SetForwardingPipelineConfig(
            _A(device_id=0, action=_A.VERIFY_AND_COMMIT, config=second)
        )
        assert "I.t_b" in runtime.switch.tables
        assert old() is None  # thawed and collected, not kept by the permanent generation
        assert _frozen(runtime.switch.tables["I.t_b"])
        assert gc.get_freeze_count() > 0
    finally:
        channel.close()
        server.stop()


def test_without_a_refreeze_the_frozen_program_would_stay(tmp_path: Path, thawed: None) -> None:
    """What the test above guards against: a program frozen with the heap is kept after
    it is replaced (its cycles are never collected) unless the heap is thawed first."""
    runtime = SwitchRuntime()
    runtime.load(compile_file(_write(tmp_path / "a.p4", "t_a")))
    freeze_heap()
    old = weakref.ref(runtime.switch.tables["I.t_a"])
    runtime.load(compile_file(_write(tmp_path / "b.p4", "t_b")))
    gc.collect()
    assert old() is not None
    gc.unfreeze()
    gc.collect()
    assert old() is None


def _write(path: Path, table: str) -> Path:
    """A program with one table named `table`, written to `path`."""
    path.write_text(
        program(
            decls="header h_t { bit<8> f; }",
            ingress=f"""
            action fwd(bit<9> port) {{ sm.egress_spec = port; }}
            table {table} {{ key = {{ hdr.h.f: exact; }} actions = {{ fwd; NoAction; }} }}
            apply {{ {table}.apply(); }}
            """,
        )
    )
    return path
