"""A simulated fabric: one softswitch per topology switch (all on the loop's clock), one
host node per topology host, two wires per link.

The topology is `controller.topology.Topology`; switch ports and host NICs are wired as it
says. Each switch port's egress queue is served at its wire's rate with `queue_depth`
packets per queue and `priority_queues` strict priorities (trimmed packets jump ahead).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from softswitch.codegen.program import CompiledProgram
from softswitch.v1model.switch import Switch

from .events import EventLoop
from .hostnode import HostNode
from .links import Wire
from .switchnode import PfcParams, SwitchNode

__all__ = ["NetParams", "Network"]


@dataclass(slots=True, frozen=True)
class NetParams:
    queue_depth: int = 256  # packets per queue (a shared-buffer switch holds more than BMv2's 64)
    priority_queues: int = 2
    pfc: PfcParams = PfcParams()
    bin_ns: int = 10_000  # utilisation time bins
    trim_dscp: int = 46


class Network:
    def __init__(self, topo: Any, program: CompiledProgram, params: NetParams, seed: int) -> None:
        self.topo = topo
        self.params = params
        self.loop = EventLoop()
        self.rng = random.Random(seed)
        self.switches: dict[str, SwitchNode] = {}
        self.hosts: dict[str, HostNode] = {}
        self.wires: dict[tuple[str, str], Wire] = {}  # (from, to)
        # (a, b) -> times the a-b link changed state (an interface's carrier transitions)
        self.carrier_transitions: dict[tuple[str, str], int] = {}
        for i, s in enumerate(topo.switches):
            sw = Switch(
                program,
                seed=seed * 1000 + i,
                clock=self.loop.clock,
                priority_queues=params.priority_queues,
            )
            sw.set_queue_depth(params.queue_depth)
            self.switches[s.name] = SwitchNode(s.name, sw, self.loop, params.pfc)
        for h in topo.hosts:
            self.hosts[h.name] = HostNode(h.name, self.loop, params.trim_dscp)
        for link in topo.links:
            self._wire(link)
        for h in topo.hosts:
            self._wire(topo.host_link(h))

    def node(self, name: str) -> SwitchNode | HostNode:
        return self.switches.get(name) or self.hosts[name]

    def _wire(self, link: Any) -> None:
        for a, ap, b, bp in (
            (link.a, link.a_port, link.b, link.b_port),
            (link.b, link.b_port, link.a, link.a_port),
        ):
            w = Wire(
                self.loop,
                a,
                ap,
                b,
                bp,
                link.rate_bps,
                link.delay_ns,
                link.loss,
                random.Random(self.rng.random()),
                self.params.bin_ns,
            )
            src, dst = self.node(a), self.node(b)
            w.deliver = dst.receive
            self.wires[(a, b)] = w
            if isinstance(src, SwitchNode):
                src.wires[ap] = w
                src.peers[ap] = (dst, bp)
                src.sw.set_port_rate(ap, link.rate_bps)
            else:
                src.wire = w
                src.peer = (dst, bp)

    def set_link(self, a: str, b: str, up: bool) -> None:
        """Take both directions of the a-b link down (packets sent onto it are lost) or up."""
        for key in ((a, b), (b, a)):
            w = self.wires[key]
            if w.up != up:
                self.carrier_transitions[key] = self.carrier_transitions.get(key, 0) + 1
            w.up = up

    def close(self) -> None:
        now = self.loop.clock.now_ns()
        for s in self.switches.values():
            s.close_pauses(now)
        for h in self.hosts.values():
            h.close_pauses(now)
