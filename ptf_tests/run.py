#!/usr/bin/env python3
"""Run the PTF suite of p4src/fabric.p4 against a target.

    ptf_tests/run.py [--target softswitch|bmv2] [--veth] [--test-filter SPEC ...]
                     [--bmv2-cli PATH] [--record DIR]

1. Compile p4src/fabric.p4 into a build directory: `softswitch compile` (P4Info + device
   config), or `p4c-bm2-ss --p4runtime-files` for BMv2.
2. Start the switch:
   - softswitch (default): inside the PTF process (platform `softswitch_inproc`): no
     root, ports are socket pairs, queue rates set directly by the tests.
   - `--veth` (softswitch) or `--target bmv2`: as root, a network namespace with veth
     pairs swN <-> ptfN (N = 1..8) is created, the switch process (`softswitch` or
     `simple_switch_grpc`) attached to the swN ends, and PTF runs in the namespace on the
     ptfN ends. The switch is ready when its PID is alive and its gRPC port answers; it is
     stopped by its PID, the namespace (and its veths) deleted afterwards.
3. Run `ptf` (the PyPI package's runner) with ptf_tests/tests, then print the summary
   `N passed, M failed, K skipped` as the last line; exit 1 if anything failed.

A target that cannot run here (no BMv2 tools, no root for veths, ptf missing) is skipped
with its reason, exit status 0.

`--bmv2-cli` names the simple_switch_CLI the BMv2 tests use for queue rates, queue depths
and register reads (default: $SIMPLE_SWITCH_CLI, else PATH, else next to
simple_switch_grpc).

`--test-filter` takes PTF test specs: a module (`ecn`), a test (`ecn.EcnStepTest`), or a
group negated with `^`; several may be given (or comma-separated).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "ptf_tests"
FABRIC_P4 = ROOT / "p4src" / "fabric.p4"
DEFINE_P4 = ROOT / "p4src" / "include" / "define.p4"
PORTS = range(1, 9)
CPU_PORT = 255
GRPC_PORT = 9559
THRIFT_PORT = 9090


@dataclass(frozen=True)
class Outcome:
    passed: int
    failed: int
    skipped: int

    def line(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


class Skip(Exception):
    """This target cannot run here; the message says why."""


# ------------------------------------------------------------------ tools
def venv_tool(name: str) -> str | None:
    """A console script next to this interpreter (the venv's), else from PATH."""
    here = Path(sys.executable).with_name(name)
    return str(here) if here.exists() else shutil.which(name)


def compile_fabric(target: str, build: Path) -> tuple[Path, Path]:
    """(P4Info, device config) of fabric.p4 for `target`."""
    if target == "bmv2":
        p4c = shutil.which("p4c-bm2-ss")
        if p4c is None:
            raise Skip("bmv2: p4c-bm2-ss not found on PATH")
        p4info, config = build / "fabric.p4info.txt", build / "fabric.json"
        cmd = [p4c, "--p4runtime-files", str(p4info), "-o", str(config), str(FABRIC_P4)]
    else:
        tool = venv_tool("softswitch")
        if tool is None:
            raise Skip("softswitch: the softswitch command is not installed")
        p4info, config = build / "fabric.p4info.txtpb", build / "fabric.json"
        cmd = [tool, "compile", str(FABRIC_P4), "--p4info", str(p4info), "-o", str(config)]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return p4info, config


# ------------------------------------------------------------------ namespace and switch
def run(*cmd: str) -> None:
    got = subprocess.run(cmd, capture_output=True, text=True)
    if got.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {got.stderr.strip() or got.returncode}")


@contextmanager
def veth_namespace(name: str) -> Iterator[None]:
    """Namespace `name` with veth pairs swN <-> ptfN, IPv6 off (no router solicitations
    on the test ports); deleted, veths with it, on exit."""
    if os.geteuid() != 0:
        raise Skip("veth pairs need root (run as root, or use the in-process softswitch)")
    if shutil.which("ip") is None:
        raise Skip("veth pairs need the ip command (iproute2)")
    run("ip", "netns", "add", name)
    try:
        for key in ("all", "default"):
            run("ip", "netns", "exec", name, "sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1")
        run("ip", "-n", name, "link", "set", "lo", "up")
        for n in PORTS:
            run(
                "ip", "-n", name, "link", "add", f"sw{n}", "type", "veth", "peer", "name", f"ptf{n}"
            )
            for end in (f"sw{n}", f"ptf{n}"):
                run("ip", "-n", name, "link", "set", end, "mtu", "9000", "up")
        yield
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


@contextmanager
def switch_process(target: str, netns: str, log_file: Path) -> Iterator[int]:
    """Start the switch in `netns` (no program: the tests push it); yield its PID once it
    is ready (the project's launcher: PID alive and gRPC port answering; stopped by PID)."""
    from controller.targets import SwitchProcess, SwitchSpec, SwitchStartError

    if target == "bmv2":
        if shutil.which("simple_switch_grpc") is None:
            raise Skip("bmv2: simple_switch_grpc not found on PATH")
        exe = None
    else:
        exe = venv_tool("softswitch")
        if exe is None:
            raise Skip("softswitch: the softswitch command is not installed")
    spec = SwitchSpec(
        target="bmv2" if target == "bmv2" else "softswitch",
        ports=tuple((n, f"sw{n}") for n in PORTS),
        grpc_addr=f"127.0.0.1:{GRPC_PORT}",
        device_id=0,
        cpu_port=CPU_PORT,
        thrift_port=THRIFT_PORT,
        log_file=log_file,
        target_args=("--priority-queues", "2"),
        netns=netns,
        executable=exe,
    )
    sw = SwitchProcess(spec)
    print("+", " ".join(sw.command()), flush=True)
    try:
        with sw:
            print(f"{target} ready (PID {sw.pid})", flush=True)
            yield sw.pid
    except SwitchStartError as e:
        raise RuntimeError(str(e)) from None


# ------------------------------------------------------------------ ptf
def ptf_command(
    ptf: str,
    platform: str,
    platform_args: str,
    params: dict[str, object],
    build: Path,
    specs: Sequence[str],
    user: bool,
) -> list[str]:
    test_params = ";".join(f"{k}={v!r}" for k, v in params.items())
    cmd = [
        sys.executable, ptf,
        "--test-dir", str(SUITE / "tests"),
        "--pypath", str(ROOT),
        "--platform-dir", str(SUITE / "platforms"),
        "--platform", platform,
        "--platform-args", platform_args,
        "--test-params", test_params,
        "--log-file", str(build / "ptf.log"),
        "--qlen", "10000",
        "--default-timeout", "3",
        "--default-negative-timeout", "0.05",
        "--test-case-timeout", "180",
    ]  # fmt: skip
    if user:
        cmd.append("--allow-user")
    return cmd + list(specs)


RAN = re.compile(r"^Ran (\d+) tests? in ")
RESULT = re.compile(r"^(OK|FAILED)\s*(?:\((.*)\))?\s*$")


def count(output: str) -> Outcome | None:
    """Passed/failed/skipped from unittest's closing lines, None if it never got there."""
    ran = None
    summary: dict[str, int] | None = None
    for line in output.splitlines():
        if m := RAN.match(line):
            ran = int(m[1])
        elif ran is not None and (m := RESULT.match(line)):
            summary = {"_ok": int(m[1] == "OK")}
            for part in (m[2] or "").split(","):
                if "=" in part:
                    k, v = part.split("=")
                    summary[k.strip()] = int(v)
    if ran is None or summary is None:
        return None
    failed = summary.get("failures", 0) + summary.get("errors", 0)
    failed += summary.get("unexpected successes", 0)
    skipped = summary.get("skipped", 0)
    passed = ran - failed - skipped - summary.get("expected failures", 0)
    return Outcome(passed, failed, skipped)


def run_ptf(cmd: list[str], netns: str | None) -> tuple[int, str]:
    """Run PTF (in `netns` if given), echoing its output; (exit status, output)."""
    if netns is not None:
        cmd = ["ip", "netns", "exec", netns, *cmd]
    print("+", " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    return proc.wait(), "".join(lines)


def suite(args: argparse.Namespace, build: Path) -> Outcome:
    ptf = venv_tool("ptf")
    if ptf is None:
        raise Skip("ptf is not installed (pip install ptf)")
    specs = [s for spec in args.test_filter for s in spec.split(",") if s]
    veth = args.veth or args.target == "bmv2"
    if veth:  # check before compiling
        if os.geteuid() != 0:
            raise Skip("veth pairs need root (run as root, or use the in-process softswitch)")
        if args.target == "bmv2" and not shutil.which("simple_switch_grpc"):
            raise Skip("bmv2: simple_switch_grpc not found on PATH")
    p4info, config = compile_fabric(args.target, build)
    params: dict[str, object] = {
        "target": args.target,
        "p4info": str(p4info),
        "device_config": str(config),
        "define_p4": str(DEFINE_P4),
        "device_id": 0,
        "cpu_port": CPU_PORT,
    }
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
        params["record_dir"] = str(args.record.resolve())
    started = time.monotonic()
    if not veth:
        cmd = ptf_command(
            ptf,
            "softswitch_inproc",
            f"ports={PORTS[0]}-{PORTS[-1]};cpu_port={CPU_PORT}",
            params,
            build,
            specs,
            user=True,
        )
        rc, out = run_ptf(cmd, None)
    else:
        netns = f"sfptf{os.getpid()}"
        params |= {"grpc_addr": f"127.0.0.1:{GRPC_PORT}", "thrift_port": THRIFT_PORT}
        if args.bmv2_cli:
            params["bmv2_cli"] = args.bmv2_cli
        with veth_namespace(netns), switch_process(args.target, netns, build / "switch.log"):
            port_map = ",".join(f"{n}=ptf{n}" for n in PORTS)
            cmd = ptf_command(ptf, "veth", port_map, params, build, specs, user=False)
            rc, out = run_ptf(cmd, netns)
    print(f"ptf: {time.monotonic() - started:.1f} s")
    got = count(out)
    if got is None:
        print("ptf did not report results (see its output above)")
        return Outcome(0, 1, 0)
    if rc != 0 and got.failed == 0:
        return Outcome(got.passed, 1, got.skipped)
    return got


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=["softswitch", "bmv2"], default="softswitch")
    ap.add_argument("--veth", action="store_true", help="softswitch as a process on veth pairs")
    ap.add_argument("--test-filter", action="append", default=[], metavar="SPEC")
    ap.add_argument("--build-dir", type=Path, help="keep the compiled program and ptf.log here")
    ap.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="record each test's frames in DIR (for ptf_tests/compare_runs.py)",
    )
    ap.add_argument(
        "--bmv2-cli",
        default=os.environ.get("SIMPLE_SWITCH_CLI"),
        help="simple_switch_CLI for BMv2 (default: $SIMPLE_SWITCH_CLI, PATH, or next to "
        "simple_switch_grpc)",
    )
    args = ap.parse_args(argv)
    build = args.build_dir or Path(tempfile.mkdtemp(prefix="sfptf-"))
    build.mkdir(parents=True, exist_ok=True)
    try:
        outcome = suite(args, build)
    except Skip as e:
        print(f"skipped: {e}")
        outcome = Outcome(0, 0, 1)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        print(f"error: {e}")
        outcome = Outcome(0, 1, 0)
    finally:
        if args.build_dir is None and not os.environ.get("PTF_KEEP_BUILD"):
            shutil.rmtree(build, ignore_errors=True)
    print(outcome.line())
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # p4rt_proto.netns.in_netns for the readiness probe
    sys.exit(main())
