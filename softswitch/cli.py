"""The `softswitch` command line.

    softswitch compile ...      compile a P4 program (see compile_cli)
    softswitch stf ...          run STF tests (see stf.cli)
    softswitch [OPTIONS] [PROGRAM_CONFIG | --no-p4] [-- TARGET_OPTIONS]
                                run a switch, with simple_switch_grpc's flags

The first argument picks the subcommand; anything else runs a switch, so a Mininet runner
written for `simple_switch_grpc` can start `softswitch` with the same arguments.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .heap import freeze_heap, refreeze_heap

__all__ = ["build_parser", "build_run_parser", "build_target_parser", "main", "run_switch"]

SUBCOMMANDS = ("compile", "stf")
DEFAULT_GRPC_ADDR = "127.0.0.1:9559"
log = logging.getLogger("softswitch")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the subcommands (`compile`, `stf`)."""
    from .compile_cli import add_compile_command
    from .stf.cli import add_stf_command

    parser = argparse.ArgumentParser(
        prog="softswitch", description="A pure-Python P4_16 v1model switch."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_compile_command(subparsers)
    add_stf_command(subparsers)
    return parser


def _port_iface(text: str) -> tuple[int, str]:
    port, at, iface = text.partition("@")
    try:
        n = int(port, 0)
    except ValueError:
        n = -1
    if not at or not iface or not 0 <= n <= 510:
        raise argparse.ArgumentTypeError(f"expected PORT@IFACE with PORT in 0..510, not {text!r}")
    return n, iface


def _queue_command(text: str) -> Any:
    from .queue_commands import QueueCommandError, parse_queue_command

    try:
        return parse_queue_command(text)
    except QueueCommandError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _apply_queue_commands(runtime: Any, commands: Sequence[Any]) -> None:
    from .queue_commands import apply_queue_command

    for cmd in commands:
        apply_queue_command(runtime, cmd)


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="softswitch",
        usage=(
            "softswitch [options] [PROGRAM_CONFIG | --no-p4] [-- TARGET_OPTIONS]\n"
            "       softswitch compile PROGRAM.p4 ...   (softswitch compile -h)\n"
            "       softswitch stf PROGRAM.p4 ...       (softswitch stf -h)"
        ),
        description=(
            "Run a v1model switch with a P4Runtime server, taking simple_switch_grpc's "
            "arguments. It logs 'Server listening on HOST:PORT', then 'softswitch ready', "
            "and exits 0 on SIGTERM or SIGINT."
        ),
        epilog=(
            "target options (after --): --grpc-server-addr HOST:PORT (default "
            f"{DEFAULT_GRPC_ADDR}: loopback only, unlike simple_switch_grpc's 0.0.0.0; give "
            "0.0.0.0:9559 to accept remote controllers; port 0 picks a free port), "
            "--cpu-port N (packet-in/packet-out port; none by default), --priority-queues N. "
            "Other simple_switch_grpc target options are accepted and ignored with a warning."
        ),
    )
    p.add_argument(
        "config",
        nargs="?",
        metavar="PROGRAM_CONFIG",
        help="a device config from 'softswitch compile -o', or a .p4 program (preprocessed; "
        "compiled on first use, then loaded from the program cache)",
    )
    p.add_argument(
        "--no-p4", action="store_true", help="start without a program (wait for P4Runtime)"
    )
    p.add_argument("--device-id", type=int, default=0, metavar="N", help="P4Runtime device id")
    p.add_argument(
        "--chassis",
        metavar="FILE",
        help="serve every device of this JSON file (device_id, name, ports, cpu_port; see "
        "softswitch.chassis) behind one P4Runtime server, instead of --device-id and -i",
    )
    p.add_argument(
        "-i",
        "--interface",
        action="append",
        default=[],
        type=_port_iface,
        metavar="PORT@IFACE",
        help="attach Linux interface IFACE (AF_PACKET, needs root) as port PORT; IFACE "
        "udp:HOST:PORT,PEER_HOST:PORT is a UDP socket pair instead (one frame per datagram, "
        "no root); repeatable",
    )
    p.add_argument(
        "--use-files",
        type=float,
        metavar="SECS",
        help="interfaces are files: replay IFACE_in.pcap, write IFACE_out.pcap; start "
        "replaying after SECS seconds",
    )
    p.add_argument("--log-console", action="store_true", help="trace every packet on stderr")
    p.add_argument("--thrift-port", type=int, metavar="N", help="accepted and ignored")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    p.add_argument("--queue-depth", type=int, metavar="N", help="egress queue depth in packets")
    p.add_argument(
        "--queue-rate", type=float, metavar="PPS", help="egress rate per port, packets/s"
    )
    p.add_argument("--priority-queues", type=int, metavar="N", help="queues per port (default 1)")
    p.add_argument(
        "--queueing",
        choices=("shared", "bmv2"),
        default="shared",
        help="how a port serves its priority queues: one server at the rate of the queue "
        "served (shared, default), or a rate limiter per queue with departure times fixed "
        "on enqueue, as simple_switch (bmv2)",
    )
    p.add_argument(
        "--queue-command",
        action="append",
        default=[],
        type=_queue_command,
        metavar="CMD",
        help="a simple_switch_CLI queue command applied at start (after --queue-depth and "
        "--queue-rate; to every device of a chassis): 'set_queue_rate PPS [PORT [PRIORITY]]' "
        "or 'set_queue_depth N [PORT [PRIORITY]]'; repeatable",
    )
    p.add_argument(
        "--impair-file",
        metavar="FILE",
        help="JSON file of UDP cable impairments (loss, rate, flap, busy, pause per device "
        "and port; softswitch.impair), applied whenever it changes",
    )
    p.add_argument(
        "--port-stats-file",
        metavar="FILE",
        help="with --impair-file: write the UDP ports' counters (drops, pause time, carrier "
        "transitions, queue; softswitch.port_counters) to FILE every 0.1 s",
    )
    # accepted for compatibility with simple_switch command lines
    p.add_argument("-L", "--log-level", metavar="LEVEL", help=argparse.SUPPRESS)
    p.add_argument("--log-file", metavar="FILE", help="write the log here instead of stderr")
    p.add_argument("--log-flush", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pcap", nargs="?", const=".", metavar="DIR", help=argparse.SUPPRESS)
    p.add_argument("--notifications-addr", metavar="ADDR", help=argparse.SUPPRESS)
    return p


def build_target_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="softswitch ... --", description="target options")
    p.add_argument("--grpc-server-addr", default=DEFAULT_GRPC_ADDR, metavar="HOST:PORT")
    p.add_argument("--cpu-port", type=int, metavar="N")
    p.add_argument("--priority-queues", type=int, metavar="N")
    p.add_argument("--drop-port", type=int, metavar="N")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return _subcommand(args)
    return run_switch(args)


