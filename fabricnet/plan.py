"""How a topology file's nodes and links map onto Mininet (pure functions, no Mininet)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.topology import host_prefix

__all__ = ["LinkShape", "host_prefix", "interface_name", "link_shape"]

MAX_IFNAME = 15  # Linux IFNAMSIZ - 1
MININET_MAX_MBIT = 1000  # Mininet's TCIntf refuses higher bw values


@dataclass(frozen=True, slots=True)
class LinkShape:
    """What Mininet's TCLink is asked to apply to both ends of a link: an htb rate, and
    netem delay/loss (only when asked: these machines' kernels have no netem)."""

    bw_mbit: float | None
    delay: str | None
    loss: float | None

    def params(self) -> dict[str, Any]:
        p: dict[str, Any] = {}
        if self.bw_mbit is not None:
            p["bw"] = self.bw_mbit
        if self.delay is not None:
            p["delay"] = self.delay
        if self.loss:
            p["loss"] = self.loss * 100.0  # Mininet takes percent
        return p


def link_shape(
    rate_bps: int, delay_ns: int, loss: float, *, bw_mbit: float | None, netem: bool
) -> LinkShape:
    """The Mininet parameters of a link of the topology file. `bw_mbit` overrides the
    file's rate; a rate above Mininet's limit (1000 Mbit/s, far above what a software
    switch forwards) is left unshaped."""
    bw: float | None = bw_mbit if bw_mbit is not None else rate_bps / 1e6
    if bw is not None and (bw <= 0 or bw > MININET_MAX_MBIT):
        bw = None
    delay = f"{delay_ns / 1000:g}us" if netem and delay_ns else None
    return LinkShape(bw, delay, loss if netem and loss else None)


def interface_name(tag: str, node: str, port: int) -> str:
    """`<tag><node>-eth<port>`; ValueError if longer than Linux allows (15 characters)."""
    name = f"{tag}{node}-eth{port}"
    if len(name) > MAX_IFNAME:
        raise ValueError(
            f"interface name {name!r} is longer than {MAX_IFNAME} characters: "
            "use shorter node names (or a shorter tag)"
        )
    return name
