"""Generated fabrics: leaf-spine, k-ary fat-tree, and P parallel planes of either.

Conventions shared by every generator (docs/topology.md has the details):

* Names: `leaf1..L`, `spine1..S` (1-based); fat-tree `pod{p}-edge{i}`, `pod{p}-agg{i}`,
  `core{i}` (0-based, as in the fat-tree literature); hosts `h1..N`. With P > 1 planes,
  switch names get a `p{plane}-` prefix and each server `hN` has one NIC per plane,
  `hN-p{plane}`, attached to the same leaf position of every plane (`server: hN`).
* Addresses: the leaves of all planes are numbered g = 0, 1, ... (plane by plane) and
  leaf g owns 10.(g div 256).(g mod 256).0/24; its hosts are .1, .2, ... in port order.
* Ports: a leaf's hosts on 1..H then its uplinks; an upper switch's downlinks first; port
  255 (the CPU port) is skipped.
* Device ids 1..N in switch order (leaves first); P4Runtime addresses 127.0.0.1:50001+i
  when every switch fits below port 65536, otherwise no address at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import DEFAULT_DELAY_NS, HostNode, Link, SwitchNode, Topology, TopologyError
from .units import format_rate
from .validate import CPU_PORT, MAX_PORT

__all__ = ["GRPC_BASE_PORT", "fat_tree", "leaf_spine"]

GRPC_BASE_PORT = 50001
MAX_HOSTS_PER_LEAF = 254


def port_number(i: int) -> int:
    """The i-th port (0-based) of a switch: 1, 2, ..., skipping the CPU port."""
    p = i + 1
    if p >= CPU_PORT:
        p += 1
    if p > MAX_PORT:
        raise TopologyError(f"a switch would need more than {MAX_PORT - 1} ports")
    return p


@dataclass
class _Builder:
    """Collects one fabric; switches are numbered in the order they are added."""

    name: str
    planes: int
    switches: list[SwitchNode] = field(default_factory=list)
    hosts: list[HostNode] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    leaves: int = 0
    leaves_per_plane: int = 1
    ports_used: dict[str, int] = field(default_factory=dict)

    def sw_name(self, plane: int, base: str) -> str:
        return f"p{plane}-{base}" if self.planes > 1 else base

    def add_switch(self, name: str, role: str, plane: int, subnets: tuple[str, ...] = ()) -> None:
        self.switches.append(
            SwitchNode(name, role, len(self.switches) + 1, None, plane, "", subnets)
        )

    def next_port(self, switch: str) -> int:
        i = self.ports_used.get(switch, 0)
        self.ports_used[switch] = i + 1
        return port_number(i)

    def add_leaf(self, name: str, role: str, plane: int, hosts: int, rate: int, delay: int) -> None:
        if hosts > MAX_HOSTS_PER_LEAF:
            raise TopologyError(f"at most {MAX_HOSTS_PER_LEAF} hosts per leaf, got {hosts}")
        g = self.leaves
        self.leaves += 1
        if g >= 65536:
            raise TopologyError("more than 65536 leaves do not fit in 10.0.0.0/8 as /24s")
        net = f"10.{g >> 8}.{g & 255}"
        self.add_switch(name, role, plane, (f"{net}.0/24",))
        for j in range(hosts):
            server = f"h{(g % self.leaves_per_plane) * hosts + j + 1}"
            nic = f"{server}-p{plane}" if self.planes > 1 else server
            ip = f"{net}.{j + 1}"
            mac = f"06:00:0a:{g >> 8:02x}:{g & 255:02x}:{j + 1:02x}"
            port = self.next_port(name)
            self.hosts.append(HostNode(nic, ip, mac, name, port, plane, server, rate, delay))

    def connect(self, a: str, b: str, rate: int, delay: int) -> None:
        self.links.append(Link(a, self.next_port(a), b, self.next_port(b), rate, delay))

    def build(self, base_port: int) -> Topology:
        if base_port + len(self.switches) - 1 <= 65535:
            self.switches = [
                SwitchNode(
                    s.name,
                    s.role,
                    s.device_id,
                    f"127.0.0.1:{base_port + i}",
                    s.plane,
                    s.router_mac,
                    s.subnets,
                )
                for i, s in enumerate(self.switches)
            ]
        return Topology(self.name, tuple(self.switches), tuple(self.hosts), tuple(self.links))


def _positive(value: int, what: str) -> None:
    if not isinstance(value, int) or value < 1:
        raise TopologyError(f"{what} must be a positive integer, got {value!r}")


def leaf_spine(
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    *,
    oversubscription: float = 1.0,
    planes: int = 1,
    host_rate_bps: int = 100 * 10**9,
    delay_ns: int = DEFAULT_DELAY_NS,
    name: str | None = None,
    grpc_base_port: int = GRPC_BASE_PORT,
) -> Topology:
    """A two-tier Clos: every leaf linked to every spine. Hosts attach at `host_rate_bps`;
    each uplink runs at hosts_per_leaf * host_rate / (spines * oversubscription), so the
    leaf's downlink capacity is `oversubscription` times its uplink capacity."""
    _positive(leaves, "leaves")
    _positive(spines, "spines")
    _positive(hosts_per_leaf, "hosts per leaf")
    _positive(planes, "planes")
    if not oversubscription > 0:
        raise TopologyError(f"oversubscription must be positive, got {oversubscription!r}")
    uplink = round(hosts_per_leaf * host_rate_bps / (spines * oversubscription))
    if uplink <= 0:
        raise TopologyError("the uplink rate would be zero")
    if name is None:
        name = f"leaf-spine-{leaves}x{spines}" + (f"-{planes}planes" if planes > 1 else "")
    b = _Builder(name, planes, leaves_per_plane=leaves)
    for plane in range(planes):
        leaf_names = [b.sw_name(plane, f"leaf{i + 1}") for i in range(leaves)]
        spine_names = [b.sw_name(plane, f"spine{j + 1}") for j in range(spines)]
        for leaf in leaf_names:
            b.add_leaf(leaf, "leaf", plane, hosts_per_leaf, host_rate_bps, delay_ns)
        for spine in spine_names:
            b.add_switch(spine, "spine", plane)
        for leaf in leaf_names:
            for spine in spine_names:
                b.connect(leaf, spine, uplink, delay_ns)
    return b.build(grpc_base_port)