def _subcommand(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args))
    except BrokenPipeError:  # e.g. `softswitch stf ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


# ------------------------------------------------------------------ running a switch
def _say(msg: str) -> None:
    """Progress lines on stdout (as simple_switch prints them), flushed at once."""
    try:
        print(msg, flush=True)
    except OSError:  # nobody reads our stdout any more: keep running
        pass


def _since_process_start(fallback_t0: float) -> float:
    """Seconds since this process started (from /proc; else since `fallback_t0`)."""
    try:
        stat = Path("/proc/self/stat").read_text()
        start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.monotonic() - fallback_t0


def _load_program(path: Path, trace: bool, cache: Any) -> Any:
    """A CompiledProgram from a .p4 file or a device config; None (after a message) on error."""
    from .device_config import DeviceConfigError
    from .frontend.errors import P4Error

    try:
        if path.suffix == ".p4":
            from .device_config import make_device_config

            # preprocessed, the program is a device config: compiled once, then cached
            return cache.load(make_device_config(path), trace=trace)
        return cache.load(path.read_bytes(), trace=trace)
    except OSError as e:
        print(f"softswitch: error: cannot read {path}: {e.strerror}", file=sys.stderr)
    except P4Error as e:
        print(f"{e.file}:{e.line}:{e.col}: error: {e.message}", file=sys.stderr)
    except DeviceConfigError as e:
        print(
            f"softswitch: error: {path}: {e} (expected the output of 'softswitch compile -o' "
            "or a .p4 file; BMv2 JSON is not accepted)",
            file=sys.stderr,
        )
    return None


