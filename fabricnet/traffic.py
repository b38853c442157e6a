"""iperf3 flows between Mininet hosts, run directly (not Mininet's `net.iperf()`, which
drives iperf 2 and hangs with Debian's build).

Each flow gets its own one-off server (`iperf3 -s -1`) on its own port in the destination
host; the clients run in parallel, each with a JSON report. Every process is recorded with
the network (`FabricNet.track`) so that it is stopped with the network whatever happens,
and each is waited for with a deadline.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Flow", "FlowResult", "run_flows"]

BASE_PORT = 5201


@dataclass(frozen=True, slots=True)
class Flow:
    """A TCP flow from host `src` to host `dst`."""

    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class FlowResult:
    """What iperf3 reported for one flow (bits/s), or why it failed."""

    flow: Flow
    sent_bps: float
    received_bps: float
    retransmits: int
    error: str | None = None

    @property
    def mbps(self) -> float:
        return self.received_bps / 1e6


def _wait_listening(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait for iperf3's "Server listening" line (bounded)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"iperf3 server exited: {seen.decode(errors='replace')}")
        ready, _, _ = select.select([proc.stdout], [], [], 0.1)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            seen += chunk
            if b"listening" in seen:
                return
    raise RuntimeError("iperf3 server did not start listening")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def _result(flow: Flow, out: bytes) -> FlowResult:
    try:
        report: dict[str, Any] = json.loads(out.decode(errors="replace") or "{}")
    except json.JSONDecodeError as e:
        return FlowResult(flow, 0.0, 0.0, 0, f"unreadable iperf3 report: {e}")
    if "error" in report:
        return FlowResult(flow, 0.0, 0.0, 0, str(report["error"]))
    end = report.get("end", {})
    sent = end.get("sum_sent", {})
    received = end.get("sum_received", {})
    return FlowResult(
        flow,
        float(sent.get("bits_per_second", 0.0)),
        float(received.get("bits_per_second", 0.0)),
        int(sent.get("retransmits", 0)),
    )


def run_flows(
    host: Callable[[str], Any],
    address: Callable[[str], str],
    flows: Sequence[Flow],
    seconds: float,
    *,
    track: Callable[[int, str], None],
    mss: int | None = None,
) -> list[FlowResult]:
    """Run `flows` in parallel for `seconds`; `host(name)` gives the Mininet node,
    `address(name)` its IP, `track(pid, what)` records each process started."""
    servers: list[subprocess.Popen[bytes]] = []
    clients: list[subprocess.Popen[bytes]] = []
    try:
        for i, f in enumerate(flows):
            port = BASE_PORT + i
            srv = host(f.dst).popen(
                ["iperf3", "-s", "-1", "--forceflush", "-p", str(port)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            track(srv.pid, f"iperf3 server in {f.dst}")
            servers.append(srv)
        for srv in servers:
            _wait_listening(srv, 10.0)
        for i, f in enumerate(flows):
            cmd = ["iperf3", "-c", address(f.dst), "-p", str(BASE_PORT + i), "-J"]
            cmd += ["-t", f"{seconds:g}", "--connect-timeout", "5000"]
            if mss:
                cmd += ["-M", str(mss)]
            cli = host(f.src).popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            track(cli.pid, f"iperf3 client in {f.src}")
            clients.append(cli)
        results = []
        deadline = time.monotonic() + seconds + 20.0
        for f, cli in zip(flows, clients, strict=True):
            try:
                out, _ = cli.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _stop(cli)
                results.append(FlowResult(f, 0.0, 0.0, 0, "iperf3 client did not finish"))
                continue
            results.append(_result(f, out))
        return results
    finally:
        for p in clients + servers:
            _stop(p)
            if p.stdout is not None:
                p.stdout.close()
            if p.stderr is not None:
                p.stderr.close()
