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
from typing import TYPE_CHECKING, TypeGuard

from .model import TopologyError
from .units import parse_mac

if TYPE_CHECKING:
    from .model import Topology

__all__ = ["CPU_PORT", "MAX_PORT", "parse_ipv4", "validate"]

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


def parse_ipv4(text: object) -> int | None:
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


def _ok_port(port: object) -> TypeGuard[int]:
    return type(port) is int and 1 <= port <= MAX_PORT and port != CPU_PORT


def _mac(value: str, path: str) -> int:
    if type(value) is str and len(value) == 17 and value[2::3] == ":::::":
        digits = value.replace(":", "")
        if digits.isalnum() and digits.isascii():
            try:
                return int(digits, 16)
            except ValueError:
                pass
    try:
        return parse_mac(value)
    except ValueError as e:
        raise TopologyError(str(e), path) from None


def _where(at: tuple[str, int]) -> str:
    return f"{at[0]}[{at[1]}]"


def _use_port(
    used: dict[tuple[str, int], tuple[str, int]],
    switch: str,
    port: object,
    owner: tuple[str, int],
    path: str,
) -> None:
    """Record that `owner` (section, index) uses `port` of `switch`: a valid port nothing
    else uses."""
    key = (switch, port if _ok_port(port) else _check_port(port, path))
    if key in used:
        raise TopologyError(f"port {port} of {switch} is already used by {_where(used[key])}", path)
    used[key] = owner


def validate(topo: Topology) -> None:
    """Raise `TopologyError` for the first problem found (see the module docstring)."""
    if not isinstance(topo.name, str) or not topo.name:
        raise TopologyError("a topology needs a non-empty name", "name")
    # where things were first seen, as (section, index); paths are formatted on error only
    names: dict[str, tuple[str, int]] = {}
    device_ids: dict[int, str] = {}
    grpc: dict[str, str] = {}
    macs: dict[int, str] = {}
    nets: list[tuple[int, int, str]] = []  # (first, last, path)
    switch_nets: dict[str, tuple[tuple[int, int], ...]] = {}
    planes: dict[str, int] = {}
    used_ports: dict[tuple[str, int], tuple[str, int]] = {}

    for i, s in enumerate(topo.switches):
        path = f"switches[{i}]"
        if not isinstance(s.name, str) or not s.name:
            raise TopologyError("a switch needs a non-empty name", f"{path}.name")
        if s.name in names:
            raise TopologyError(
                f"duplicate name {s.name!r} (also {_where(names[s.name])})", f"{path}.name"
            )
        names[s.name] = ("switches", i)
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
        switch_nets[s.name] = tuple(mine)

    nets.sort()
    for (_, last, p1), (first, _, p2) in zip(nets, nets[1:], strict=False):
        if first <= last:
            raise TopologyError(f"prefix overlaps {p1}", p2)

    ips: dict[int, int] = {}
    host_macs: dict[int, int] = {}
    for i, h in enumerate(topo.hosts):
        name, switch = h.name, h.switch
        if not isinstance(name, str) or not name:
            raise TopologyError("a host needs a non-empty name", f"hosts[{i}].name")
        if name in names:
            raise TopologyError(
                f"duplicate name {name!r} (also {_where(names[name])})", f"hosts[{i}].name"
            )
        names[name] = ("hosts", i)
        mine_nets = switch_nets.get(switch)
        if mine_nets is None:
            what = "a host" if switch in names else "unknown"
            raise TopologyError(f"{what} switch {switch!r}", f"hosts[{i}].switch")
        _use_port(used_ports, switch, h.port, ("hosts", i), f"hosts[{i}].port")
        ip = parse_ipv4(h.ip)
        if ip is None:
            raise TopologyError(
                f"expected an IPv4 address like 10.0.1.2, got {h.ip!r}", f"hosts[{i}].ip"
            )
        if ip in ips:
            raise TopologyError(f"duplicate IP {h.ip} (also hosts[{ips[ip]}])", f"hosts[{i}].ip")
        ips[ip] = i
        for first, last in mine_nets:
            if first <= ip <= last:
                break
        else:
            raise TopologyError(
                f"{h.ip} is not inside a subnet of {switch} "
                f"({', '.join(_subnets_of(topo, switch)) or 'it has none'})",
                f"hosts[{i}].ip",
            )
        mac = _mac(h.mac, f"hosts[{i}].mac")
        if mac in host_macs or mac in macs:
            also = f"hosts[{host_macs[mac]}].mac" if mac in host_macs else macs[mac]
            raise TopologyError(f"duplicate MAC {h.mac} (also {also})", f"hosts[{i}].mac")
        host_macs[mac] = i
        if h.plane != planes[switch]:
            raise TopologyError(
                f"plane {h.plane} differs from the plane of {switch} ({planes[switch]})",
                f"hosts[{i}].plane",
            )
        if not _ok_params(h.rate_bps, h.delay_ns, h.loss):
            _check_link_params(h.rate_bps, h.delay_ns, h.loss, f"hosts[{i}]")

    pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(topo.links):
        a, b, a_port, b_port = link.a, link.b, link.a_port, link.b_port
        for end, node in (("a", a), ("b", b)):
            if node not in switch_nets:
                if node in names:
                    raise TopologyError(
                        f"{node} is a host: attach hosts with their own switch and port",
                        f"links[{i}].{end}",
                    )
                raise TopologyError(f"unknown switch {node!r}", f"links[{i}].{end}")
        if a == b:
            raise TopologyError(f"a link from {a} to itself", f"links[{i}].b")
        for end, node, port in (("a", a, a_port), ("b", b, b_port)):
            _use_port(used_ports, node, port, ("links", i), f"links[{i}].{end}_port")
        pair = frozenset((a, b))
        if pair in pairs:
            raise TopologyError(
                f"a second link between {a} and {b} (also links[{pairs[pair]}]); "
                "parallel links are not supported",
                f"links[{i}]",
            )
        pairs[pair] = i
        if planes[a] != planes[b]:
            raise TopologyError(
                f"joins plane {planes[a]} ({a}) and plane {planes[b]} ({b}); planes are disjoint",
                f"links[{i}]",
            )
        if not _ok_params(link.rate_bps, link.delay_ns, link.loss):
            _check_link_params(link.rate_bps, link.delay_ns, link.loss, f"links[{i}]")


def _subnets_of(topo: Topology, switch: str) -> tuple[str, ...]:
    for s in topo.switches:
        if s.name == switch:
            return s.subnets
    return ()
