"""Switch processes and compilers, for tests, benchmarks, the PTF runner, Mininet and
`sprayfabric up`: one way to start `softswitch` or `simple_switch_grpc`, know it is ready
(its PID alive and its gRPC port answering) and stop it by PID. Targets are commands run
here; nothing imports a target's Python code."""

from .ledger import LedgerBusy, ProcessLedger, RecordedProcess, process_id, stop_recorded
from .process import SwitchProcess, SwitchSpec, SwitchStartError, free_port, in_netns, stop_pid
from .tools import (
    TARGETS,
    CompiledProgram,
    CompileError,
    Target,
    bmv2_available,
    compile_program,
    default_cache_dir,
    detect_target,
    softswitch_command,
)

__all__ = [
    "TARGETS",
    "CompileError",
    "CompiledProgram",
    "LedgerBusy",
    "ProcessLedger",
    "RecordedProcess",
    "SwitchProcess",
    "SwitchSpec",
    "SwitchStartError",
    "Target",
    "bmv2_available",
    "compile_program",
    "default_cache_dir",
    "detect_target",
    "free_port",
    "in_netns",
    "process_id",
    "softswitch_command",
    "stop_pid",
    "stop_recorded",
]
