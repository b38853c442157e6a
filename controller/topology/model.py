"""The topology model: switches, hosts and the links between switches.

A host is one network interface: a server with one NIC per plane of a multi-plane fabric
is one `HostNode` per NIC, each with its own name, IP (in the subnet of the switch it is
attached to) and MAC, all carrying the same `server` name. A host's access link (its NIC
to a switch port) is described by the host itself (`rate_bps`, `delay_ns`, `loss`);
`Topology.links` holds only the links between switches, and `Topology.host_link(h)` gives
the access link as a `Link` whose `a` end is the host (port 0 is the NIC).

`Topology(...)` checks everything (see `controller.topology.validate`) and raises
`TopologyError` whose `path` names the offending field, e.g. `links[3].b_port`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import networkx as nx

from .units import mac_from_int

__all__ = [
    "DEFAULT_DELAY_NS",
    "DEFAULT_RATE_BPS",
    "HostNode",
    "Link",
    "SwitchNode",
    "Topology",
    "TopologyError",
    "host_prefix",
    "router_mac_for",
]

DEFAULT_RATE_BPS = 100 * 10**9
DEFAULT_DELAY_NS = 1_000
HOST_NIC_PORT = 0


class TopologyError(ValueError):
    """A topology that is not well formed: `file` (when loaded from one), `path` (the key,
    e.g. `links[3].b_port`) and what is wrong."""

    def __init__(self, message: str, path: str = "", file: str = "") -> None:
        self.message = message
        self.path = path
        self.file = file
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.path) if p)
        return f"{where}: {self.message}" if where else self.message

    def in_file(self, file: str) -> TopologyError:
        return TopologyError(self.message, self.path, file)


def host_prefix(ip: str, subnets: Iterable[str]) -> int:
    """The prefix length of the first of `subnets` (a switch's) holding `ip` (32 if none
    does): the mask a host's interface gets."""
    addr = ipaddress.ip_address(ip.split("/")[0])
    for s in subnets:
        net = ipaddress.ip_network(s, strict=False)
        if addr.version == net.version and addr in net:
            return net.prefixlen
    return 32


def router_mac_for(device_id: int) -> str:
    """The router MAC a switch gets unless one is given: `02:00:` + the device id in 32 bits
    (locally administered, unicast)."""
    return mac_from_int(0x020000000000 | (device_id & 0xFFFFFFFF))


@dataclass(slots=True, frozen=True)
class SwitchNode:
    """A switch. `role` is free text (`leaf`, `spine`, `edge`, `agg`, `core`, ...);
    `subnets` are the IPv4 prefixes its attached hosts live in (what routing announces);
    `grpc_addr` is its P4Runtime address (`127.0.0.1:50001`) or None when not run."""

    name: str
    role: str
    device_id: int
    grpc_addr: str | None = None
    plane: int = 0
    router_mac: str = ""
    subnets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.router_mac:
            object.__setattr__(self, "router_mac", router_mac_for(self.device_id))


@dataclass(slots=True, frozen=True)
class HostNode:
    """One host NIC attached to `port` of `switch`; see the module docstring for
    multi-homed servers (`server`: the machine this NIC belongs to, default its own name)."""

    name: str
    ip: str
    mac: str
    switch: str
    port: int
    plane: int = 0
    server: str = ""
    rate_bps: int = DEFAULT_RATE_BPS
    delay_ns: int = DEFAULT_DELAY_NS
    loss: float = 0.0

    def __post_init__(self) -> None:
        if not self.server:
            object.__setattr__(self, "server", self.name)


@dataclass(slots=True, frozen=True)
class Link:
    """A full-duplex link: port `a_port` of `a` to port `b_port` of `b`."""

    a: str
    a_port: int
    b: str
    b_port: int
    rate_bps: int = DEFAULT_RATE_BPS
    delay_ns: int = DEFAULT_DELAY_NS
    loss: float = 0.0

    def other(self, node: str) -> str:
        return self.b if node == self.a else self.a

    def port_of(self, node: str) -> int:
        return self.a_port if node == self.a else self.b_port


@dataclass(slots=True, frozen=True)
class _Index:
    switches: Mapping[str, SwitchNode]
    hosts: Mapping[str, HostNode]
    # (node, port) -> (neighbour, neighbour's port); hosts use port 0
    by_port: Mapping[tuple[str, int], tuple[str, int]]
    # (node, neighbour) -> port of node facing neighbour
    port_to: Mapping[tuple[str, str], int]
    links: Mapping[frozenset[str], Link]
    hosts_of: Mapping[str, tuple[HostNode, ...]]
    neighbours: Mapping[str, tuple[str, ...]]


