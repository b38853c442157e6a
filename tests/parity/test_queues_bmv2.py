"""The traffic manager against BMv2 `simple_switch`, packet departure times included.

One small program (port 1 to port 2, the priority from the EtherType's low bits, the
queueing delay written into the source MAC), frames replayed from pcap files
(`--use-files`) and the departure times read from the output file. The same frames, the
same queue settings and the same expectations run on softswitch `--queueing bmv2` and, when
`p4c-bm2-ss` and `simple_switch` are on PATH, on BMv2 (simple_switch 1.15.5 was measured:
each (port, priority) queue is a rate limiter of its own; a packet's departure time is
fixed when it is queued, so a rate change leaves the queued packets at their old times;
`set_queue_depth` per priority drops what does not fit). Times are wall-clock, so the
checks allow a few milliseconds of scheduling noise around gaps of 50 ms and more.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from controller.targets import softswitch_command
from controller.targets.process import free_port
from softswitch.ports import PcapWriter, read_pcap

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control V(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        sm.priority = hdr.ethernet.ether_type[2:0];
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { hdr.ethernet.src = (bit<48>)sm.deq_timedelta; }
}
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""

SLACK_MS = 15.0  # scheduling noise allowed around a departure time
WAIT_S = 2  # --use-files: seconds before the replay, for the queue commands

TARGETS = ["softswitch", "bmv2"]


def _have_bmv2() -> bool:
    return shutil.which("p4c-bm2-ss") is not None and shutil.which("simple_switch") is not None


def frame(priority: int, seq: int) -> bytes:
    """60 bytes: the EtherType's low bits are the priority, the byte after it a number."""
    return bytes(12) + bytes([0, priority, seq]) + bytes(45)


def write_inputs(workdir: Path, bursts: list[tuple[float, list[bytes]]]) -> None:
    """p1_in.pcap: each burst's frames stamped with its time (seconds after the first)."""
    t0 = time.time_ns()
    w = PcapWriter(workdir / "p1_in.pcap")
    for at, frames in bursts:
        for f in frames:
            w.write(f, ts_ns=t0 + int(at * 1e9))
    w.close()
    PcapWriter(workdir / "p2_in.pcap").close()  # simple_switch wants every input file


