"""A chassis file: the devices one `softswitch --chassis FILE` process serves.

    {"devices": [
      {"device_id": 1, "name": "leaf1", "cpu_port": 255,
       "ports": [[1, "udp:127.0.0.1:40001,127.0.0.1:40002"], [2, "veth3"]]},
      ...]}

Each device is a switch of its own (its own tables, queues and P4Runtime primary) behind
the process's one P4Runtime server, which picks it by the request's device id. `ports`
are the `-i PORT@IFACE` pairs of a one-switch process; `name` (default "device N") shows in
logs; `cpu_port` (default: the `--cpu-port` target option) is the device's CPU port.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ChassisDevice", "load_chassis"]


@dataclass(frozen=True, slots=True)
class ChassisDevice:
    device_id: int
    name: str
    ports: tuple[tuple[int, str], ...]
    cpu_port: int | None = None


def _device(i: int, d: object) -> ChassisDevice:
    where = f"device {i}"
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object")
    did = d.get("device_id")
    if not isinstance(did, int) or did < 0:
        raise ValueError(f"{where}: device_id must be a non-negative integer, not {did!r}")
    ports: list[tuple[int, str]] = []
    for p in d.get("ports", []):
        if (
            not isinstance(p, list)
            or len(p) != 2
            or not isinstance(p[0], int)
            or not 0 <= p[0] <= 510
            or not isinstance(p[1], str)
        ):
            raise ValueError(f"{where}: a port must be [PORT 0..510, IFACE], not {p!r}")
        ports.append((p[0], p[1]))
    if len({p for p, _ in ports}) != len(ports):
        raise ValueError(f"{where}: a port number appears twice")
    cpu = d.get("cpu_port")
    if cpu is not None and not isinstance(cpu, int):
        raise ValueError(f"{where}: cpu_port must be an integer")
    return ChassisDevice(did, str(d.get("name", f"device {did}")), tuple(ports), cpu)


def load_chassis(path: Path) -> list[ChassisDevice]:
    """The devices of a chassis file (OSError if unreadable, ValueError saying what is wrong)."""
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON: {e}") from None
    devices = data.get("devices") if isinstance(data, dict) else None
    if not isinstance(devices, list) or not devices:
        raise ValueError(f'{path}: expected {{"devices": [...]}} with at least one device')
    out = [_device(i, d) for i, d in enumerate(devices)]
    ids = [d.device_id for d in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: a device_id appears twice")
    return out
