"""PTF platform `veth`: PTF's own AF_PACKET dataplane on interfaces run.py created.

    ptf --platform-dir ptf_tests/platforms --platform veth --platform-args "1=ptf1,2=ptf2"

Each `PORT=IFACE` pair maps PTF port (0, PORT) to interface IFACE (the tester's end of a
veth pair whose other end is switch port PORT).
"""

from __future__ import annotations

from typing import Any


def platform_config_update(config: dict[str, Any]) -> None:
    spec = config.get("platform_args") or ""
    pairs = (kv.split("=", 1) for kv in spec.split(",") if "=" in kv)
    config["port_map"] = {(0, int(port)): iface for port, iface in pairs}
