"""The `softswitch` process next to the in-process engine, on the same program and packets.

1. Packets: bench/programs/ipv4_lpm.p4 (LPM, checksum verify and update, a counter) with
   1,000 prefixes, 64-byte UDP frames. In-process: `Switch.process` in a loop. Process:
   `softswitch prog.json -i 1@p1 -i 2@p2 --use-files W` replays p1_in.pcap into port 1 and
   writes p2_out.pcap; the entries go in over P4Runtime during the wait, and the switch
   reports how long the replay took.
2. P4Runtime writes: 4,000 LPM entries in WriteRequests of 1,000 from one client, to an
   in-process server and to the `softswitch` process.
3. Start-up: seconds from starting `softswitch prog.json` to its "softswitch ready" line.

Run: `python -m bench.process_bench [--packets N]`. Every figure is the best of a few runs
(the machine is shared; the best run is the one least disturbed).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from controller.targets import SwitchProcess, SwitchSpec
from p4rt_proto import p4runtime_pb2
from softswitch.compiler import compile_file
from softswitch.device_config import make_device_config
from softswitch.engine.matches import Lpm
from softswitch.p4info import p4info_for
from softswitch.ports import PcapWriter
from softswitch.v1model.switch import Switch

from . import p4runtime_bench as prb
from .engine_bench import ipv4_frame

PROGRAM = Path(__file__).parent / "programs" / "ipv4_lpm.p4"
FLOWS = 64


def prefixes(n: int = 1000) -> list[tuple[int, int]]:
    rng = random.Random(1)
    out = {(0x0A000000, 8)}
    while len(out) < n:
        plen = rng.choice((8, 16, 24, 32))
        out.add((rng.getrandbits(32) & (((1 << plen) - 1) << (32 - plen)), plen))
    return sorted(out)


def frames() -> list[bytes]:
    return [ipv4_frame(64, 0x0B000001 + f, 0x0A000001, 1000 + f) for f in range(FLOWS)]


# ---------------------------------------------------------------- packets
def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def in_process(n: int) -> tuple[float, float]:
    """(packets per second, packets per CPU second)."""
    sw = Switch(compile_file(PROGRAM))
    t = sw.tables["BenchIngress.routing_v4"]
    for i, (prefix, plen) in enumerate(prefixes()):
        t.add([Lpm(prefix, plen)], "BenchIngress.forward", (i + 1, 0x0B0000000001, 2))
    fs = frames()
    assert sw.process(1, fs[0]), "the benchmark packet was dropped"
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(n):
        sw.process(1, fs[i % FLOWS])
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def lpm_updates(info: p4runtime_pb2.P4Info) -> list[p4runtime_pb2.Update]:  # type: ignore[name-defined]
    table = next(t for t in info.tables if t.preamble.name.endswith("routing_v4"))
    action = next(a for a in info.actions if a.preamble.name.endswith(".forward"))
    out = []
    for i, (prefix, plen) in enumerate(prefixes()):
        u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
        e = u.entity.table_entry
        e.table_id = table.preamble.id
        m = e.match.add(field_id=table.match_fields[0].id)
        m.lpm.value = prefix.to_bytes(4, "big")
        m.lpm.prefix_len = plen
        e.action.action.action_id = action.preamble.id
        for p, v in zip(action.params, (i + 1, 0x0B0000000001, 2), strict=True):
            e.action.action.params.add(param_id=p.id, value=v.to_bytes((p.bitwidth + 7) // 8))
        out.append(u)
    return out


def process_replay(n: int, workdir: Path) -> tuple[float, float]:
    """(packets per second, packets per CPU second of the switch process)."""
    compiled = compile_file(PROGRAM)
    info = p4info_for(compiled)
    config = workdir / "prog.json"
    config.write_bytes(make_device_config(PROGRAM, [], {}))
    fs = frames()
    w = PcapWriter(workdir / "p1_in.pcap")
    for i in range(n):
        w.write(fs[i % FLOWS], ts_ns=1_000_000_000 + i * 1000)
    w.close()
    spec = SwitchSpec(
        config=config,
        ports=((1, str(workdir / "p1")), (2, str(workdir / "p2"))),
        cpu_port=None,
        args=("--use-files", "3"),
    )
    with SwitchProcess(spec) as sp:
        sp.wait_ready(timeout=60)
        stub, requests, channel, _stream = prb.connect(sp.grpc_addr)
        req = p4runtime_pb2.WriteRequest(device_id=0, updates=lpm_updates(info))
        req.election_id.low = 1
        stub.Write(req)
        requests.put(None)
        channel.close()
        c0 = _cpu_s(sp.pid)  # the replay starts 3 s after start-up: after this
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            m = re.search(
                r"Replayed (\d+) packets from the input files in ([\d.]+) s", sp.log_tail(50)
            )
            if m:
                assert int(m[1]) == n, m[0]
                return n / float(m[2]), n / max(_cpu_s(sp.pid) - c0, 1e-9)
            time.sleep(0.2)
    raise RuntimeError("the switch did not report the end of the replay")


# ---------------------------------------------------------------- writes
def process_writes(batch: int) -> float:
    with SwitchProcess(SwitchSpec(config=None, cpu_port=None)) as sp:
        sp.wait_ready(timeout=60)
        return prb.run(batch, 4000, address=sp.grpc_addr)


# ---------------------------------------------------------------- start-up
def start_up(workdir: Path) -> float:
    config = workdir / "prog.json"
    config.write_bytes(make_device_config(PROGRAM, [], {}))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "softswitch.cli",
            str(config),
            "--",
            "--grpc-server-addr",
            "127.0.0.1:0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("softswitch ready"):
                return time.perf_counter() - t0
        raise RuntimeError("softswitch ended before it was ready")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ssw-bench-") as tmp:
        work = Path(tmp)
        inproc = max(in_process(args.packets) for _ in range(args.runs))
        proc = max(process_replay(args.packets, work) for _ in range(args.runs))
        print(f"{'ipv4_lpm.p4, 64-byte frames':<44} {'packets/s':>11} {'per CPU-s':>11}")
        print(f"{'in-process (Switch.process)':<44} {inproc[0]:>11,.0f} {inproc[1]:>11,.0f}")
        print(
            f"{'softswitch process, --use-files':<44} {proc[0]:>11,.0f} {proc[1]:>11,.0f}"
            f"  ({proc[0] / inproc[0]:.0%} / {proc[1] / inproc[1]:.0%})"
        )
        wi = max(prb.run(1000, 4000) for _ in range(args.runs))
        wp = max(process_writes(1000) for _ in range(args.runs))
        print(f"{'P4Runtime Write, 4,000 LPM entries / 1,000':<44} {'entries/s':>11}")
        print(f"{'in-process server':<44} {wi:>11,.0f}")
        print(f"{'softswitch process':<44} {wp:>11,.0f}  ({wp / wi:.0%})")
        up = min(start_up(work) for _ in range(args.runs))
        print(f"{'start-up to ready (softswitch prog.json)':<44} {up:>10.2f} s", flush=True)


if __name__ == "__main__":
    threading.excepthook = lambda a: None  # grpc's stream thread at shutdown
    main()
