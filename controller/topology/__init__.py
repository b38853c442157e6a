"""Fabric topologies as data: typed switches, hosts and links, loaded from YAML files
(docs/topology.md), checked, dumped back, and viewed as networkx graphs."""

from .dumper import dump_topology, save_topology
from .loader import host_mac_for, load_topology, parse_topology
from .model import (
    DEFAULT_DELAY_NS,
    DEFAULT_RATE_BPS,
    HostNode,
    Link,
    SwitchNode,
    Topology,
    TopologyError,
    host_prefix,
    router_mac_for,
)
from .units import format_delay, format_rate, parse_delay, parse_loss, parse_mac, parse_rate

__all__ = [
    "DEFAULT_DELAY_NS",
    "DEFAULT_RATE_BPS",
    "HostNode",
    "Link",
    "SwitchNode",
    "Topology",
    "TopologyError",
    "dump_topology",
    "format_delay",
    "format_rate",
    "host_mac_for",
    "host_prefix",
    "load_topology",
    "parse_delay",
    "parse_loss",
    "parse_mac",
    "parse_rate",
    "parse_topology",
    "router_mac_for",
    "save_topology",
]
