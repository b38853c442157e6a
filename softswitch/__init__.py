"""softswitch: a P4_16 v1model switch in Python, with a P4Runtime server.

The public API, importable from the package itself::

    from softswitch import compile_file, Switch, SimClock, Exact, Lpm

    sw = Switch(compile_file("prog.p4"), clock=SimClock())
    sw.tables["MyIngress.ipv4_lpm"].add([Lpm(0x0A000100, 24)], "MyIngress.ipv4_forward", (1, 3))
    print(sw.process(1, frame))

Names are loaded when first used, so `import softswitch.frontend` (or any other
sub-package) does not load the rest of the switch.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .clock import Clock, SimClock, WallClock
    from .compiler import compile_file, compile_text
    from .device_config import load_device_config, make_device_config
    from .engine.matches import Exact, Lpm, Optional, Range, Ternary, Wildcard
    from .frontend.errors import P4Error
    from .p4info import p4info_for, p4info_text
    from .p4runtime import P4RuntimeError, P4RuntimeServer
    from .ports import PcapFilePort, Port, QueuePort, queue_link
    from .ports.afpacket import RawSocketPort
    from .program_info import CompiledProgram, ProgramInfo
    from .runtime import SwitchRuntime
    from .stf import run_stf
    from .v1model.switch import CloneSession, Digest, Output, Switch

# public name -> the module that defines it
_WHERE = {
    "Clock": "clock",
    "SimClock": "clock",
    "WallClock": "clock",
    "compile_file": "compiler",
    "compile_text": "compiler",
    "load_device_config": "device_config",
    "make_device_config": "device_config",
    "Exact": "engine.matches",
    "Lpm": "engine.matches",
    "Optional": "engine.matches",
    "Range": "engine.matches",
    "Ternary": "engine.matches",
    "Wildcard": "engine.matches",
    "P4Error": "frontend.errors",
    "p4info_for": "p4info",
    "p4info_text": "p4info",
    "P4RuntimeError": "p4runtime",
    "P4RuntimeServer": "p4runtime",
    "PcapFilePort": "ports",
    "Port": "ports",
    "QueuePort": "ports",
    "RawSocketPort": "ports.afpacket",
    "queue_link": "ports",
    "CompiledProgram": "program_info",
    "ProgramInfo": "program_info",
    "SwitchRuntime": "runtime",
    "run_stf": "stf",
    "CloneSession": "v1model.switch",
    "Digest": "v1model.switch",
    "Output": "v1model.switch",
    "Switch": "v1model.switch",
}

__all__ = [
    "Clock",
    "CloneSession",
    "CompiledProgram",
    "Digest",
    "Exact",
    "Lpm",
    "Optional",
    "Output",
    "P4Error",
    "P4RuntimeError",
    "P4RuntimeServer",
    "PcapFilePort",
    "Port",
    "ProgramInfo",
    "QueuePort",
    "Range",
    "RawSocketPort",
    "SimClock",
    "Switch",
    "SwitchRuntime",
    "Ternary",
    "WallClock",
    "Wildcard",
    "compile_file",
    "compile_text",
    "load_device_config",
    "make_device_config",
    "p4info_for",
    "p4info_text",
    "queue_link",
    "run_stf",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'softswitch' has no attribute {name!r}")
    value = getattr(import_module(f".{where}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
