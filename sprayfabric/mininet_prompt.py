"""Mininet's CLI with the fabric controller's commands.

Besides everything Mininet's prompt offers (`pingall`, `h1 ping h3`, `h1 iperf3 ...`,
`links`, `py ...`), the prompt has:

    lb set MODE [GROUP]      load-balancing mode of every next-hop group (or of GROUP);
                             `set-lb MODE [GROUP]` is the old spelling
    link down A B            take the link between A and B down: the veth pair goes down
    link up A B              and the controller removes (restores) it from every group
                             (Mininet's own order `link A B down` works the same)
    counters                 per-uplink packet counters, read from the switches over P4Runtime
    switches                 each switch's P4Runtime address, device id and log file
"""

from __future__ import annotations

from typing import Any, Protocol

from fabricnet.mn import ensure_mininet

ensure_mininet()

from mininet.cli import CLI  # noqa: E402
from mininet.log import error, output  # noqa: E402

__all__ = ["FabricCLI", "FabricControl"]


class FabricControl(Protocol):
    """What the prompt asks of the controller; each returns the text to print."""

    def set_lb(self, mode: str, group: int | None = None) -> str: ...

    def link_down(self, a: str, b: str) -> str: ...

    def link_up(self, a: str, b: str) -> str: ...

    def counters(self) -> str: ...


class FabricCLI(CLI):
    """`mininet> ` with `lb set` (or `set-lb`), `link down|up`, `counters` and `switches`."""

    prompt = "sprayfabric> "

    def __init__(self, mininet: Any, control: FabricControl, **kwargs: Any) -> None:
        self.control = control
        super().__init__(mininet, **kwargs)

    def _run(self, fn: Any, *args: Any) -> None:
        """Call the controller; its errors are printed, never end the prompt."""
        try:
            text = fn(*args)
        except Exception as e:  # the prompt survives a failed command
            error(f"*** {e}\n")
            return
        if text:
            output(text.rstrip("\n") + "\n")

    def do_set_lb(self, line: str) -> None:
        """set-lb MODE [GROUP]: load-balancing mode (ecmp, flowlet, spray, adaptive, ...)
        of every next-hop group, or of GROUP."""
        args = line.split()
        if not 1 <= len(args) <= 2:
            error("usage: set-lb MODE [GROUP]\n")
            return
        group: int | None = None
        if len(args) == 2:
            try:
                group = int(args[1], 0)
            except ValueError:
                error(f"set-lb: GROUP must be a number, not {args[1]!r}\n")
                return
        self._run(self.control.set_lb, args[0], group)

    def do_lb(self, line: str) -> None:
        """lb set MODE [GROUP]: load-balancing mode (ecmp, flowlet, spray, adaptive, ...)
        of every next-hop group, or of GROUP."""
        verb, _, rest = line.strip().partition(" ")
        if verb != "set":
            error("usage: lb set MODE [GROUP]\n")
            return
        self.do_set_lb(rest)

    def do_link(self, line: str) -> None:
        """link down|up A B (or Mininet's link A B down|up): the veth pair between A and B
        goes down/up and the controller takes it out of (puts it back in) every group."""
        args = line.split()
        if len(args) == 3 and args[0] in ("up", "down"):
            state, a, b = args
        elif len(args) == 3 and args[2] in ("up", "down"):
            a, b, state = args
        else:
            error("usage: link down|up A B\n")
            return
        for name in (a, b):
            if name not in self.mn:
                error(f"link: no node named {name!r}\n")
                return
        if state == "down":
            self._run(self.control.link_down, a, b)
            self.mn.configLinkStatus(a, b, "down")
        else:
            self.mn.configLinkStatus(a, b, "up")
            self._run(self.control.link_up, a, b)

    def do_counters(self, _line: str) -> None:
        """counters: per-uplink packet counters read from the switches over P4Runtime."""
        self._run(self.control.counters)

    def do_switches(self, _line: str) -> None:
        """switches: P4Runtime address, device id and log file of every switch (attach with
        `sprayfabric fabric shell`)."""
        for sw in self.mn.switches:
            output(
                f"{sw.name}: grpc {sw.grpc_address}, device id {sw.device_id}, log {sw.log_path}\n"
            )

    def default(self, line: str) -> None:
        # cmd.Cmd splits commands at the first non-identifier character: `set-lb` arrives
        # here as the unknown command `set`
        first, _, rest = line.partition(" ")
        if first == "set-lb":
            self.do_set_lb(rest)
            return
        super().default(line)
