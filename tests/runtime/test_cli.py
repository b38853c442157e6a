"""The `softswitch` run command as a subprocess: start-up on loopback, readiness (PID alive
and the gRPC port answering, or the ready line while there is no P4Runtime server),
SIGTERM/SIGINT giving exit 0, --use-files, and the subcommands still working."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from softswitch.cli import main
from softswitch.ports import PcapWriter, read_pcap

from .programs import DST_FWD, SwitchProcess, have_grpc_server, softswitch_cmd

LOOPBACK_ANY_PORT = ["--", "--grpc-server-addr", "127.0.0.1:0"]


def wait_ready(sp: SwitchProcess, timeout: float = 20.0) -> None:
    """Ready: the process is alive and its gRPC port answers (with a server), else it
    printed its ready line."""
    if have_grpc_server():
        import grpc

        line = sp.wait_line("Server listening on ", timeout)
        addr = line.rsplit(" ", 1)[1]
        assert addr.startswith("127.0.0.1:")  # loopback only
        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(addr) as ch:
            while True:
                assert sp.alive(), sp.read_stderr()
                try:
                    grpc.channel_ready_future(ch).result(timeout=0.5)
                    break
                except grpc.FutureTimeoutError:
                    assert time.monotonic() < deadline, f"{addr} does not answer"
    sp.wait_line("softswitch ready", timeout)
    assert sp.alive()


@pytest.fixture
def program_files(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "fwd.p4"
    src.write_text(DST_FWD)
    config = tmp_path / "fwd.json"
    assert main(["compile", str(src), "-o", str(config)]) == 0  # the subcommand still works
    return src, config


def test_no_p4_starts_on_loopback_and_stops_on_sigterm() -> None:
    with SwitchProcess(["--no-p4", "--device-id", "3", *LOOPBACK_ANY_PORT]) as sp:
        wait_ready(sp)
        assert sp.terminate(signal.SIGTERM) == 0
        sp.wait_line("softswitch stopped")
        if not have_grpc_server():
            assert "no P4Runtime server" in sp.read_stderr()


@pytest.mark.parametrize("which", ["device_config", "p4_source"])
def test_program_starts_and_stops_on_sigint(program_files: tuple[Path, Path], which: str) -> None:
    path = program_files[1] if which == "device_config" else program_files[0]
    args = [str(path), "--thrift-port", "9090", "--log-console", "--seed", "7"]
    with SwitchProcess([*args, *LOOPBACK_ANY_PORT, "--cpu-port", "64"]) as sp:
        wait_ready(sp)
        assert "program fwd" in sp.wait_line("softswitch ready")
        assert sp.terminate(signal.SIGINT) == 0
        assert "--thrift-port 9090 ignored" in sp.read_stderr()


def test_use_files_replays_inputs_and_writes_outputs(
    tmp_path: Path, program_files: tuple[Path, Path]
) -> None:
    # port 1 (p1_in.pcap) sends to ports 2 and 3; port 2 (p2_in.pcap) to port 1
    w = PcapWriter(tmp_path / "p1_in.pcap")
    for i in range(4):
        w.write(bytes([2 + i % 2, 0, i]), ts_ns=(2 * i + 1) * 1000)
    w.close()
    w = PcapWriter(tmp_path / "p2_in.pcap")
    for i in range(3):
        w.write(bytes([1, 0, 10 + i]), ts_ns=2 * i * 1000)
    w.close()
    args = [str(program_files[1]), "-i", "1@p1", "-i", "2@p2", "-i", "3@p3", "--use-files", "0"]
    with SwitchProcess([*args, *LOOPBACK_ANY_PORT], cwd=tmp_path) as sp:
        wait_ready(sp)
        assert sp.wait_line("Replayed ").startswith("Replayed 7 packets from the input files in ")
        assert sp.terminate() == 0
    out = {n: [r.data[2] for r in read_pcap(tmp_path / f"p{n}_out.pcap")] for n in (1, 2, 3)}
    assert out == {1: [10, 11, 12], 2: [0, 2], 3: [1, 3]}
    assert "Adding interface p1 as port 1 (files)" in sp.seen


def test_use_files_waits_before_replaying(tmp_path: Path, program_files: tuple[Path, Path]) -> None:
    w = PcapWriter(tmp_path / "p1_in.pcap")
    w.write(bytes([2, 0, 0]))
    w.close()
    args = [str(program_files[1]), "-i", "1@p1", "-i", "2@p2", "--use-files", "30"]
    with SwitchProcess([*args, *LOOPBACK_ANY_PORT], cwd=tmp_path) as sp:
        wait_ready(sp)
        # stopped while it waits: no frame replayed, the output file exists and is empty
        assert sp.terminate() == 0
    assert list(read_pcap(tmp_path / "p2_out.pcap")) == []


def test_start_up_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"header_types": []}')  # BMv2 JSON, not a softswitch device config
    r = subprocess.run([*softswitch_cmd(), str(bad)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "softswitch compile -o" in r.stderr
    broken = tmp_path / "broken.p4"
    broken.write_text("header h_t { bit<8> x }\n")
    r = subprocess.run([*softswitch_cmd(), str(broken)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "broken.p4:1:" in r.stderr
    r = subprocess.run([*softswitch_cmd()], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "PROGRAM_CONFIG or --no-p4" in r.stderr
    r = subprocess.run(
        [*softswitch_cmd(), "--no-p4", "-i", "x@y"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and "PORT@IFACE" in r.stderr


def test_help_mentions_loopback_default() -> None:
    r = subprocess.run([*softswitch_cmd(), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "127.0.0.1:9559" in r.stdout and "loopback" in r.stdout
    r = subprocess.run(
        [*softswitch_cmd(), "stf", "--help"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and "STF" in r.stdout
