"""PTF platform `softswitch_inproc`: softswitch runs inside the PTF process.

    ptf --platform-dir ptf_tests/platforms --platform softswitch_inproc \\
        --platform-args "ports=1-8;cpu_port=255;priority_queues=2;seed=1" --allow-user ...

Starts `SwitchRuntime` + `P4RuntimeServer` on 127.0.0.1:0 (ptf_tests/lib/inproc.py) and
maps PTF port (0, p) to switch port p through a socket pair; the tests find the switch
(its gRPC address and queue control) in `ptf.config["softswitch"]`. Needs no root.
"""

from __future__ import annotations

import atexit
from typing import Any

from ptf_tests.lib.inproc import InProcessDataPlanePort, InProcessSwitch


def _ports(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def platform_config_update(config: dict[str, Any]) -> None:
    args = dict(
        kv.split("=", 1) for kv in (config.get("platform_args") or "").split(";") if "=" in kv
    )
    switch = InProcessSwitch(
        device_id=int(args.get("device_id", 0)),
        cpu_port=int(args.get("cpu_port", 255)),
        priority_queues=int(args.get("priority_queues", 2)),
        seed=int(args.get("seed", 1)),
    )
    switch.start()
    atexit.register(switch.stop)
    config["softswitch"] = switch
    config["port_map"] = {(0, p): f"softswitch{p}" for p in _ports(args.get("ports", "1-8"))}
    config["dataplane"] = {"portclass": InProcessDataPlanePort}
