"""A `softswitch` subprocess for the interop tests: a free loopback port, readiness (the PID
alive and the gRPC port answering Capabilities), and a stop by PID with SIGTERM.

Nothing here imports a third-party client, so every interop module can share it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc

from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc

READY_TIMEOUT = 20.0  # seconds from the start of the process to a Capabilities answer


def softswitch_cmd() -> list[str]:
    """The `softswitch` console script of this venv, else `python -m softswitch.cli`."""
    exe = Path(sys.executable).with_name("softswitch")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "softswitch.cli"]


def free_loopback_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def compile_program(source: str, workdir: Path, name: str) -> tuple[Path, Path]:
    """`softswitch compile` a P4 program: (P4Info text file, device config file)."""
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / f"{name}.p4"
    src.write_text(source)
    p4info = workdir / f"{name}.p4info.txtpb"
    config = workdir / f"{name}.json"
    r = subprocess.run(
        [*softswitch_cmd(), "compile", str(src), "--p4info", str(p4info), "-o", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, f"softswitch compile failed ({r.returncode}):\n{r.stderr}"
    assert p4info.stat().st_size > 0 and config.stat().st_size > 0
    return p4info, config


class SoftswitchProcess:
    """`softswitch --no-p4` on 127.0.0.1:PORT, its output going to a log file (a pipe
    nobody reads could fill up and block it)."""

    def __init__(self, workdir: Path, device_id: int = 0) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_loopback_port()
        self.addr = f"127.0.0.1:{self.port}"
        self.log_path = workdir / f"softswitch-{self.port}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed by stop())
        self.proc = subprocess.Popen(
            [
                *softswitch_cmd(),
                "--no-p4",
                "--device-id",
                str(device_id),
                "--",
                "--grpc-server-addr",
                self.addr,
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        """What the process has logged so far (stdout and stderr)."""
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> str:
        """Poll until the PID is alive and Capabilities answers; return the API version.

        Each poll is a Capabilities RPC with a short deadline (gRPC itself waits for the
        port to open), so there is no bare sleep, and the whole wait is bounded."""
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        with grpc.insecure_channel(self.addr) as channel:
            stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
            while True:
                if not self.alive():
                    raise AssertionError(
                        f"softswitch (pid {self.pid}) exited with {self.proc.returncode} "
                        f"before it was ready:\n{self.log()}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"softswitch (pid {self.pid}) on {self.addr} did not answer "
                        f"Capabilities within {timeout} s (last error: {last}):\n{self.log()}"
                    )
                try:
                    reply = stub.Capabilities(
                        p4runtime_pb2.CapabilitiesRequest(),
                        timeout=min(0.5, left),
                        wait_for_ready=True,
                    )
                    return str(reply.p4runtime_api_version)
                except grpc.RpcError as e:
                    last = e
                    if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                        # refused before the port opened: wait a little, on the process
                        try:
                            self.proc.wait(timeout=0.05)
                        except subprocess.TimeoutExpired:
                            pass

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM by PID and wait; SIGKILL if it does not end. Returns the exit code."""
        try:
            if self.proc.poll() is None:
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                raise AssertionError(
                    f"softswitch (pid {self.pid}) ignored SIGTERM for {timeout} s"
                ) from None
        finally:
            self._log.close()