def _setup_logging(log_file: str | None) -> None:
    handler: logging.Handler = (
        logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("softswitch: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _start_server(runtime: Any, device_id: int, address: str, cache: Any) -> tuple[Any, int | None]:
    """The P4Runtime server, if this build has one: (server, bound port) or (None, None)."""
    try:
        from .p4runtime.server import P4RuntimeServer
    except ModuleNotFoundError as e:
        if e.name not in ("softswitch.p4runtime.server", "softswitch.p4runtime"):
            raise
        log.warning("no P4Runtime server in this build: running without one")
        return None, None
    server = P4RuntimeServer(
        runtime,
        device_id=device_id,
        address=address,
        load_config=cache.load,
        after_commit=refreeze_heap,
    )
    return server, server.start()


def _replay(runtime: Any, inputs: dict[int, Path], wait_s: float, stop: threading.Event) -> None:
    from itertools import islice

    from .ports import PcapError, merge_pcaps

    if stop.wait(wait_s):
        return
    n = 0
    t0 = time.perf_counter()
    try:
        frames = merge_pcaps(inputs)
        while not stop.is_set() and (chunk := list(islice(frames, 1024))):
            n += runtime.inject_many(chunk)  # the lock is taken once per 64 frames
    except (OSError, PcapError) as e:
        log.error("reading the input pcap files: %s", e)
    if stop.is_set():
        return
    dt = time.perf_counter() - t0
    rate = f", {n / dt:,.0f} packets/s" if dt > 0 else ""
    _say(f"Replayed {n} packets from the input files in {dt:.3f} s{rate}")


def run_switch(argv: Sequence[str]) -> int:
    """`softswitch [options] [PROGRAM_CONFIG | --no-p4] [-- target options]`: run until
    SIGTERM/SIGINT; exit 0 then, 1 on a start-up error, 2 on a usage error."""
    t0 = time.monotonic()
    argv = list(argv)
    own, target = (
        (argv[: argv.index("--")], argv[argv.index("--") + 1 :])
        if "--" in argv
        else (
            argv,
            [],
        )
    )
    parser = build_run_parser()
    args = parser.parse_args(own)
    targs, unknown = build_target_parser().parse_known_args(target)
    if args.no_p4 == (args.config is not None):
        parser.error("give either PROGRAM_CONFIG or --no-p4")
    if args.port_stats_file is not None and args.impair_file is None:
        parser.error("--port-stats-file counts the ports --impair-file impairs: give both")
    queues = targs.priority_queues or args.priority_queues or 1
    for cmd in args.queue_command:
        if cmd.priority is not None and cmd.priority >= queues:
            parser.error(
                f"--queue-command: priority {cmd.priority} out of range: {queues} queue(s) "
                "per port (--priority-queues N)"
            )
    _setup_logging(args.log_file)
    for opt in unknown:
        if opt.startswith("-"):
            log.warning("target option %s is not supported; ignored", opt)
    if args.thrift_port is not None:
        log.warning("--thrift-port %d ignored: softswitch has no Thrift server", args.thrift_port)
    if args.pcap is not None:
        log.warning("--pcap ignored: softswitch does not dump interface pcaps")
    if targs.drop_port not in (None, 511):
        log.warning("--drop-port %d ignored: the drop port is 511", targs.drop_port)

    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    from .ports import PcapFilePort
    from .program_cache import ProgramCache
    from .runtime import SwitchRuntime

    if args.chassis is not None:
        if args.interface or args.use_files is not None:
            parser.error("--chassis lists the ports of its devices: no -i or --use-files")
        return _run_chassis(args, targs, stop, t0)
    cache = ProgramCache()
    compiled = None
    if args.config is not None:
        compiled = _load_program(Path(args.config), args.log_console, cache)
        if compiled is None:
            return 1
        for w in compiled.warnings:
            print(w, file=sys.stderr)
    runtime = SwitchRuntime(
        device_id=args.device_id,
        cpu_port=targs.cpu_port,
        seed=args.seed,
        log_console=args.log_console,
        priority_queues=targs.priority_queues or args.priority_queues or 1,
        queue_depth=args.queue_depth,
        queue_rate_pps=args.queue_rate,
        queueing=args.queueing,
    )
    _apply_queue_commands(runtime, args.queue_command)
    server = None
    try:
        if compiled is not None:
            runtime.load(compiled)
        inputs: dict[int, Path] = {}
        for port_no, iface in args.interface:
            if args.use_files is not None:
                src = Path(f"{iface}_in.pcap")
                if src.exists():
                    inputs[port_no] = src
                else:
                    log.warning("%s does not exist: port %d receives nothing", src, port_no)
                runtime.add_port(port_no, PcapFilePort(f"{iface}_out.pcap"))
                _say(f"Adding interface {iface} as port {port_no} (files)")
            else:
                try:
                    port = _open_port(iface)
                except OSError as e:
                    raise OSError(f"cannot open interface {iface}: {e.strerror or e}") from None
                runtime.add_port(port_no, port)
                _say(f"Adding interface {iface} as port {port_no}")
        server, bound = _start_server(runtime, args.device_id, targs.grpc_server_addr, cache)
        if server is not None:
            host = targs.grpc_server_addr.rpartition(":")[0]
            _say(f"Server listening on {host}:{bound}")
        runtime.start()
        watcher = _impair_watcher(args, {args.device_id: runtime})
    except (OSError, ValueError, RuntimeError) as e:
        print(f"softswitch: error: {e}", file=sys.stderr)
        _shutdown(server, runtime)
        return 1
    # what start-up built (modules, the program, gRPC) lives as long as the process: keep it
    # out of the garbage collector's scans, which otherwise walk it again and again while
    # packets allocate their headers and writes their entries (a pipeline committed later
    # refreezes: the server's after_commit)
    freeze_heap()
    _say(
        f"softswitch ready (pid {os.getpid()}, device {args.device_id}, "
        f"{'program ' + compiled.name if compiled else 'no program'}, "
        f"{_since_process_start(t0):.2f} s after start)"
    )
    if args.use_files is not None and inputs:
        threading.Thread(
            target=_replay,
            args=(runtime, inputs, args.use_files, stop),
            name="softswitch-replay",
            daemon=True,
        ).start()
    while not stop.is_set():
        stop.wait(0.5)
    if watcher is not None:
        watcher.stop()
    _shutdown(server, runtime)
    _say("softswitch stopped")
    return 0


def _run_chassis(args: Any, targs: Any, stop: threading.Event, t0: float) -> int:
    """`softswitch --chassis FILE`: every device of FILE in this process, one P4Runtime
    server (the request's device id picks the device), one thread receiving for every UDP
    port, one program shared by the devices that push the same config."""
    from .chassis import load_chassis
    from .p4runtime.server import P4RuntimeServer
    from .ports.udp import UdpPort, UdpReceiver
    from .program_cache import ProgramCache, SharedPrograms
    from .runtime import SwitchRuntime

    try:
        devices = load_chassis(Path(args.chassis))
    except (OSError, ValueError) as e:
        print(f"softswitch: error: --chassis: {e}", file=sys.stderr)
        return 1
    programs = SharedPrograms(ProgramCache())
    compiled = None
    if args.config is not None:
        compiled = _load_program(Path(args.config), args.log_console, programs)
        if compiled is None:
            return 1
    runtimes: list[Any] = []
    receiver = UdpReceiver()
    server: Any = None
    refreeze = _Debounced(refreeze_heap, 1.0)
    try:
        for d in devices:
            rt = SwitchRuntime(
                device_id=d.device_id,
                cpu_port=d.cpu_port if d.cpu_port is not None else targs.cpu_port,
                seed=args.seed,
                log_console=args.log_console,
                priority_queues=targs.priority_queues or args.priority_queues or 1,
                queue_depth=args.queue_depth,
                queue_rate_pps=args.queue_rate,
                name=d.name,
                queueing=args.queueing,
            )
            _apply_queue_commands(rt, args.queue_command)
            runtimes.append(rt)
            if compiled is not None:
                rt.load(compiled)
            for port_no, iface in d.ports:
                try:
                    port = _open_port(iface)
                except OSError as e:
                    raise OSError(f"{d.name}: cannot open {iface}: {e.strerror or e}") from None
                rt.add_port(port_no, port)
                if isinstance(port, UdpPort):
                    receiver.add(rt, port_no, port)
            if server is None:
                server = P4RuntimeServer(
                    rt,
                    device_id=d.device_id,
                    address=targs.grpc_server_addr,
                    load_config=programs.load,
                    after_commit=refreeze.request,
                )
            else:
                server.add_device(rt, d.device_id, after_commit=refreeze.request)
        bound = server.start()
        _say(f"Server listening on {targs.grpc_server_addr.rpartition(':')[0]}:{bound}")
        for rt in runtimes:
            # UDP ports are received by the one receiver; other ports by threads of their own
            rt.start(receive=not all(isinstance(p, UdpPort) for p in rt.ports.values()))
        receiver.start()
        watcher = _impair_watcher(args, {rt.device_id: rt for rt in runtimes})
    except (OSError, ValueError, RuntimeError) as e:
        print(f"softswitch: error: {e}", file=sys.stderr)
        receiver.stop()
        for rt in runtimes:
            _shutdown(None, rt)
        if server is not None:
            server.stop()
        return 1
    freeze_heap()
    _say(
        f"softswitch ready (pid {os.getpid()}, {len(devices)} devices, "
        f"{'program ' + compiled.name if compiled else 'no program'}, "
        f"{_since_process_start(t0):.2f} s after start)"
    )
    while not stop.is_set():
        stop.wait(0.5)
    refreeze.cancel()
    if watcher is not None:
        watcher.stop()
    receiver.stop()
    _shutdown(server, runtimes[0])
    for rt in runtimes[1:]:
        rt.stop()
    _say("softswitch stopped")
    return 0


class _Debounced:
    """`fn()` once, `delay` seconds after the last `request()` (a chassis's devices commit
    their pipelines one after another: the heap is refrozen once, after the last)."""

    def __init__(self, fn: Any, delay: float) -> None:
        self.fn = fn
        self.delay = delay
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def request(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self.fn)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()


def _impair_watcher(args: Any, runtimes: dict[int, Any]) -> Any:
    """With --impair-file: a watcher applying it to the UDP ports (softswitch.impair)."""
    if args.impair_file is None:
        return None
    from .impair import ImpairWatcher

    stats = None if args.port_stats_file is None else Path(args.port_stats_file)
    return ImpairWatcher(Path(args.impair_file), runtimes, stats).start()


def _open_port(iface: str) -> Any:
    """A UDP-over-loopback port for `udp:LOCAL,REMOTE` (ports/udp.py), else an interface."""
    if iface.startswith("udp:"):
        from .ports.udp import UdpPort

        return UdpPort(iface)
    from .ports.afpacket import RawSocketPort

    return RawSocketPort(iface)


def _shutdown(server: Any, runtime: Any) -> None:
    if server is not None:
        try:
            server.stop()
        except Exception:
            log.exception("stopping the P4Runtime server failed")
    runtime.stop()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
