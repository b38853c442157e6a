"""Cables and hosts of a BMv2 fabric on one machine: veth pairs and network namespaces
(root only; `ip` from iproute2, `ethtool` when present).

`simple_switch_grpc` reads and writes Linux interfaces, not UDP sockets, so every cable of
the topology becomes a veth pair:

- switch to switch: `<sw>-<port>` on each side (`leaf1-3` <-> `spine1-1`);
- switch to host: `<sw>-<port>` on the switch's side, `eth0` in the host's network
  namespace (`sf-<host>`), with the host's IP (the prefix length of its switch's subnet),
  MAC and a default route out of `eth0`: the host asks for every address by ARP and its
  switch's ARP responder answers with the router MAC;
- switch to INT collector: `<sw>-<port>` at the collector port, `<sw>-r` on the other
  side, where the controller reads the report frames (`FrameTap`).

A name longer than Linux's 15 characters keeps its port and gets a short hash of the node
name instead (`fabtree-pod3-edge1-4` -> `fabt3c9a1f-4`). A run may prefix every name with a
`tag` (tests running side by side).

`VethNet.create()` records every name it makes in a JSON file (with the PID of the process
that made them) before making it; `remove()` deletes them (deleting one end of a veth pair
deletes both; deleting a namespace deletes what is inside it). A record left by a process
that died without removing its cables is cleaned up by the next `create()` with the same
record file. Names that exist but are not in such a record are never touched: `create()`
refuses with a message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import select
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..targets import in_netns
from ..topology import host_prefix

__all__ = [
    "PACKET_OUTGOING",
    "FrameTap",
    "HostNs",
    "VethError",
    "VethNet",
    "VethPlan",
    "host_socket",
    "ifname",
    "plan_veths",
    "remove_recorded",
]

log = logging.getLogger("controller.fabric.veth")

MAX_IFNAME = 15
OFFLOADS = ("rx", "tx", "sg", "tso", "gso", "gro")
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def ifname(tag: str, node: str, suffix: str) -> str:
    """`<tag><node>-<suffix>`, or with a hash of the node name when that is too long."""
    name = f"{tag}{node}-{suffix}"
    if len(name) <= MAX_IFNAME:
        return name
    digest = hashlib.sha1(node.encode()).hexdigest()[:6]
    room = MAX_IFNAME - len(tag) - len(digest) - 1 - len(suffix)
    if room < 0:
        raise ValueError(f"interface name for {node} port {suffix}: tag {tag!r} is too long")
    return f"{tag}{node[:room]}{digest}-{suffix}"


@dataclass(frozen=True, slots=True)
class HostNs:
    """A host as a network namespace with one interface (`eth0`) cabled to its switch."""

    name: str
    netns: str
    ip: str
    prefix_len: int
    mac: str
    switch_iface: str  # the switch's end, in the root namespace
    iface: str = "eth0"


@dataclass(frozen=True, slots=True)
class VethPlan:
    """Every interface and namespace a fabric needs."""

    switch_ports: dict[str, tuple[tuple[int, str], ...]]  # switch -> (port, interface)
    pairs: tuple[tuple[str, str], ...]  # switch-to-switch and collector pairs (root ns)
    hosts: dict[str, HostNs]
    collector_ifaces: dict[str, str] = field(default_factory=dict)  # switch -> tap side


def plan_veths(topology: Any, collector_ports: dict[str, int], tag: str = "") -> VethPlan:
    """The veth pairs and namespaces of `topology`; `collector_ports[switch]` is the port
    whose far end is the INT collector."""
    ports: dict[str, list[tuple[int, str]]] = {s.name: [] for s in topology.switches}
    pairs: list[tuple[str, str]] = []
    for lk in topology.links:
        a, b = ifname(tag, lk.a, str(lk.a_port)), ifname(tag, lk.b, str(lk.b_port))
        ports[lk.a].append((lk.a_port, a))
        ports[lk.b].append((lk.b_port, b))
        pairs.append((a, b))
    hosts: dict[str, HostNs] = {}
    for h in topology.hosts:
        sw_if = ifname(tag, h.switch, str(h.port))
        ports[h.switch].append((h.port, sw_if))
        subnets = topology.switch(h.switch).subnets
        hosts[h.name] = HostNs(
            h.name, f"sf-{tag}{h.name}", h.ip, host_prefix(h.ip, subnets), h.mac, sw_if
        )
    taps: dict[str, str] = {}
    for name, port in collector_ports.items():
        sw_if, tap = ifname(tag, name, str(port)), ifname(tag, name, "r")
        ports[name].append((port, sw_if))
        pairs.append((sw_if, tap))
        taps[name] = tap
    names = [n for p in pairs for n in p] + [h.switch_iface for h in hosts.values()]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"interface names clash: {', '.join(sorted(dup))} (rename nodes)")
    return VethPlan({k: tuple(sorted(v)) for k, v in ports.items()}, tuple(pairs), hosts, taps)


class VethError(RuntimeError):
    """An `ip` command failed, or a name is taken by something this run did not make."""


def _ip(*args: str, netns: str | None = None, check: bool = True) -> str:
    cmd = ["ip", *(["-n", netns] if netns else []), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise VethError(f"{' '.join(cmd)}: {done.stderr.strip() or f'exit {done.returncode}'}")
    return done.stdout


def _exists(iface: str) -> bool:
    return Path("/sys/class/net", iface).exists()


def _netns_exists(name: str) -> bool:
    return Path("/var/run/netns", name).exists()


def _quiet_iface(iface: str, netns: str | None = None) -> None:
    """No IPv6 chatter (router solicitations, MLD), no offloads: whole frames both ways,
    with their checksums computed (a user-space switch forwards what it reads)."""
    pre = ["ip", "netns", "exec", netns] if netns else []
    if shutil.which("sysctl"):
        subprocess.run(
            [*pre, "sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1"],
            capture_output=True,
            timeout=30,
        )
    if shutil.which("ethtool"):
        subprocess.run(
            [*pre, "ethtool", "-K", iface, *[x for f in OFFLOADS for x in (f, "off")]],
            capture_output=True,
            timeout=30,
        )


class VethNet:
    """Creates and removes a `VethPlan`'s interfaces and namespaces (see the module doc)."""

    def __init__(self, plan: VethPlan, record: Path) -> None:
        self.plan = plan
        self.record = record
        self.ifaces: list[str] = []  # root-namespace ends created (one per pair is enough)
        self.netns: list[str] = []

    def _save(self) -> None:
        self.record.parent.mkdir(parents=True, exist_ok=True)
        data = {"pid": os.getpid(), "ifaces": self.ifaces, "netns": self.netns}
        self.record.write_text(json.dumps(data) + "\n")

    def _clean_leftovers(self) -> None:
        removed = remove_recorded(self.record)
        if removed:
            log.warning(
                "removed %d interfaces and namespaces a fabric that ended without stopping "
                "left: %s",
                len(removed),
                ", ".join(removed),
            )

    def create(self) -> None:
        """Make every pair and namespace, all up; VethError (after removing what it made)
        if a name is taken or a command fails."""
        self._clean_leftovers()
        p = self.plan
        taken = [n for pair in p.pairs for n in pair if _exists(n)]
        taken += [h.switch_iface for h in p.hosts.values() if _exists(h.switch_iface)]
        taken += [h.netns for h in p.hosts.values() if _netns_exists(h.netns)]
        if taken:
            raise VethError(
                f"{', '.join(taken[:5])}{' ...' if len(taken) > 5 else ''} already exist, made "
                "by something else than this fabric (another fabric's cables?); remove them "
                "or pick another tag"
            )
        try:
            for a, b in p.pairs:
                self.ifaces.append(a)
                self._save()
                _ip("link", "add", a, "type", "veth", "peer", "name", b)
                for end in (a, b):
                    _quiet_iface(end)
                    _ip("link", "set", end, "up")
            for h in p.hosts.values():
                self._host(h)
        except BaseException:
            self.remove()
            raise

    def _host(self, h: HostNs) -> None:
        self.netns.append(h.netns)
        self._save()
        _ip("netns", "add", h.netns)
        self.ifaces.append(h.switch_iface)
        self._save()
        _ip(
            "link", "add", h.switch_iface, "type", "veth", "peer", "name", h.iface, "netns", h.netns
        )
        _quiet_iface(h.switch_iface)
        _ip("link", "set", h.switch_iface, "up")
        if shutil.which("sysctl"):
            subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    h.netns,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                ],
                capture_output=True,
                timeout=30,
            )
        _quiet_iface(h.iface, h.netns)
        _ip("link", "set", h.iface, "address", h.mac, netns=h.netns)
        _ip("addr", "add", f"{h.ip}/{h.prefix_len}", "dev", h.iface, netns=h.netns)
        _ip("link", "set", "lo", "up", netns=h.netns)
        _ip("link", "set", h.iface, "up", netns=h.netns)
        _ip("route", "replace", "default", "dev", h.iface, netns=h.netns)

    def remove(self) -> list[str]:
        """Delete everything this object made; what could not be deleted (empty: all gone)."""
        left = _remove(self.ifaces, self.netns)
        self.ifaces, self.netns = [], []
        if not left:
            self.record.unlink(missing_ok=True)
        return left


