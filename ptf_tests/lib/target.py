"""The switch under test, as the tests see it: where its P4Runtime server is, which
pipeline to push, and how (if at all) its egress queues can be throttled.

run.py passes everything through PTF's test parameters:

    target='softswitch'|'bmv2'; p4info='...'; device_config='...'; define_p4='...';
    grpc_addr='127.0.0.1:9559'; device_id=0; cpu_port=255; thrift_port=9090

With the `softswitch_inproc` platform the switch lives in the PTF process
(`ptf.config["softswitch"]`): its address and queue control come from there.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import ptf
from ptf import testutils

from controller import load_p4info
from p4rt_proto import p4info_pb2

__all__ = ["Bmv2Cli", "Bmv2Queues", "QueueControl", "Target", "find_cli"]

QUEUE_DEPTH_REGISTER = "port_queue_depth"  # fabric.p4: the depth egress last recorded


class QueueControl(Protocol):
    """Egress queue knobs a test needs to build congestion deterministically."""

    send_gap_s: float  # pause between the packets of a burst (0: back to back)
    burst_pps: float  # the rate a burst is queued against (its window is 1/burst_pps)
    drain_quiet_s: float  # after a drain: silence that proves no packet is still queued

    def set_rate(self, port: int, pps: float | None) -> None:
        """Serve `port` at `pps` packets/s; None: as fast as the target can."""

    def wait_queued(self, port: int, count: int, timeout: float) -> bool:
        """Wait until `port` holds `count` packets; False if it did not in time."""

    def wait_drained(self, ports: list[int], timeout: float) -> bool:
        """Wait until the queues of `ports` are empty."""


class Bmv2Cli:
    """One `simple_switch_CLI` process kept open on the switch's Thrift port: a command
    is a line in, its output is what comes before the next prompt (starting the CLI
    takes about a second, too slow to poll a register with)."""

    PROMPT = b"RuntimeCmd: "

    def __init__(self, exe: str, thrift_port: int) -> None:
        self.exe, self.thrift_port = exe, thrift_port
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [self.exe, "--thrift-port", str(self.thrift_port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        self.proc = proc
        self._until_prompt(30)
        return proc

    def _until_prompt(self, timeout: float) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        out = b""
        deadline = time.monotonic() + timeout
        while not out.endswith(self.PROMPT):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            chunk = os.read(fd, 65536) if ready else b""
            if not chunk:
                self.close()
                raise RuntimeError(f"simple_switch_CLI: no prompt (got {out[-300:]!r})")
            out += chunk
        return out[: -len(self.PROMPT)].decode(errors="replace")

    def command(self, line: str, timeout: float = 30) -> str:
        """Run one CLI command; its output (RuntimeError if the CLI fails or hangs)."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        return self._until_prompt(timeout)

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None


def find_cli(configured: str | None = None) -> str | None:
    """simple_switch_CLI: as configured (test parameter `bmv2_cli`), else on PATH, else
    next to simple_switch_grpc."""
    if configured:
        return configured
    found = shutil.which("simple_switch_CLI")
    if found is None and (switch := shutil.which("simple_switch_grpc")) is not None:
        beside = Path(switch).with_name("simple_switch_CLI")
        found = str(beside) if beside.exists() else None
    return found


class Bmv2Queues:
    """Queue control and register reads for BMv2 through its Thrift CLI.

    BMv2's rate limiter gives each packet its departure time when it is queued:
    max(now, previous departure + 1/rate). So (a) a rate change does not speed up
    packets already queued: a released backlog still leaves at the old rate; (b) a
    queue that sent a packet less than 1/rate ago holds the next one back. `set_rate`
    therefore waits one interval after throttling (the next packet then leaves at once,
    as the tests' arithmetic of queue depths assumes), and `wait_drained` waits on the
    queue depth egress records for the port (`port_queue_depth`, 0 once the last
    packet has left), read with the CLI's `register_read` (BMv2's P4Runtime server does
    not read registers).
    """

    UNTHROTTLED_PPS = 1_000_000
    # seconds between the packets of a burst: back to back, BMv2 (when short of CPU)
    # loses a run of packets its port reader had no room for
    send_gap_s = 0.001
    burst_pps = 2.0
    drain_quiet_s = 0.6
    QUEUE_DEPTH = 10_000  # packets: no tail drop of the tests' bursts (BMv2's default is 64)

    def __init__(self, cli: Bmv2Cli, depth_register: str) -> None:
        self.cli = cli
        self.depth_register = depth_register

    def prepare(self) -> None:
        """Once per pipeline: room in every egress queue (`set_queue_depth`)."""
        self.cli.command(f"set_queue_depth {self.QUEUE_DEPTH}")

    def set_rate(self, port: int, pps: float | None) -> None:
        rate = self.UNTHROTTLED_PPS if pps is None else max(1, int(pps))
        self.cli.command(f"set_queue_rate {rate} {port}")
        if pps is not None:
            time.sleep(1 / rate)  # (b) above: the next packet leaves at once

    def read_register(self, name: str, index: int) -> int:
        out = self.cli.command(f"register_read {name} {index}")
        m = re.search(r"=\s*(-?\d+)", out)
        if m is None:
            raise RuntimeError(f"register_read {name} {index}: {out.strip()}")
        return int(m[1])

    def wait_queued(self, port: int, count: int, timeout: float) -> bool:
        """Departure times are fixed on arrival (see above), so there is nothing to wait
        for: a burst's depths are right as long as it is queued within one interval."""
        return True

    def wait_drained(self, ports: list[int], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while any(self.read_register(self.depth_register, p) for p in ports):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


@dataclass(frozen=True)
class Target:
    name: str
    grpc_addr: str
    device_id: int
    cpu_port: int
    p4info_path: Path
    device_config_path: Path
    define_p4: Path
    queues: QueueControl | None

    @classmethod
    def from_ptf(cls) -> Target:
        name = str(testutils.test_param_get("target", "softswitch"))
        inproc = ptf.config.get("softswitch")
        queues: QueueControl | None = None
        if inproc is not None:
            addr = inproc.address
            queues = inproc
        else:
            addr = str(testutils.test_param_get("grpc_addr", "127.0.0.1:9559"))
            cli = find_cli(testutils.test_param_get("bmv2_cli", None))
            if name == "bmv2" and cli is not None:
                thrift = int(testutils.test_param_get("thrift_port", 9090))
                info = load_p4info(Path(str(testutils.test_param_get("p4info"))))
                register = next(
                    r.preamble.name
                    for r in info.registers
                    if r.preamble.name.split(".")[-1] == QUEUE_DEPTH_REGISTER
                )
                queues = Bmv2Queues(Bmv2Cli(cli, thrift), register)
        return cls(
            name=name,
            grpc_addr=addr,
            device_id=int(testutils.test_param_get("device_id", 0)),
            cpu_port=int(testutils.test_param_get("cpu_port", 255)),
            p4info_path=Path(str(testutils.test_param_get("p4info"))),
            device_config_path=Path(str(testutils.test_param_get("device_config"))),
            define_p4=Path(str(testutils.test_param_get("define_p4"))),
            queues=queues,
        )

    def pipeline(self) -> tuple[p4info_pb2.P4Info, bytes]:
        return load_p4info(self.p4info_path), self.device_config_path.read_bytes()
