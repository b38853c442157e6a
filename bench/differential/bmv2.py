"""Run a program and STF commands on BMv2 `simple_switch` and collect each port's output.

Packets go in and come out through the switch's packet socket (`--packet-in`), which
carries every port (pcap files cannot be fed one packet at a time: BMv2 merges its input
files by time and waits for a packet in each). Commands run strictly in order: consecutive control
commands go to one `simple_switch_CLI` run, which ends before the next packet is written;
each packet is sent alone, and the next command waits until the switch has picked it
up (its log names the packet id) and its log has then been silent for `QUIET_S`. So every
packet is processed to completion (clones, recirculation, multicast included) before the
next one enters, whatever BMv2's threads do: a register shared by ingress and egress sees
packets one at a time, and no egress queue ever holds more than one packet's copies.

Each run gets its own Thrift port and device id (the switch's notification socket is
named after the device id), so several runs may proceed at once.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.targets import free_port
from softswitch.stf import parser as P

from .stf_cli import CliTranslator, Untranslatable

__all__ = ["Bmv2Error", "Bmv2Run", "Bmv2Tools", "compile_bmv2", "run_on_bmv2"]

QUIET_S = 0.03  # log silence after a packet was picked up: the packet is done
PACKET_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 30.0


class Bmv2Error(Exception):
    """BMv2 could not run the test (compile error, switch did not start, CLI missing)."""


@dataclass(slots=True, frozen=True)
class Bmv2Tools:
    """Where p4c-bm2-ss, simple_switch and simple_switch_CLI are."""

    p4c: Path
    switch: Path
    cli: Path

    @classmethod
    def find(cls, cli: str | None = None) -> Bmv2Tools | None:
        """From PATH; the CLI may be given, else PATH, else next to simple_switch."""
        p4c, switch = shutil.which("p4c-bm2-ss"), shutil.which("simple_switch")
        if p4c is None or switch is None:
            return None
        cli_path = cli or shutil.which("simple_switch_CLI")
        if cli_path is None:
            beside = Path(switch).with_name("simple_switch_CLI")
            cli_path = str(beside) if beside.exists() else None
        if cli_path is None:
            return None
        return cls(Path(p4c), Path(switch), Path(cli_path))


@dataclass(slots=True)
class Bmv2Run:
    """What the observed ports sent; `aborted` if the switch died during the run.
    `sources[port][i]` is the input packet (counted from 0 over the packets sent) whose
    processing sent `outputs[port][i]`."""

    outputs: dict[int, list[bytes]] = field(default_factory=dict)
    sources: dict[int, list[int]] = field(default_factory=dict)
    cli_errors: list[str] = field(default_factory=list)
    aborted: str = ""


def compile_bmv2(
    tools: Bmv2Tools, program: Path, out: Path, include_dirs: Sequence[Path] = ()
) -> Path:
    """`p4c-bm2-ss` `program` into `out` (a JSON file); Bmv2Error with p4c's message."""
    cmd = [str(tools.p4c), "-o", str(out), *(f"-I{d}" for d in include_dirs), str(program)]
    try:
        got = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise Bmv2Error("p4c-bm2-ss: timed out after 120 s") from None
    if got.returncode != 0 or not out.exists():
        lines = [ln for ln in got.stderr.splitlines() if "error" in ln.lower()]
        raise Bmv2Error("p4c-bm2-ss: " + (lines[0] if lines else got.stderr.strip()[:300]))
    return out


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the process that started it dies (Linux), so a
    killed run leaves no switch behind."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class _PacketPipe:
    """The client end of simple_switch's `--packet-in ipc://PATH` socket.

    BMv2 binds a nanomsg PAIR socket; over a Unix stream socket that is an 8-byte
    handshake (`\\0SP\\0`, protocol 0x0010 = PAIR, two reserved bytes) each way, then
    messages framed as one byte 0x01 and a 64-bit big-endian length. A message is BMv2's
    packet header (three native ints: type, port, length) and the frame: type 3 is a
    packet into the switch, 4 a packet out of it.
    """

    HANDSHAKE = b"\x00SP\x00" + struct.pack(">HH", 0x10, 0)
    PACKET_IN, PACKET_OUT = 3, 4

    def __init__(self, path: Path, deadline: float) -> None:
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(str(path))
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise Bmv2Error(f"simple_switch: no packet socket at {path}") from None
                time.sleep(0.05)
        self.sock.sendall(self.HANDSHAKE)
        self.buf = b""
        self.sock.settimeout(READY_TIMEOUT_S)
        while len(self.buf) < 8:
            chunk = self.sock.recv(8 - len(self.buf))
            if not chunk:
                raise Bmv2Error("simple_switch closed the packet socket")
            self.buf += chunk
        if self.buf != self.HANDSHAKE:
            raise Bmv2Error(f"unexpected packet socket handshake {self.buf.hex()}")
        self.buf = b""

    def send(self, port: int, data: bytes) -> None:
        msg = struct.pack("=iii", self.PACKET_IN, port, len(data)) + data
        self.sock.sendall(b"\x01" + struct.pack(">Q", len(msg)) + msg)

    def receive(self, timeout: float) -> list[tuple[int, bytes]]:
        """Every packet out that arrives within `timeout` s of the last one."""
        out: list[tuple[int, bytes]] = []
        self.sock.settimeout(timeout)
        while True:
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                chunk = None
            if chunk:
                self.buf += chunk
            while len(self.buf) >= 9:
                (n,) = struct.unpack_from(">Q", self.buf, 1)
                if len(self.buf) < 9 + n:
                    break
                msg, self.buf = self.buf[9 : 9 + n], self.buf[9 + n :]
                kind, port, length = struct.unpack_from("=iii", msg)
                if kind == self.PACKET_OUT:
                    out.append((port, msg[12 : 12 + length]))
            if not chunk:
                return out

    def close(self) -> None:
        self.sock.close()


