"""Topology files (YAML, described in docs/topology.md) -> `Topology`.

Every problem is a `TopologyError` naming the file, the key (`links[3].b_port`) and what
is wrong; YAML syntax errors give the file's line and column. Files in the
one-entry-per-line form are read by `fastyaml` (same result, much faster); anything else
by PyYAML, with its C parser when PyYAML was built with it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from .fastyaml import fast_load
from .model import (
    DEFAULT_DELAY_NS,
    DEFAULT_RATE_BPS,
    HostNode,
    Link,
    SwitchNode,
    Topology,
    TopologyError,
)
from .units import format_mac, mac_from_int, parse_delay, parse_loss, parse_rate
from .validate import parse_ipv4

__all__ = ["host_mac_for", "load_topology", "parse_topology"]

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TOP_KEYS = {"name", "defaults", "switches", "hosts", "links"}
_DEFAULT_KEYS = {"rate", "delay", "loss"}
_SWITCH_KEYS = {"name", "role", "device_id", "grpc", "plane", "router_mac", "subnets"}
_HOST_KEYS = {"name", "ip", "mac", "switch", "port", "plane", "server", "rate", "delay", "loss"}
_LINK_KEYS = {"a", "a_port", "b", "b_port", "rate", "delay", "loss"}

T = TypeVar("T")
_Wire = tuple[int, int, float]  # rate_bps, delay_ns, loss


def host_mac_for(ip: str) -> str:
    """The MAC a host gets unless one is given: `06:00:` + its IPv4 address."""
    value = parse_ipv4(ip)
    if value is None:
        value = int(ipaddress.IPv4Address(ip))  # raises ValueError with the reason
    return mac_from_int(0x060000000000 | value)


def load_topology(path: str | Path) -> Topology:
    """Read and check a topology file."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise TopologyError(f"cannot read: {e.strerror}", file=str(p)) from None
    return parse_topology(text, str(p))


def parse_topology(text: str, source: str = "<topology>") -> Topology:
    """Check and build a topology from YAML text; `source` names it in errors."""
    data = fast_load(text)
    try:
        if data is None:
            data = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        raise TopologyError(f"invalid YAML: {e.problem}", file=where) from None
    except yaml.YAMLError as e:
        raise TopologyError(f"invalid YAML: {e}", file=source) from None
    try:
        return _build(data)
    except TopologyError as e:
        raise e.in_file(source) from None


