"""P4 programs and helpers shared by the runtime tests."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from controller.targets import softswitch_command
from softswitch.compiler import compile_text

# The first byte of a frame names the output port; a frame whose second byte is 0xD1
# also sends a digest carrying its third byte.
DST_FWD = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> dst; bit<8> kind; bit<8> val; }
struct H { h_t h; }
struct M {}
struct d_t { bit<8> val; bit<9> port; }
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)hdr.h.dst;
        if (hdr.h.kind == 0xD1) {
            digest<d_t>(1, { hdr.h.val, sm.ingress_port });
        }
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control CC(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

# port 1 <-> port 2, whatever the frame holds (the program the AF_PACKET benchmark uses)
CROSS = (
    Path(__file__).resolve().parents[2] / "bench" / "programs" / "cross_connect.p4"
).read_text()


def compiled(source: str = DST_FWD):  # type: ignore[no-untyped-def]
    return compile_text(source, "runtime_test.p4")


def softswitch_cmd() -> list[str]:
    """The `softswitch` command of this venv (the launcher's resolution)."""
    return softswitch_command()


def have_grpc_server() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("softswitch.p4runtime.server") is not None
    except ImportError:
        return False


class SwitchProcess:
    """A `softswitch` subprocess whose stdout lines are collected by a thread; stopped by
    its PID. Used as a context manager, it never outlives the test. This one observes the
    command's own output and exit codes (what these tests check); other tests start
    switches with the project's launcher, `controller.targets.SwitchProcess`."""

    def __init__(
        self, args: list[str], cwd: Path | None = None, prefix: Sequence[str] = ()
    ) -> None:
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [*prefix, *softswitch_cmd(), *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.seen: list[str] = []
        self._err: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self._err_thread = threading.Thread(target=self._pump_err, daemon=True)
        self._err_thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _pump_err(self) -> None:  # stderr is read all along: a full pipe would block it
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._err.append(line)

    def wait_line(self, prefix: str, timeout: float = 20.0) -> str:
        """The first stdout line starting with `prefix` (AssertionError if none comes)."""
        for line in self.seen:
            if line.startswith(prefix):
                return line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                line = None
                left = 0
            if line is None:
                raise AssertionError(
                    f"no line {prefix!r} (exit {self.proc.poll()}); stdout {self.seen}; "
                    f"stderr {self.read_stderr()}"
                )
            self.seen.append(line)
            if line.startswith(prefix):
                return line
            if left <= 0:
                raise AssertionError(f"no line {prefix!r} within {timeout} s: {self.seen}")

    def read_stderr(self, timeout: float = 5.0) -> str:
        """What the process wrote on stderr (all of it once the process has ended)."""
        if self.proc.poll() is not None:
            self._err_thread.join(timeout)
        return "".join(self._err)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise

    def __enter__(self) -> SwitchProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()


def netns_unavailable() -> str | None:
    """Why network namespaces and veths cannot be used here (None: they can)."""
    if sys.platform != "linux":
        return "AF_PACKET and network namespaces need Linux"
    if os.geteuid() != 0:
        return "needs root (AF_PACKET sockets, ip netns, veth)"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    return None


class Netns:
    """A network namespace made for one test, with veth pairs inside it; `delete()` removes
    the namespace and with it every interface it holds."""

    def __init__(self, tag: str) -> None:
        self.name = f"ssw{os.getpid()}{tag}"
        self.created = False
        r = subprocess.run(["ip", "netns", "add", self.name], capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError(f"ip netns add {self.name}: {r.stderr.strip()}")
        self.created = True
        # no IPv6 router solicitations or MLD reports on the test wires
        self.run("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        self.run("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        self.run("ip", "link", "set", "lo", "up")

    def run(self, *cmd: str) -> None:
        subprocess.run(["ip", "netns", "exec", self.name, *cmd], check=True, capture_output=True)

    def veth(self, a: str, b: str) -> tuple[str, str]:
        """A veth pair named <ns>a / <ns>b, both ends up, both inside the namespace."""
        na, nb = f"{self.name}{a}", f"{self.name}{b}"
        self.run("ip", "link", "add", na, "type", "veth", "peer", "name", nb)
        self.run("ip", "link", "set", na, "up")
        self.run("ip", "link", "set", nb, "up")
        return na, nb

    def delete(self) -> None:
        """Remove the namespace; raise if it is still there (a leak would outlive the test
        run), after one more try a moment later (a process leaving it may still hold it)."""
        if not self.created:
            return
        for attempt in range(2):
            r = subprocess.run(["ip", "netns", "del", self.name], capture_output=True, text=True)
            if r.returncode == 0:
                self.created = False
                return
            if attempt == 0:
                time.sleep(0.5)
        raise OSError(f"ip netns del {self.name}: {r.stderr.strip()}")
