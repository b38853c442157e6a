"""The one switch launcher: start, readiness, stop by PID, and the errors a user sees."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import grpc
import pytest

from controller.targets import (
    CompileError,
    SwitchProcess,
    SwitchSpec,
    SwitchStartError,
    bmv2_available,
    compile_program,
    detect_target,
    stop_pid,
)
from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc


def _pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): ask /proc
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_start_ready_stop(tmp_path: Path) -> None:
    spec = SwitchSpec(device_id=3, log_file=tmp_path / "sw.log", pid_file=tmp_path / "sw.pid")
    with SwitchProcess(spec) as sw:
        assert sw.alive()
        assert (tmp_path / "sw.pid").read_text().strip() == str(sw.pid)
        assert sw.grpc_port != 0 and sw.grpc_addr == f"127.0.0.1:{sw.grpc_port}"
        with grpc.insecure_channel(sw.grpc_addr) as ch:  # ready means it answers now
            reply = p4runtime_pb2_grpc.P4RuntimeStub(ch).Capabilities(
                p4runtime_pb2.CapabilitiesRequest(), timeout=5
            )
        assert reply.p4runtime_api_version
        pid = sw.pid
    assert sw.returncode == 0  # softswitch exits 0 on SIGTERM
    assert not _pid_running(pid)
    assert not (tmp_path / "sw.pid").exists()
    assert "softswitch ready" in (tmp_path / "sw.log").read_text()


def test_a_switch_that_dies_at_start_reports_its_log(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{ this is not a device config")
    sw = SwitchProcess(SwitchSpec(config=bad, log_file=tmp_path / "sw.log"))
    with pytest.raises(SwitchStartError) as ei, sw:
        pass
    text = str(ei.value)
    assert "exited with" in text and "before it was ready" in text
    assert "broken.json" in text  # the command and softswitch's own message
    assert (tmp_path / "sw.log").read_text().strip().splitlines()[-1] in text
    assert not sw.alive()


def test_grpc_port_already_in_use(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        spec = SwitchSpec(grpc_addr=f"127.0.0.1:{port}", log_file=tmp_path / "sw.log")
        sw = SwitchProcess(spec)
        with pytest.raises(SwitchStartError) as ei, sw:
            pass
    assert "exited with" in str(ei.value)
    assert str(port) in str(ei.value)
    assert not sw.alive()


def test_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    spec = SwitchSpec(executable=str(tmp_path / "no-such-switch"), log_file=tmp_path / "l")
    with pytest.raises(SwitchStartError, match="cannot run .*no-such-switch"):
        SwitchProcess(spec).start()


def test_stop_kills_a_process_that_ignores_sigterm(tmp_path: Path) -> None:
    stubborn = tmp_path / "stubborn"
    stubborn.write_text("#!/bin/sh\ntrap '' TERM\nexec sleep 60\n")
    stubborn.chmod(0o755)
    sw = SwitchProcess(SwitchSpec(executable=str(stubborn), log_file=tmp_path / "l")).start()
    with pytest.raises(SwitchStartError, match="did not answer within 0.5 s"):
        sw.wait_ready(timeout=0.5)
    assert sw.stop(timeout=0.5) == -9
    assert not _pid_running(sw.pid)


def test_stop_pid_of_a_process_we_did_not_start_as_a_switch(tmp_path: Path) -> None:
    proc = subprocess.Popen(["sleep", "60"])
    try:
        assert stop_pid(proc.pid, timeout=5) is True
        assert proc.wait(timeout=5) == -15
        assert stop_pid(proc.pid) is False  # already gone
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_bmv2_command_line() -> None:
    spec = SwitchSpec(
        target="bmv2",
        ports=((1, "veth1"), (2, "veth3")),
        grpc_addr="127.0.0.1:50001",
        device_id=2,
        cpu_port=255,
        thrift_port=9091,
        target_args=("--priority-queues", "2"),
        netns="ns1",
    )
    assert SwitchProcess(spec).command() == [
        "ip", "netns", "exec", "ns1", "simple_switch_grpc",
        "--device-id", "2", "--thrift-port", "9091", "-i", "1@veth1", "-i", "2@veth3",
        "--no-p4", "--", "--grpc-server-addr", "127.0.0.1:50001", "--cpu-port", "255",
        "--priority-queues", "2",
    ]  # fmt: skip


def test_compile_errors_carry_the_position(tmp_path: Path) -> None:
    src = tmp_path / "bad.p4"
    src.write_text("#include <core.p4>\nparser P( {\n")
    with pytest.raises(CompileError, match=r"bad\.p4:2:\d+: error"):
        compile_program(src, tmp_path / "out")


def test_detect_target_follows_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert detect_target() == "softswitch"
    for tool in ("simple_switch_grpc", "p4c-bm2-ss"):
        (tmp_path / tool).write_text("#!/bin/sh\n")
        (tmp_path / tool).chmod(0o755)
    assert detect_target() == "bmv2"


@pytest.mark.skipif(
    not bmv2_available(), reason="BMv2 (simple_switch_grpc and p4c-bm2-ss) is not on PATH"
)
def test_bmv2_start_ready_stop(tmp_path: Path) -> None:
    spec = SwitchSpec(target="bmv2", log_file=tmp_path / "bmv2.log")
    with SwitchProcess(spec) as sw:
        assert sw.alive() and sw.thrift_port is not None
        with grpc.insecure_channel(sw.grpc_addr) as ch:
            p4runtime_pb2_grpc.P4RuntimeStub(ch).Capabilities(
                p4runtime_pb2.CapabilitiesRequest(), timeout=5
            )
        pid = sw.pid
    assert not _pid_running(pid)