def _mapping(value: object, path: str, allowed: set[str], required: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise TopologyError(f"expected a mapping, got {_kind(value)}", path)
    for key in value:
        if key not in allowed:
            raise TopologyError(
                f"unknown key {key!r} (expected one of {', '.join(sorted(allowed))})",
                f"{path}.{key}" if path else str(key),
            )
    for key in required:
        if key not in value:
            raise TopologyError(f"missing key {key!r}", path or key)
    return value


def _kind(value: object) -> str:
    return "nothing" if value is None else f"a {type(value).__name__} ({value!r})"


def _str(value: object, path: str) -> str:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # names like 1 or 2.5 written without quotes
    raise TopologyError(f"expected a non-empty string, got {_kind(value)}", path)


def _int(value: object, path: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TopologyError(f"expected an integer, got {_kind(value)}", path)


def _parsed(parse: Callable[[object], T], value: object, path: str, cache: dict) -> T:
    key = (type(value), value) if isinstance(value, str | int | float) else None
    if key is not None and key in cache:
        return cache[key]
    try:
        out = parse(value)
    except ValueError as e:
        raise TopologyError(str(e), path) from None
    if key is not None:
        cache[key] = out
    return out


def _ip(value: object, path: str) -> str:
    if parse_ipv4(value) is not None:
        return value  # type: ignore[return-value]  # already canonical
    try:
        return str(ipaddress.IPv4Address(value if isinstance(value, str) else ""))
    except ValueError:
        raise TopologyError(
            f"expected an IPv4 address like 10.0.1.2, got {_kind(value)}", path
        ) from None


def _list(value: object, path: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TopologyError(f"expected a list, got {_kind(value)}", path)
    return value


def _build(data: object) -> Topology:
    top = _mapping(data, "", _TOP_KEYS, ("name", "switches"))
    name = _str(top["name"], "name")
    rates: dict = {}
    delays: dict = {}
    losses: dict = {}

    def wire(m: dict, path: str, default: _Wire) -> _Wire:
        """(rate_bps, delay_ns, loss) of entry `m`, `default`'s where a key is absent."""
        return (
            _parsed(parse_rate, m["rate"], f"{path}.rate", rates) if "rate" in m else default[0],
            _parsed(parse_delay, m["delay"], f"{path}.delay", delays)
            if "delay" in m
            else default[1],
            _parsed(parse_loss, m["loss"], f"{path}.loss", losses) if "loss" in m else default[2],
        )

    defaults = _mapping(top.get("defaults") or {}, "defaults", _DEFAULT_KEYS, ())
    d_wire = wire(defaults, "defaults", (DEFAULT_RATE_BPS, DEFAULT_DELAY_NS, 0.0))

    switches: list[SwitchNode] = []
    plane_of: dict[str, int] = {}
    for i, raw in enumerate(_list(top["switches"], "switches")):
        path = f"switches[{i}]"
        s = _mapping(raw, path, _SWITCH_KEYS, ("name", "role", "device_id"))
        subnets = []
        for j, net in enumerate(_list(s.get("subnets"), f"{path}.subnets")):
            try:
                subnets.append(str(ipaddress.IPv4Network(net if isinstance(net, str) else "")))
            except ValueError as e:
                detail = str(e) if isinstance(net, str) else f"got {_kind(net)}"
                raise TopologyError(
                    f"expected an IPv4 prefix like 10.0.1.0/24: {detail}",
                    f"{path}.subnets[{j}]",
                ) from None
        grpc = s.get("grpc")
        mac = s.get("router_mac")
        node = SwitchNode(
            name=_str(s["name"], f"{path}.name"),
            role=_str(s["role"], f"{path}.role"),
            device_id=_int(s["device_id"], f"{path}.device_id"),
            grpc_addr=None if grpc is None else _str(grpc, f"{path}.grpc"),
            plane=_int(s.get("plane", 0), f"{path}.plane"),
            router_mac="" if mac is None else _parsed(format_mac, mac, f"{path}.router_mac", {}),
            subnets=tuple(subnets),
        )
        switches.append(node)
        plane_of.setdefault(node.name, node.plane)

    hosts: list[HostNode] = []
    for i, raw in enumerate(_list(top.get("hosts"), "hosts")):
        path = f"hosts[{i}]"
        h = _mapping(raw, path, _HOST_KEYS, ("name", "ip", "switch", "port"))
        ip = _ip(h["ip"], f"{path}.ip")
        switch = _str(h["switch"], f"{path}.switch")
        mac = h.get("mac")
        rate_bps, delay_ns, loss = wire(h, path, d_wire)
        hosts.append(
            HostNode(
                name=_str(h["name"], f"{path}.name"),
                ip=ip,
                mac=host_mac_for(ip)
                if mac is None
                else _parsed(format_mac, mac, f"{path}.mac", {}),
                switch=switch,
                port=_int(h["port"], f"{path}.port"),
                plane=_int(h["plane"], f"{path}.plane")
                if "plane" in h
                else plane_of.get(switch, 0),
                server="" if h.get("server") is None else _str(h["server"], f"{path}.server"),
                rate_bps=rate_bps,
                delay_ns=delay_ns,
                loss=loss,
            )
        )

    links: list[Link] = []
    for i, raw in enumerate(_list(top.get("links"), "links")):
        path = f"links[{i}]"
        lk = _mapping(raw, path, _LINK_KEYS, ("a", "a_port", "b", "b_port"))
        rate_bps, delay_ns, loss = wire(lk, path, d_wire)
        links.append(
            Link(
                a=_str(lk["a"], f"{path}.a"),
                a_port=_int(lk["a_port"], f"{path}.a_port"),
                b=_str(lk["b"], f"{path}.b"),
                b_port=_int(lk["b_port"], f"{path}.b_port"),
                rate_bps=rate_bps,
                delay_ns=delay_ns,
                loss=loss,
            )
        )
    return Topology(name, tuple(switches), tuple(hosts), tuple(links))