@contextmanager
def _running(cmd: list[str], workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = (workdir / "switch.log").open("wb")
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # the switch this test started, by its PID
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def run_bmv2(workdir: Path, commands: list[str], later: list[tuple[float, str]]) -> None:
    """Compile, start simple_switch on the files, set the queues before the replay and
    send each of `later`'s commands that many seconds after the replay starts."""
    (workdir / "tm.p4").write_text(PROGRAM)
    subprocess.run(
        ["p4c-bm2-ss", "-o", "tm.json", "tm.p4"], cwd=workdir, check=True, capture_output=True
    )
    thrift = free_port()
    cmd = ["simple_switch", "--use-files", str(WAIT_S), "-i", "1@p1", "-i", "2@p2"]
    cmd += ["--thrift-port", str(thrift), "tm.json", "--", "--priority-queues", "2"]

    def cli(lines: list[str]) -> None:
        out = subprocess.run(
            ["simple_switch_CLI", "--thrift-port", str(thrift)],
            input="".join(f"{ln}\n" for ln in lines),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert "Could not connect" not in out.stdout, out.stdout

    with _running(cmd, workdir) as proc:
        start = time.monotonic()
        for _ in range(100):  # the Thrift server comes up within a second
            try:
                socket.create_connection(("127.0.0.1", thrift), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, (workdir / "switch.log").read_text()
                time.sleep(0.05)
        cli(commands)
        assert time.monotonic() - start < WAIT_S - 0.2, "the commands came after the replay"
        for at, line in later:
            time.sleep(max(0.0, start + WAIT_S + at - time.monotonic()))
            cli([line])
        time.sleep(max(0.0, start + WAIT_S + 3.0 - time.monotonic()))


def run_softswitch(workdir: Path, commands: list[str]) -> None:
    (workdir / "tm.p4").write_text(PROGRAM)
    cmd = [*softswitch_command(), "tm.p4", "--use-files", "0", "-i", "1@p1", "-i", "2@p2"]
    cmd += ["--priority-queues", "2", "--queueing", "bmv2"]
    for c in commands:
        cmd += ["--queue-command", c]
    cmd += ["--", "--grpc-server-addr", "127.0.0.1:0"]
    with _running(cmd, workdir) as proc:
        log = workdir / "switch.log"
        deadline = time.monotonic() + 120
        while b"Replayed " not in log.read_bytes():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        time.sleep(3.0)


def departures(workdir: Path) -> list[tuple[float, int, int]]:
    """(ms after the first departure, priority, number) of each frame out of port 2."""
    recs = list(read_pcap(workdir / "p2_out.pcap"))
    assert recs, (workdir / "switch.log").read_text()[-2000:]
    t0 = recs[0].ts_ns
    return [((r.ts_ns - t0) / 1e6, r.data[13], r.data[14]) for r in recs]


def run(
    target: str, workdir: Path, bursts: list[tuple[float, list[bytes]]], commands: list[str]
) -> list[tuple[float, int, int]]:
    if target == "bmv2" and not _have_bmv2():
        pytest.skip("p4c-bm2-ss / simple_switch (the p4lang BMv2 toolchain) are not on PATH")
    write_inputs(workdir, bursts)
    if target == "bmv2":
        run_bmv2(workdir, commands, [])
    else:
        run_softswitch(workdir, commands)
    return departures(workdir)


def assert_times(got: list[float], want: list[float]) -> None:
    assert len(got) == len(want), (got, want)
    assert all(abs(g - w) <= SLACK_MS for g, w in zip(got, want, strict=True)), (got, want)


@pytest.mark.parametrize("target", TARGETS)
def test_each_priority_queue_is_a_rate_limiter_of_its_own(target: str, tmp_path: Path) -> None:
    """20 packets/s on port 2 (both priorities): the two queues send 40 packets/s between
    them, a packet of each every 50 ms; one shared server would take 250 ms for six."""
    burst = [frame(p, i) for i in range(3) for p in (0, 1)]
    got = run(target, tmp_path, [(0.0, burst)], ["set_queue_rate 20 2"])
    assert sorted((p, i) for _, p, i in got) == sorted((p, i) for i in range(3) for p in (0, 1))
    for p in (0, 1):
        assert [i for _, q, i in got if q == p] == [0, 1, 2]  # each queue in order
        assert_times([t for t, q, _ in got if q == p], [0.0, 50.0, 100.0])


@pytest.mark.parametrize("target", TARGETS)
def test_queue_depth_per_priority_drops_what_does_not_fit(target: str, tmp_path: Path) -> None:
    """Depth 2 on (port 2, priority 1), the default (64) on priority 0, 10 packets/s: of
    six priority-1 packets at once two wait and the rest is dropped, except the first when
    it has left already: softswitch sends the head of an idle queue at once; on BMv2 it
    counts until the egress thread takes it, which a burst can beat: 2 or 3 are kept,
    depending on which thread runs first. Priority 0 keeps all."""
    burst = [frame(1, i) for i in range(6)] + [frame(0, i) for i in range(6)]
    commands = ["set_queue_rate 10 2", "set_queue_depth 2 2 1"]
    got = run(target, tmp_path, [(0.0, burst)], commands)
    assert [i for _, p, i in got if p == 0] == list(range(6))
    kept = [i for _, p, i in got if p == 1]
    assert kept in ([0, 1], [0, 1, 2]), kept
    assert_times([t for t, p, _ in got if p == 1], [100.0 * k for k in range(len(kept))])


def test_rate_change_leaves_queued_packets_at_their_times_on_bmv2(tmp_path: Path) -> None:
    """4 packets/s and nine packets at once (simple_switch replays the files without their
    gaps), then 1,000 packets/s 0.5 s into the replay: every packet was queued before the
    change, so all keep their departure times, 250 ms apart, where a shared server would
    send the last five at once. softswitch `--queueing bmv2` does the same
    (tests/v1model/test_tm.py: a rate change reaches only later packets); its command line
    sets rates only before the replay."""
    if not _have_bmv2():
        pytest.skip("p4c-bm2-ss / simple_switch (the p4lang BMv2 toolchain) are not on PATH")
    write_inputs(tmp_path, [(0.0, [frame(0, i) for i in range(9)])])
    run_bmv2(tmp_path, ["set_queue_rate 4 2"], [(0.5, "set_queue_rate 1000 2")])
    got = departures(tmp_path)
    assert [i for _, _, i in got] == list(range(9))
    assert_times([t for t, _, _ in got], [250.0 * k for k in range(9)])
