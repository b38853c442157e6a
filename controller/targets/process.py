"""One switch process (`softswitch` or BMv2 `simple_switch_grpc`): started with the same
arguments for both, ready when its PID is alive and its gRPC port answers, stopped by PID.

    spec = SwitchSpec(target="softswitch", ports=((1, "veth1"), (2, "veth3")))
    with SwitchProcess(spec) as sw:          # started and ready, or SwitchStartError
        session = P4RuntimeSession(sw.grpc_addr, device_id=spec.device_id)
        ...
    # stopped: SIGTERM, then SIGKILL if it did not end in time

Readiness is a P4Runtime Capabilities RPC answered (gRPC waits for the port to open, so
there is no sleep); inside a network namespace (`netns=`), where this process's gRPC
channels cannot reach, it is a TCP connection to the port made from that namespace. An
error names the command and PID and ends with the tail of the switch's log.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import grpc

from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc
from p4rt_proto.netns import in_netns

from .tools import Target, softswitch_command

__all__ = ["SwitchProcess", "SwitchSpec", "SwitchStartError", "free_port", "stop_pid"]

LOG_TAIL_LINES = 40


class SwitchStartError(RuntimeError):
    """The switch died before it was ready, or did not answer in time (log tail included)."""


@dataclass(slots=True, frozen=True)
class SwitchSpec:
    """How to start one switch. Port 0 in `grpc_addr` (and `thrift_port=None` for BMv2)
    means a free port chosen at start."""

    target: Target = "softswitch"
    config: Path | None = None  # device config (BMv2 JSON / softswitch config); None: --no-p4
    ports: tuple[tuple[int, str], ...] = ()  # (port number, interface)
    grpc_addr: str = "127.0.0.1:0"
    device_id: int = 0
    cpu_port: int | None = 255
    thrift_port: int | None = None  # BMv2 only
    log_file: Path | None = None  # None: a new file under the temp directory
    args: tuple[str, ...] = ()  # more switch options (before `--`)
    target_args: tuple[str, ...] = ()  # more target options (after `--`)
    netns: str | None = None  # run inside this network namespace (`ip netns exec`)
    pid_file: Path | None = None  # write the PID here while it runs
    executable: str | None = None  # instead of the detected softswitch / simple_switch_grpc


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that was free a moment ago (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _split_addr(addr: str) -> tuple[str, int]:
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"gRPC address {addr!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


def stop_pid(pid: int, timeout: float = 10.0) -> bool:
    """Stop a process that is not our child (e.g. from a PID file): SIGTERM, then SIGKILL
    after `timeout` s. True if it was running."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)  # polling a non-child: there is nothing to wait on
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return True