class _Switch:
    """One simple_switch process fed through its packet socket, stopped by its PID."""

    def __init__(self, tools: Bmv2Tools, config: Path, work: Path) -> None:
        self.tools, self.work = tools, work
        self.thrift = free_port()
        self.device_id = self.thrift  # unique among live switches, like the port
        self.log = work / "switch.txt"  # BMv2 adds the .txt
        ipc = work / "packets.ipc"
        cmd = [
            str(tools.switch), "--packet-in", f"ipc://{ipc}", "--log-file", str(work / "switch"),
            "--log-flush", "--thrift-port", str(self.thrift), "--device-id", str(self.device_id),
            str(config),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd,
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        self.sent = 0
        self.log_pos = 0
        self.received: list[tuple[int, int, bytes]] = []  # (input packet, port, frame)
        deadline = time.monotonic() + READY_TIMEOUT_S
        self.pipe: _PacketPipe | None = None
        try:
            while not _answers(self.thrift):
                if self.proc.poll() is not None:
                    raise Bmv2Error(f"simple_switch exited with {self.proc.returncode} at start")
                if time.monotonic() > deadline:
                    raise Bmv2Error(f"simple_switch: no Thrift server after {READY_TIMEOUT_S} s")
                time.sleep(0.05)
            self.pipe = _PacketPipe(ipc, deadline)
        except BaseException:
            self.stop()
            raise

    def cli(self, lines: list[str]) -> list[str]:
        """Run CLI lines; the lines of its output that report errors."""
        got = subprocess.run(
            [str(self.tools.cli), "--thrift-port", str(self.thrift)],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        text = got.stdout + got.stderr
        return [ln.strip() for ln in text.splitlines() if "error" in ln.lower()]

    def _log_tail(self) -> str:
        try:
            with open(self.log, "rb") as f:
                f.seek(self.log_pos)
                chunk = f.read()
        except FileNotFoundError:
            return ""
        self.log_pos += len(chunk)
        return chunk.decode(errors="replace")

    def packet(self, port: int, data: bytes) -> str:
        """Send one packet and wait until it is processed; '' or why the switch stopped."""
        assert self.pipe is not None
        self.pipe.send(port, data)
        tag = f"[{self.sent}.0]"
        self.sent += 1
        deadline = time.monotonic() + PACKET_TIMEOUT_S
        picked = False
        quiet_since = time.monotonic()
        while True:
            if self.proc.poll() is not None:
                return f"simple_switch exited with {self.proc.returncode}"
            chunk = self._log_tail()
            now = time.monotonic()
            if chunk:
                quiet_since = now
                picked = picked or tag in chunk
            elif picked and now - quiet_since >= QUIET_S:
                self._collect(self.pipe.receive(QUIET_S))
                return ""
            if now > deadline:
                return f"packet {self.sent - 1} not processed within {PACKET_TIMEOUT_S} s"
            self._collect(self.pipe.receive(0.005))

    def _collect(self, frames: list[tuple[int, bytes]]) -> None:
        self.received += [(self.sent - 1, port, data) for port, data in frames]

    def stop(self) -> None:
        if self.pipe is not None:
            self.pipe.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            os.unlink(f"/tmp/bmv2-{self.device_id}-notifications.ipc")

    def outputs(self, ports: Sequence[int]) -> tuple[dict[int, list[bytes]], dict[int, list[int]]]:
        out: dict[int, list[bytes]] = {p: [] for p in ports}
        src: dict[int, list[int]] = {p: [] for p in ports}
        for k, port, data in self.received:
            if port in out:
                out[port].append(data)
                src[port].append(k)
        return out, src


def observed_ports(commands: Sequence[P.Command]) -> list[int]:
    """The ports an STF test observes: those named by `packet` and `expect`."""
    return sorted({c.port for c in commands if isinstance(c, P.Packet | P.Expect)})


def run_on_bmv2(
    tools: Bmv2Tools, config: Path, commands: Sequence[P.Command], work: Path
) -> Bmv2Run:
    """Run `commands` on a fresh simple_switch loaded with `config` (BMv2 JSON).

    Raises Untranslatable for commands BMv2 cannot be given, Bmv2Error if the switch
    does not start; a switch that dies mid-run gives `aborted` and the outputs so far.
    """
    translator = CliTranslator(config)
    plan: list[str | P.Packet] = []
    for c in commands:
        if isinstance(c, P.Packet):
            if len(c.data) % 2 == 0:  # odd hex: neither runner sends it
                plan.append(c)
        elif (line := translator.line(c)) is not None:
            plan.append(line)
    work.mkdir(parents=True, exist_ok=True)
    sw = _Switch(tools, config, work)
    run = Bmv2Run()
    try:
        pending: list[str] = []
        for step in plan:
            if isinstance(step, str):
                pending.append(step)
                continue
            if pending:
                run.cli_errors += sw.cli(pending)
                pending = []
            why = sw.packet(step.port, bytes.fromhex(step.data))
            if why:
                run.aborted = why
                break
    finally:
        sw.stop()
    run.outputs, run.sources = sw.outputs(observed_ports(commands))
    return run


__all__ += ["Untranslatable", "observed_ports"]
