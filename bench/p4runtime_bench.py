"""P4Runtime write throughput of softswitch's server: table entries per second, in
WriteRequests of 1 and of 1,000 updates, over gRPC on loopback (client and server on
this machine). Run: `python -m bench.p4runtime_bench [--entries N]`.
"""

from __future__ import annotations

import argparse
import queue
import threading
import time
from pathlib import Path

import grpc

from p4rt_proto import p4info_pb2, p4runtime_pb2, p4runtime_pb2_grpc
from softswitch.compiler import compile_file
from softswitch.device_config import make_device_config
from softswitch.p4info import p4info_for
from softswitch.p4runtime.server import P4RuntimeServer
from softswitch.runtime import SwitchRuntime

PROGRAM = Path(__file__).parent / "programs" / "ipv4_lpm.p4"


def connect(address: str) -> tuple[object, queue.Queue, object, object]:
    channel = grpc.insecure_channel(address)
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    requests: queue.Queue = queue.Queue()
    arb = p4runtime_pb2.StreamMessageRequest()
    arb.arbitration.device_id = 0
    arb.arbitration.election_id.low = 1
    requests.put(arb)
    stream = stub.StreamChannel(iter(requests.get, None))
    next(stream)  # the arbitration answer; keep `stream` alive or the session ends
    return stub, requests, channel, stream


def entries(info: p4info_pb2.P4Info, n: int) -> list[p4runtime_pb2.Update]:
    table = next(t for t in info.tables if t.preamble.name.endswith("routing_v4"))
    action = next(a for a in info.actions if a.preamble.name.endswith(".forward"))
    out = []
    for i in range(n):
        u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
        e = u.entity.table_entry
        e.table_id = table.preamble.id
        m = e.match.add()
        m.field_id = table.match_fields[0].id
        m.lpm.value = (0x0A000000 + i * 256).to_bytes(4, "big").lstrip(b"\0") or b"\0"
        m.lpm.prefix_len = 24
        e.action.action.action_id = action.preamble.id
        for p, v in zip(action.params, (i + 1, 0x0B0000000001, i % 8 + 1), strict=True):
            prm = e.action.action.params.add()
            prm.param_id = p.id
            prm.value = v.to_bytes((p.bitwidth + 7) // 8, "big").lstrip(b"\0") or b"\0"
        out.append(u)
    return out


def softswitch_pipeline() -> tuple[p4info_pb2.P4Info, bytes]:
    """The P4Info and device config of bench/programs/ipv4_lpm.p4 for softswitch."""
    return p4info_for(compile_file(PROGRAM)), make_device_config(PROGRAM, [], {})


def run(
    batch: int,
    n: int,
    address: str | None = None,
    pipeline: tuple[p4info_pb2.P4Info, bytes] | None = None,
    rounds: int = 1,
) -> float:
    """Entries/s written in WriteRequests of `batch` updates, to a server in this process
    or, given its `address`, to a switch process that runs no program yet (`pipeline`:
    the P4Info and device config to push, softswitch's by default). `n` entries are
    inserted per round and deleted after it; a first round warms up; the figure is the
    best of `rounds` rounds."""
    server = None
    if address is None:
        server = P4RuntimeServer(SwitchRuntime(), address="127.0.0.1:0")
        address = f"127.0.0.1:{server.start()}"
    try:
        stub, requests, channel, _stream = connect(address)
        info, device_config = pipeline or softswitch_pipeline()
        # the table holds 4,096 entries: write in rounds, deleting between rounds
        size = next(t.size for t in info.tables if t.preamble.name.endswith("routing_v4"))
        ups = entries(info, min(n, size))
        set_cfg = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=0)
        set_cfg.election_id.low = 1
        set_cfg.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        set_cfg.config.p4info.CopyFrom(info)
        set_cfg.config.p4_device_config = device_config
        stub.SetForwardingPipelineConfig(set_cfg)
        best = 0.0
        for r in range(rounds + 1):  # round 0 warms up and is not counted
            for kind in (p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.DELETE):
                for u in ups:
                    u.type = kind
                t0 = time.perf_counter()
                for i in range(0, len(ups), batch):
                    req = p4runtime_pb2.WriteRequest(device_id=0, updates=ups[i : i + batch])
                    req.election_id.low = 1
                    stub.Write(req)
                if kind == p4runtime_pb2.Update.INSERT and r > 0:
                    best = max(best, len(ups) / (time.perf_counter() - t0))
        requests.put(None)
        channel.close()  # type: ignore[attr-defined]
        return best
    finally:
        if server is not None:
            server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=4000, help="entries per round")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{'P4Runtime Write (table entries)':<36} {'entries/s':>10}")
    for batch in (1, 1000):
        n = min(args.entries, 1000) if batch == 1 else args.entries
        rate = run(batch, n, rounds=args.rounds)
        print(f"{f'batches of {batch}':<36} {rate:>10,.0f}", flush=True)


if __name__ == "__main__":
    threading.excepthook = lambda a: None  # grpc's stream thread at shutdown
    main()
