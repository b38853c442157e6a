"""simple_switch_CLI's queue commands, read by softswitch (`--queue-command`):

    set_queue_rate <rate_pps> [<egress_port> [<priority>]]
    set_queue_depth <depth_pkts> [<egress_port> [<priority>]]

Without a port the command applies to every port (and to ports added later); with a port
and no priority to every priority queue of that port; with both, to that one queue.
Priorities are `standard_metadata.priority` values, the highest served first, as in
simple_switch. A rate of 0 removes the limit (BMv2: no rate limit).

How a rate acts depends on `--queueing`: with `bmv2`, as simple_switch, every (port,
priority) queue is a rate limiter of its own and a packet's departure time is fixed when
it joins the queue, so a new rate reaches only the packets queued after it; with `shared`
(the default) one server per port spends 1/rate of the queue served on each packet,
reckoned when it takes it, so a new rate applies to the packets already waiting too
(softswitch/v1model/tm.py).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["QueueCommand", "QueueCommandError", "apply_queue_command", "parse_queue_command"]


class QueueCommandError(ValueError):
    """A queue command that cannot be read."""


@dataclass(frozen=True, slots=True)
class QueueCommand:
    kind: Literal["rate", "depth"]
    value: int  # packets/s (0: no limit) or packets
    port: int | None = None
    priority: int | None = None


_USAGE = {
    "set_queue_rate": "set_queue_rate <rate_pps> [<egress_port> [<priority>]]",
    "set_queue_depth": "set_queue_depth <depth_pkts> [<egress_port> [<priority>]]",
}


def _number(word: str, what: str, line: str) -> int:
    try:
        v = int(word, 0)
    except ValueError:
        raise QueueCommandError(f"{line!r}: {what} {word!r} is not an integer") from None
    if v < 0:
        raise QueueCommandError(f"{line!r}: {what} {v} is negative")
    return v


def parse_queue_command(line: str) -> QueueCommand:
    """One command (see the module docstring); QueueCommandError says what is wrong."""
    words = shlex.split(line)
    if not words:
        raise QueueCommandError("empty queue command")
    name, args = words[0], words[1:]
    usage = _USAGE.get(name)
    if usage is None:
        raise QueueCommandError(
            f"{line!r}: unknown queue command {name!r} (known: {', '.join(_USAGE)})"
        )
    if not 1 <= len(args) <= 3:
        raise QueueCommandError(f"{line!r}: usage: {usage}")
    kind: Literal["rate", "depth"] = "rate" if name == "set_queue_rate" else "depth"
    value = _number(args[0], "rate" if kind == "rate" else "depth", line)
    if kind == "depth" and value < 1:
        raise QueueCommandError(f"{line!r}: a queue holds at least 1 packet")
    port = _number(args[1], "egress port", line) if len(args) > 1 else None
    priority = _number(args[2], "priority", line) if len(args) > 2 else None
    return QueueCommand(kind, value, port, priority)


class _Queues(Protocol):
    def set_queue_rate(
        self,
        port: int | None = None,
        *,
        pps: float | None = None,
        bps: float | None = None,
        priority: int | None = None,
    ) -> None: ...

    def set_queue_depth(
        self, depth: int, port: int | None = None, priority: int | None = None
    ) -> None: ...


def apply_queue_command(runtime: _Queues, cmd: QueueCommand) -> None:
    """Apply `cmd` to a `SwitchRuntime` (kept across pipeline loads)."""
    if cmd.kind == "rate":
        runtime.set_queue_rate(cmd.port, pps=cmd.value or None, priority=cmd.priority)
    else:
        runtime.set_queue_depth(cmd.value, cmd.port, cmd.priority)