def fat_tree(
    k: int,
    *,
    planes: int = 1,
    rate_bps: int = 100 * 10**9,
    delay_ns: int = DEFAULT_DELAY_NS,
    name: str | None = None,
    grpc_base_port: int = GRPC_BASE_PORT,
) -> Topology:
    """A k-ary fat-tree (k even): k pods of k/2 edge and k/2 aggregation switches,
    (k/2)^2 cores, k/2 hosts per edge switch (k^3/4 hosts), every link at `rate_bps`.
    Aggregation switch i of every pod links to cores i*k/2 .. i*k/2 + k/2 - 1."""
    if not isinstance(k, int) or k < 2 or k % 2:
        raise TopologyError(f"k must be an even integer >= 2, got {k!r}")
    _positive(planes, "planes")
    half = k // 2
    if name is None:
        name = f"fat-tree-k{k}" + (f"-{planes}planes" if planes > 1 else "")
    b = _Builder(name, planes, leaves_per_plane=k * half)
    rate = rate_bps
    for plane in range(planes):
        edge = [[b.sw_name(plane, f"pod{p}-edge{i}") for i in range(half)] for p in range(k)]
        agg = [[b.sw_name(plane, f"pod{p}-agg{i}") for i in range(half)] for p in range(k)]
        core = [b.sw_name(plane, f"core{c}") for c in range(half * half)]
        for p in range(k):
            for e in edge[p]:
                b.add_leaf(e, "edge", plane, half, rate, delay_ns)
        for p in range(k):
            for a in agg[p]:
                b.add_switch(a, "agg", plane)
        for c in core:
            b.add_switch(c, "core", plane)
        for p in range(k):
            for e in edge[p]:
                for a in agg[p]:
                    b.connect(e, a, rate, delay_ns)
        for p in range(k):
            for i, a in enumerate(agg[p]):
                for m in range(half):
                    b.connect(a, core[i * half + m], rate, delay_ns)
    return b.build(grpc_base_port)


def describe(topo: Topology) -> str:
    """One line: switches by role, hosts, links and the link rates in use."""
    roles: dict[str, int] = {}
    for s in topo.switches:
        roles[s.role] = roles.get(s.role, 0) + 1
    rates = sorted({lk.rate_bps for lk in topo.all_links()})
    return (
        f"{topo.name}: {len(topo.switches)} switches ("
        + ", ".join(f"{n} {r}" for r, n in roles.items())
        + f"), {len(topo.hosts)} hosts, {len(topo.links)} switch links, "
        f"{len(topo.planes)} plane{'s' if len(topo.planes) != 1 else ''}, rates "
        + "/".join(format_rate(r) for r in rates)
    )
