"""Whole-topology checks, run by `Topology(...)`.

Each failure is a `TopologyError` whose path names the field as it appears in a topology
file (`switches[2].device_id`, `hosts[7].ip`, `links[3].b_port`). What is checked:

* names: non-empty, unique across switches and hosts;
* switches: device ids unique and in [0, 2^32); P4Runtime addresses `HOST:PORT`, unique;
  router MACs valid and unique (also against host MACs); subnets valid IPv4 prefixes that
  do not overlap anywhere in the fabric;
* hosts: attached to an existing switch, on a port in 1..510 other than 255 (the CPU port)
  that nothing else uses; IP inside one of that switch's subnets and unique; MAC valid and
  unique; plane equal to the switch's; rate > 0, delay >= 0, loss in [0, 1];
* links: both ends switches of the same plane, distinct, ports valid and unused, at most
  one link between two switches, rate > 0, delay >= 0, loss in [0, 1].
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING

from .model import TopologyError
from .units import parse_mac

if TYPE_CHECKING:
    from .model import Topology

__all__ = ["CPU_PORT", "MAX_PORT", "validate"]

MAX_PORT = 510  # 9-bit ports; 511 is BMv2's drop port
CPU_PORT = 255  # fabric.p4's default CPU port (simple_switch_grpc --cpu-port 255)
_GRPC = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})$")


def _check_port(port: object, path: str) -> int:
    if not isinstance(port, int) or isinstance(port, bool):
        raise TopologyError(f"expected a port number, got {port!r}", path)
    if not 1 <= port <= MAX_PORT or port == CPU_PORT:
        raise TopologyError(
            f"port {port} is out of range (1..{MAX_PORT}, {CPU_PORT} is the CPU port)", path
        )
    return port


def _check_link_params(rate: object, delay: object, loss: object, path: str) -> None:
    if not isinstance(rate, int) or isinstance(rate, bool) or rate <= 0:
        raise TopologyError(
            f"rate must be a positive number of bits/s, got {rate!r}", f"{path}.rate"
        )
    if not isinstance(delay, int) or isinstance(delay, bool) or delay < 0:
        raise TopologyError(
            f"delay must be a non-negative number of ns, got {delay!r}", f"{path}.delay"
        )
    if not isinstance(loss, int | float) or not 0.0 <= float(loss) <= 1.0:
        raise TopologyError(f"loss must be between 0 and 1, got {loss!r}", f"{path}.loss")


def _ipv4(text: object) -> int | None:
    """The IPv4 address as an int, or None (the same strings `ipaddress` accepts)."""
    if type(text) is not str:
        return None
    parts = text.split(".")
    if len(parts) != 4:
        return None
    value = 0
    for part in parts:
        if not part.isdigit() or not part.isascii() or (len(part) > 1 and part[0] == "0"):
            return None
        b = int(part)
        if b > 255:
            return None
        value = value << 8 | b
    return value


def _ok_params(rate: object, delay: object, loss: object) -> bool:
    return (
        type(rate) is int
        and rate > 0
        and type(delay) is int
        and delay >= 0
        and type(loss) in (int, float)
        and 0.0 <= loss <= 1.0  # type: ignore[operator]
    )


def _ok_port(port: object) -> bool:
    return type(port) is int and 1 <= port <= MAX_PORT and port != CPU_PORT


def _mac(value: str, path: str) -> int:
    try:
        return parse_mac(value)
    except ValueError as e:
        raise TopologyError(str(e), path) from None


def validate(topo: Topology) -> None:
    """Raise `TopologyError` for the first problem found (see the module docstring)."""
    if not isinstance(topo.name, str) or not topo.name:
        raise TopologyError("a topology needs a non-empty name", "name")
    names: dict[str, str] = {}
    device_ids: dict[int, str] = {}
    grpc: dict[str, str] = {}
    macs: dict[int, str] = {}
    nets: list[tuple[int, int, str]] = []  # (first, last, path)
    switch_nets: dict[str, list[tuple[int, int]]] = {}
    planes: dict[str, int] = {}
    used_ports: dict[tuple[str, int], str] = {}

    for i, s in enumerate(topo.switches):
        path = f"switches[{i}]"
        if not isinstance(s.name, str) or not s.name:
            raise TopologyError("a switch needs a non-empty name", f"{path}.name")
        if s.name in names:
            raise TopologyError(f"duplicate name {s.name!r} (also {names[s.name]})", f"{path}.name")
        names[s.name] = path
        planes[s.name] = s.plane
        if not isinstance(s.device_id, int) or not 0 <= s.device_id < 2**32:
            raise TopologyError(
                f"device id must be an integer in [0, 2^32), got {s.device_id!r}",
                f"{path}.device_id",
            )
        if s.device_id in device_ids:
            raise TopologyError(
                f"duplicate device id {s.device_id} (also {device_ids[s.device_id]})",
                f"{path}.device_id",
            )
        device_ids[s.device_id] = path
        if s.grpc_addr is not None:
            m = _GRPC.match(s.grpc_addr) if isinstance(s.grpc_addr, str) else None
            if not m or not 1 <= int(m.group(2)) <= 65535:
                raise TopologyError(
                    f"expected a P4Runtime address HOST:PORT, got {s.grpc_addr!r}", f"{path}.grpc"
                )
            if s.grpc_addr in grpc:
                raise TopologyError(
                    f"duplicate P4Runtime address {s.grpc_addr} (also {grpc[s.grpc_addr]})",
                    f"{path}.grpc",
                )
            grpc[s.grpc_addr] = path
        if not isinstance(s.plane, int) or s.plane < 0:
            raise TopologyError(f"plane must be an integer >= 0, got {s.plane!r}", f"{path}.plane")
        mac = _mac(s.router_mac, f"{path}.router_mac")
        if mac in macs:
            raise TopologyError(
                f"duplicate MAC {s.router_mac} (also {macs[mac]})", f"{path}.router_mac"
            )
        macs[mac] = f"{path}.router_mac"
        mine: list[tuple[int, int]] = []
        for j, text in enumerate(s.subnets):
            try:
                net = ipaddress.IPv4Network(text)
            except ValueError as e:
                raise TopologyError(
                    f"expected an IPv4 prefix like 10.0.1.0/24: {e}", f"{path}.subnets[{j}]"
                ) from None
            first, last = int(net.network_address), int(net.broadcast_address)
            nets.append((first, last, f"{path}.subnets[{j}]"))
            mine.append((first, last))
        switch_nets[s.name] = mine

    nets.sort()
    for (_, last, p1), (first, _, p2) in zip(nets, nets[1:], strict=False):
        if first <= last:
            raise TopologyError(f"prefix overlaps {p1}", p2)

    ips: dict[int, str] = {}
    for i, h in enumerate(topo.hosts):
        path = f"hosts[{i}]"
        if not isinstance(h.name, str) or not h.name:
            raise TopologyError("a host needs a non-empty name", f"{path}.name")
        if h.name in names:
            raise TopologyError(f"duplicate name {h.name!r} (also {names[h.name]})", f"{path}.name")
        names[h.name] = path
        if h.switch not in switch_nets:
            what = "a host" if h.switch in names else "unknown"
            raise TopologyError(f"{what} switch {h.switch!r}", f"{path}.switch")
        port = h.port if _ok_port(h.port) else _check_port(h.port, f"{path}.port")
        key = (h.switch, port)
        if key in used_ports:
            raise TopologyError(
                f"port {port} of {h.switch} is already used by {used_ports[key]}", f"{path}.port"
            )
        used_ports[key] = path
        ip = _ipv4(h.ip)
        if ip is None:
            raise TopologyError(
                f"expected an IPv4 address like 10.0.1.2, got {h.ip!r}", f"{path}.ip"
            )
        if ip in ips:
            raise TopologyError(f"duplicate IP {h.ip} (also {ips[ip]})", f"{path}.ip")
        ips[ip] = path
        if not any(first <= ip <= last for first, last in switch_nets[h.switch]):
            raise TopologyError(
                f"{h.ip} is not inside a subnet of {h.switch} "
                f"({', '.join(_subnets_of(topo, h.switch)) or 'it has none'})",
                f"{path}.ip",
            )
        mac = _mac(h.mac, f"{path}.mac")
        if mac in macs:
            raise TopologyError(f"duplicate MAC {h.mac} (also {macs[mac]})", f"{path}.mac")
        macs[mac] = f"{path}.mac"
        if h.plane != planes[h.switch]:
            raise TopologyError(
                f"plane {h.plane} differs from the plane of {h.switch} ({planes[h.switch]})",
                f"{path}.plane",
            )
        if not _ok_params(h.rate_bps, h.delay_ns, h.loss):
            _check_link_params(h.rate_bps, h.delay_ns, h.loss, path)

    pairs: dict[frozenset[str], str] = {}
    for i, link in enumerate(topo.links):
        path = f"links[{i}]"
        for end, node in (("a", link.a), ("b", link.b)):
            if node not in switch_nets:
                if node in names:
                    raise TopologyError(
                        f"{node} is a host: attach hosts with their own switch and port",
                        f"{path}.{end}",
                    )
                raise TopologyError(f"unknown switch {node!r}", f"{path}.{end}")
        if link.a == link.b:
            raise TopologyError(f"a link from {link.a} to itself", f"{path}.b")
        for end, node, port in (("a", link.a, link.a_port), ("b", link.b, link.b_port)):
            if not _ok_port(port):
                _check_port(port, f"{path}.{end}_port")
            key = (node, port)
            if key in used_ports:
                raise TopologyError(
                    f"port {port} of {node} is already used by {used_ports[key]}",
                    f"{path}.{end}_port",
                )
            used_ports[key] = path
        pair = frozenset((link.a, link.b))
        if pair in pairs:
            raise TopologyError(
                f"a second link between {link.a} and {link.b} (also {pairs[pair]}); "
                "parallel links are not supported",
                path,
            )
        pairs[pair] = path
        if planes[link.a] != planes[link.b]:
            raise TopologyError(
                f"joins plane {planes[link.a]} ({link.a}) and plane {planes[link.b]} ({link.b}); "
                "planes are disjoint",
                path,
            )
        if not _ok_params(link.rate_bps, link.delay_ns, link.loss):
            _check_link_params(link.rate_bps, link.delay_ns, link.loss, path)


def _subnets_of(topo: Topology, switch: str) -> tuple[str, ...]:
    for s in topo.switches:
        if s.name == switch:
            return s.subnets
    return ()