def remove_recorded(record: Path) -> list[str]:
    """Remove the interfaces and namespaces `record` names, left by a run that ended without
    removing them (VethError while that run still runs); the names removed. The
    record goes (what could not be removed is logged)."""
    try:
        old = json.loads(record.read_text())
    except (OSError, ValueError):
        return []
    pid = int(old.get("pid", 0))
    if pid and pid != os.getpid() and Path(f"/proc/{pid}").exists():
        raise VethError(f"{record}: the fabric of process {pid} still runs here; stop it first")
    ifaces, netns = old.get("ifaces", ()), old.get("netns", ())
    there = [f"netns {n}" for n in netns if _netns_exists(n)]
    there += [i for i in ifaces if _exists(i)]
    left = _remove(ifaces, netns)
    if left:
        log.warning("could not remove: %s", ", ".join(left))
    record.unlink(missing_ok=True)
    return [n for n in there if n not in left]


def _remove(ifaces: Iterable[str], netns: Iterable[str]) -> list[str]:
    left: list[str] = []
    for ns in netns:
        if _netns_exists(ns):
            _ip("netns", "del", ns, check=False)
            if _netns_exists(ns):
                left.append(f"netns {ns}")
    for iface in ifaces:
        if _exists(iface):
            _ip("link", "del", iface, check=False)
            if _exists(iface):
                left.append(iface)
    return left


class FrameTap:
    """Frames arriving on interfaces (AF_PACKET), each handed to `on_frame`, on a thread:
    how the controller reads INT reports from a BMv2 switch's collector cable."""

    def __init__(self, ifaces: Iterable[str], on_frame: Callable[[bytes], object]) -> None:
        self.on_frame = on_frame
        self.socks: list[socket.socket] = []
        for iface in ifaces:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((iface, 0))
            self.socks.append(s)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="frame-tap", daemon=True)

    def start(self) -> FrameTap:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set() and self.socks:
            ready, _, _ = select.select(self.socks, [], [], 0.2)
            for s in ready:
                try:
                    data, addr = s.recvfrom(65535)
                except OSError:
                    continue
                if addr[2] != PACKET_OUTGOING:
                    self.on_frame(data)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for s in self.socks:
            s.close()


def host_socket(netns: str, iface: str = "eth0") -> socket.socket:
    """An AF_PACKET socket on `iface` inside network namespace `netns`: send whole frames
    as that host, receive what reaches it."""

    def make() -> socket.socket:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((iface, 0))
        return s

    return in_netns(netns, make)