class SwitchProcess:
    """A switch process; a context manager that starts it, waits until it is ready and
    stops it. `start()`, `wait_ready()` and `stop()` can also be called one by one."""

    def __init__(self, spec: SwitchSpec) -> None:
        self.spec = spec
        host, port = _split_addr(spec.grpc_addr)
        self.grpc_host = host
        self.grpc_port = port
        self.thrift_port = spec.thrift_port
        self.log_path = spec.log_file
        self.proc: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None

    # ------------------------------------------------------------------ facts
    @property
    def grpc_addr(self) -> str:
        host = f"[{self.grpc_host}]" if ":" in self.grpc_host else self.grpc_host
        return f"{host}:{self.grpc_port}"

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise RuntimeError("the switch was not started")
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last `lines` lines the switch wrote (stdout and stderr)."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def command(self) -> list[str]:
        """The argv this switch is started with (after choosing free ports)."""
        s = self.spec
        ifaces = [a for port, iface in s.ports for a in ("-i", f"{port}@{iface}")]
        program = [str(s.config)] if s.config is not None else ["--no-p4"]
        after = ["--grpc-server-addr", self.grpc_addr]
        if s.cpu_port is not None:
            after += ["--cpu-port", str(s.cpu_port)]
        if s.target == "bmv2":
            exe = [s.executable or "simple_switch_grpc"]
            before = ["--device-id", str(s.device_id), "--thrift-port", str(self.thrift_port)]
        elif s.target == "softswitch":
            exe = [s.executable] if s.executable else softswitch_command()
            before = ["--device-id", str(s.device_id)]
        else:
            raise ValueError(f"unknown target {s.target!r}")
        cmd = [*exe, *before, *ifaces, *s.args, *program, "--", *after, *s.target_args]
        if s.netns is not None:
            cmd = ["ip", "netns", "exec", s.netns, *cmd]
        return cmd

    # ------------------------------------------------------------------ life cycle
    def start(self) -> SwitchProcess:
        """Launch the process (not yet ready: see wait_ready)."""
        if self.proc is not None:
            raise RuntimeError(f"already started (pid {self.proc.pid})")
        if self.grpc_port == 0:
            self.grpc_port = in_netns(self.spec.netns, lambda: free_port(self.grpc_host))
        if self.spec.target == "bmv2" and self.thrift_port is None:
            self.thrift_port = in_netns(self.spec.netns, free_port)
        if self.log_path is None:
            fd, name = tempfile.mkstemp(
                prefix=f"{self.spec.target}-{self.grpc_port}-", suffix=".log"
            )
            os.close(fd)
            self.log_path = Path(name)
        cmd = self.command()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:  # the child keeps its own descriptor
            try:
                self.proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # Ctrl-C in a terminal reaches us, not the switch
                )
            except FileNotFoundError as e:
                raise SwitchStartError(f"cannot run {cmd[0]}: {e.strerror}") from None
        if self.spec.pid_file is not None:
            self.spec.pid_file.write_text(f"{self.proc.pid}\n")
        return self

    def _died(self) -> SwitchStartError:
        assert self.proc is not None
        return SwitchStartError(
            f"{self.spec.target} (pid {self.proc.pid}) exited with {self.proc.returncode} "
            f"before it was ready: {' '.join(self.command())}\n"
            f"--- last lines of {self.log_path}:\n{self.log_tail()}"
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Return once the PID is alive and the gRPC port answers; SwitchStartError if the
        process ends first or `timeout` s pass (with the log tail)."""
        if self.proc is None:
            raise RuntimeError("the switch was not started")
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        probe = self._probe_tcp if self.spec.netns is not None else self._probe_grpc
        while True:
            if self.proc.poll() is not None:
                raise self._died()
            left = deadline - time.monotonic()
            if left <= 0:
                raise SwitchStartError(
                    f"{self.spec.target} (pid {self.proc.pid}) on {self.grpc_addr} did not "
                    f"answer within {timeout} s (last error: {last})\n"
                    f"--- last lines of {self.log_path}:\n{self.log_tail()}"
                )
            try:
                probe(min(0.5, left))
                return
            except (grpc.RpcError, OSError) as e:
                last = e
                try:  # refused before the port opened: wait a little, on the process
                    self.proc.wait(timeout=min(0.05, max(left, 0.0)))
                except subprocess.TimeoutExpired:
                    pass

    def _probe_grpc(self, timeout: float) -> None:
        with grpc.insecure_channel(self.grpc_addr) as channel:
            stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
            stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=timeout)

    def _probe_tcp(self, timeout: float) -> None:
        def connect() -> None:
            with socket.create_connection((self.grpc_host, self.grpc_port), timeout=timeout):
                pass

        in_netns(self.spec.netns, connect)

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM by PID, SIGKILL if it has not ended after `timeout` s; its exit status
        (None if it was never started)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                self.proc.wait()
        self.returncode = self.proc.returncode
        if self.spec.pid_file is not None:
            self.spec.pid_file.unlink(missing_ok=True)
        return self.returncode

    def __enter__(self) -> SwitchProcess:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
