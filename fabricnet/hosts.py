"""Mininet hosts for a P4 fabric: address and MAC from the topology file, offloads off.

A user-space switch reads and writes whole frames: the veth end of a host must therefore
compute its own checksums and send no segmentation-offload super-frames, so every host
interface gets `ethtool -K IFACE rx off tx off sg off tso off gso off gro off`. IPv6 is
turned off (router solicitations and MLD reports would only load the software switches).
The default route points at the leaf's gateway address when the topology gives one, else
straight out of the access link (every destination is resolved by ARP); either way the
switch's ARP responder answers with its router MAC, so hosts need no static ARP entries.
"""

from __future__ import annotations

import shutil
from typing import Any

from .mn import ensure_mininet

ensure_mininet()

from mininet.node import Host, Node  # noqa: E402

__all__ = ["OFFLOADS", "FabricHost", "disable_offloads", "offloads_of"]

OFFLOADS = ("rx", "tx", "sg", "tso", "gso", "gro")


class FabricHost(Host):
    """A host in its own network namespace, configured for a user-space switch."""

    def config(  # type: ignore[override]
        self, gateway: str | None = None, **params: Any
    ) -> dict[str, Any]:
        result = super().config(**params)
        self.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
        self.cmd("sysctl -qw net.ipv6.conf.default.disable_ipv6=1")
        for intf in self.intfList():
            if intf.name == "lo":
                continue
            disable_offloads(self, intf.name)
        iface = self.defaultIntf()
        if gateway:
            self.cmd(f"ip route replace default via {gateway} dev {iface}")
        else:
            # every destination is asked for by ARP on the access link; the leaf's ARP
            # responder answers with its router MAC
            self.cmd(f"ip route replace default dev {iface}")
        return result


def disable_offloads(node: Node, iface: str) -> None:
    """Turn the interface's checksum and segmentation offloads off, inside the node's
    namespace (ethtool)."""
    if shutil.which("ethtool") is None:
        raise RuntimeError("ethtool not found on PATH (Debian: apt-get install ethtool)")
    out = node.cmd("ethtool -K", iface, *[f"{f} off" for f in OFFLOADS], "2>&1; echo rc=$?")
    if "rc=0" not in out:
        raise RuntimeError(f"{node.name}: ethtool -K {iface} failed: {out.strip()}")


def offloads_of(node: Node, iface: str) -> dict[str, str]:
    """{feature: on/off} as `ethtool -k` reports them (for checks and tests)."""
    names = {
        "rx": "rx-checksumming",
        "tx": "tx-checksumming",
        "sg": "scatter-gather",
        "tso": "tcp-segmentation-offload",
        "gso": "generic-segmentation-offload",
        "gro": "generic-receive-offload",
    }
    text = node.cmd("ethtool -k", iface)
    states: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        for short, long in names.items():
            if key.strip() == long:
                states[short] = value.split()[0] if value.split() else ""
    return states
