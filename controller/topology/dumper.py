"""`Topology` -> YAML text that `parse_topology` reads back to an equal topology.

One switch, host or link per line (YAML flow mappings), so that files of fabrics with
tens of thousands of hosts stay readable with grep and diff. The most common rate, delay
and loss go to `defaults` and are left out of the lines that share them; router and host
MACs are written only when they differ from the derived ones.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from .loader import host_mac_for
from .model import Topology, router_mac_for
from .units import format_delay, format_rate

__all__ = ["dump_topology", "save_topology"]

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_./-]*$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _s(text: str) -> str:
    """A YAML scalar for a string: plain when unambiguous, else double-quoted (JSON)."""
    if _PLAIN.match(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text)


def _loss(value: float) -> str:
    """A decimal with a dot: YAML 1.1 reads `1e-05` as a string."""
    if not value:
        return "0"
    text = repr(float(value))
    return f"{value:.20f}".rstrip("0") if "e" in text else text


def dump_topology(topo: Topology) -> str:
    """The YAML text of a topology (see the module docstring)."""
    params = Counter(
        (lk.rate_bps, lk.delay_ns, lk.loss)
        for lk in (*topo.links, *(topo.host_link(h) for h in topo.hosts))
    )
    d_rate, d_delay, d_loss = params.most_common(1)[0][0] if params else (100 * 10**9, 1000, 0.0)

    def link_params(rate: int, delay: int, loss: float) -> str:
        out = ""
        if rate != d_rate:
            out += f", rate: {format_rate(rate)}"
        if delay != d_delay:
            out += f", delay: {format_delay(delay)}"
        if loss != d_loss:
            out += f", loss: {_loss(loss)}"
        return out

    lines = [
        f"name: {_s(topo.name)}",
        f"defaults: {{rate: {format_rate(d_rate)}, delay: {format_delay(d_delay)}, "
        f"loss: {_loss(d_loss)}}}",
        "switches:" if topo.switches else "switches: []",
    ]
    for s in topo.switches:
        line = f"  - {{name: {_s(s.name)}, role: {_s(s.role)}, device_id: {s.device_id}"
        if s.grpc_addr is not None:
            line += f", grpc: {json.dumps(s.grpc_addr)}"
        if s.plane:
            line += f", plane: {s.plane}"
        if s.router_mac != router_mac_for(s.device_id):
            line += f", router_mac: {json.dumps(s.router_mac)}"
        if s.subnets:
            line += f", subnets: [{', '.join(s.subnets)}]"
        lines.append(line + "}")
    lines.append("hosts:" if topo.hosts else "hosts: []")
    for h in topo.hosts:
        line = f"  - {{name: {_s(h.name)}, ip: {h.ip}"
        if h.mac != host_mac_for(h.ip):
            line += f", mac: {json.dumps(h.mac)}"
        line += f", switch: {_s(h.switch)}, port: {h.port}"
        if h.plane:
            line += f", plane: {h.plane}"
        if h.server != h.name:
            line += f", server: {_s(h.server)}"
        lines.append(line + link_params(h.rate_bps, h.delay_ns, h.loss) + "}")
    lines.append("links:" if topo.links else "links: []")
    for lk in topo.links:
        lines.append(
            f"  - {{a: {_s(lk.a)}, a_port: {lk.a_port}, b: {_s(lk.b)}, b_port: {lk.b_port}"
            + link_params(lk.rate_bps, lk.delay_ns, lk.loss)
            + "}"
        )
    return "\n".join(lines) + "\n"


def save_topology(topo: Topology, path: str | Path) -> None:
    Path(path).write_text(dump_topology(topo))