@dataclass(slots=True, frozen=True)
class Topology:
    name: str
    switches: tuple[SwitchNode, ...]
    hosts: tuple[HostNode, ...] = ()
    links: tuple[Link, ...] = ()
    _cache: dict[str, _Index] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from .validate import validate

        for attr in ("switches", "hosts", "links"):
            if not isinstance(getattr(self, attr), tuple):
                object.__setattr__(self, attr, tuple(getattr(self, attr)))
        validate(self)

    @property
    def _index(self) -> _Index:
        """Lookup tables, built on first use (route computation does not need them)."""
        index = self._cache.get("index")
        if index is None:
            index = self._cache["index"] = _build_index(self)
        return index

    # -- lookups -------------------------------------------------------------------------
    def switch(self, name: str) -> SwitchNode:
        try:
            return self._index.switches[name]
        except KeyError:
            raise TopologyError(f"no switch named {name!r}") from None

    def host(self, name: str) -> HostNode:
        try:
            return self._index.hosts[name]
        except KeyError:
            raise TopologyError(f"no host named {name!r}") from None

    def is_switch(self, name: str) -> bool:
        return name in self._index.switches

    def is_host(self, name: str) -> bool:
        return name in self._index.hosts

    def switch_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.switches)

    def port_to(self, node: str, neighbour: str) -> int:
        """The port of `node` that faces `neighbour` (a switch or a host)."""
        try:
            return self._index.port_to[(node, neighbour)]
        except KeyError:
            raise TopologyError(f"{node} has no link to {neighbour}") from None

    def neighbour_on(self, node: str, port: int) -> tuple[str, int] | None:
        """(neighbour, neighbour's port) on `port` of `node`, or None for an unused port."""
        return self._index.by_port.get((node, port))

    def neighbours(self, node: str) -> tuple[str, ...]:
        """Every node linked to `node`: switches and hosts, in port order."""
        return self._index.neighbours.get(node, ())

    def hosts_of(self, switch: str) -> tuple[HostNode, ...]:
        return self._index.hosts_of.get(switch, ())

    def link_between(self, a: str, b: str) -> Link | None:
        """The link between two nodes (host access links included), or None."""
        return self._index.links.get(frozenset((a, b)))

    def host_link(self, host: HostNode | str) -> Link:
        h = self.host(host) if isinstance(host, str) else host
        return Link(h.name, HOST_NIC_PORT, h.switch, h.port, h.rate_bps, h.delay_ns, h.loss)

    def all_links(self) -> tuple[Link, ...]:
        """Switch links, then one access link per host."""
        return self.links + tuple(self.host_link(h) for h in self.hosts)

    def servers(self) -> dict[str, tuple[HostNode, ...]]:
        """Host NICs grouped by server (one NIC per plane on multi-plane fabrics)."""
        out: dict[str, list[HostNode]] = {}
        for h in self.hosts:
            out.setdefault(h.server, []).append(h)
        return {k: tuple(v) for k, v in out.items()}

    @property
    def planes(self) -> tuple[int, ...]:
        return tuple(sorted({s.plane for s in self.switches}))

    # -- derived topologies and views ----------------------------------------------------
    def graph(self) -> nx.Graph:
        """An undirected networkx graph of switches and hosts. Nodes carry `kind`
        (`switch`|`host`), switches `role`, `device_id`, `plane`, `subnets`, hosts `ip`,
        `mac`, `plane`, `server`; edges `ports` ({node: port}), `rate_bps`, `delay_ns`,
        `loss`."""
        g = nx.Graph(name=self.name)
        for s in self.switches:
            g.add_node(
                s.name,
                kind="switch",
                role=s.role,
                device_id=s.device_id,
                plane=s.plane,
                subnets=list(s.subnets),
            )
        for h in self.hosts:
            g.add_node(h.name, kind="host", ip=h.ip, mac=h.mac, plane=h.plane, server=h.server)
        for link in self.all_links():
            g.add_edge(
                link.a,
                link.b,
                ports={link.a: link.a_port, link.b: link.b_port},
                rate_bps=link.rate_bps,
                delay_ns=link.delay_ns,
                loss=link.loss,
            )
        return g

    def without_links(self, pairs: Iterable[tuple[str, str]]) -> Topology:
        """This topology minus the switch links between the given pairs (either order).
        A pair that is not a switch link raises `TopologyError`."""
        drop: set[frozenset[str]] = set()
        for a, b in pairs:
            key = frozenset((a, b))
            link = self._index.links.get(key)
            if link is None or not (self.is_switch(a) and self.is_switch(b)):
                for n in (a, b):
                    if not self.is_switch(n) and not self.is_host(n):
                        raise TopologyError(f"no switch named {n!r}")
                raise TopologyError(f"no link between {a} and {b}")
            drop.add(key)
        links = tuple(lk for lk in self.links if frozenset((lk.a, lk.b)) not in drop)
        return Topology(self.name, self.switches, self.hosts, links)

    def without_switches(self, names: Iterable[str]) -> Topology:
        """This topology minus the named switches, their links and their hosts."""
        gone = set(names)
        for n in gone:
            self.switch(n)
        return Topology(
            self.name,
            tuple(s for s in self.switches if s.name not in gone),
            tuple(h for h in self.hosts if h.switch not in gone),
            tuple(lk for lk in self.links if lk.a not in gone and lk.b not in gone),
        )

    def renamed(self, name: str) -> Topology:
        return replace(self, name=name)


def _build_index(topo: Topology) -> _Index:
    by_port: dict[tuple[str, int], tuple[str, int]] = {}
    port_to: dict[tuple[str, str], int] = {}
    links: dict[frozenset[str], Link] = {}
    hosts_of: dict[str, list[HostNode]] = {}
    for link in topo.all_links():
        by_port[(link.a, link.a_port)] = (link.b, link.b_port)
        by_port[(link.b, link.b_port)] = (link.a, link.a_port)
        port_to[(link.a, link.b)] = link.a_port
        port_to[(link.b, link.a)] = link.b_port
        links[frozenset((link.a, link.b))] = link
    for h in topo.hosts:
        hosts_of.setdefault(h.switch, []).append(h)
    neighbours: dict[str, list[tuple[int, str]]] = {}
    for (node, port), (nbr, _) in by_port.items():
        neighbours.setdefault(node, []).append((port, nbr))
    return _Index(
        switches={s.name: s for s in topo.switches},
        hosts={h.name: h for h in topo.hosts},
        by_port=by_port,
        port_to=port_to,
        links=links,
        hosts_of={k: tuple(v) for k, v in hosts_of.items()},
        neighbours={k: tuple(n for _, n in sorted(v)) for k, v in neighbours.items()},
    )
