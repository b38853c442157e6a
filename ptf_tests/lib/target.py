"""The switch under test, as the tests see it: where its P4Runtime server is, which
pipeline to push, and how (if at all) its egress queues can be throttled.

run.py passes everything through PTF's test parameters:

    target='softswitch'|'bmv2'; p4info='...'; device_config='...'; define_p4='...';
    grpc_addr='127.0.0.1:9559'; device_id=0; cpu_port=255; thrift_port=9090

With the `softswitch_inproc` platform the switch lives in the PTF process
(`ptf.config["softswitch"]`): its address and queue control come from there.
"""

from __future__ import annotations

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

__all__ = ["Bmv2Queues", "QueueControl", "Target"]


class QueueControl(Protocol):
    """Egress queue knobs a test needs to build congestion deterministically."""

    def set_rate(self, port: int, pps: float | None) -> None:
        """Serve `port` at `pps` packets/s; None: as fast as the target can."""

    def wait_queued(self, port: int, count: int, timeout: float) -> bool:
        """Wait until `port` holds `count` packets; False if it did not in time."""

    def wait_drained(self, ports: list[int], timeout: float) -> bool:
        """Wait until the queues of `ports` are empty."""


class Bmv2Queues:
    """`simple_switch_CLI set_queue_rate` through the Thrift port. BMv2 does not expose
    queue occupancy, so the waits are short fixed pauses (bursts are queued within
    milliseconds; the throttled rates leave hundreds of milliseconds to spare)."""

    UNTHROTTLED_PPS = 1_000_000

    def __init__(self, thrift_port: int) -> None:
        self.thrift_port = thrift_port
        self.cli = shutil.which("simple_switch_CLI")

    def set_rate(self, port: int, pps: float | None) -> None:
        if self.cli is None:
            raise RuntimeError("simple_switch_CLI not found on PATH")
        rate = self.UNTHROTTLED_PPS if pps is None else max(1, int(pps))
        subprocess.run(
            [self.cli, "--thrift-port", str(self.thrift_port)],
            input=f"set_queue_rate {rate} {port}\n",
            text=True,
            check=True,
            capture_output=True,
            timeout=30,
        )

    def wait_queued(self, port: int, count: int, timeout: float) -> bool:
        time.sleep(min(timeout, 0.05))
        return True

    def wait_drained(self, ports: list[int], timeout: float) -> bool:
        time.sleep(min(timeout, 0.5))
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
            if name == "bmv2" and shutil.which("simple_switch_CLI"):
                queues = Bmv2Queues(int(testutils.test_param_get("thrift_port", 9090)))
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
