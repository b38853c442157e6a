"""STF (p4c's Simple Test Framework) tests for softswitch, run like p4c's BMv2 runner.

The command types (`Add`, `Packet`, `Expect`, ...) live in `softswitch.stf.parser`.
"""

from __future__ import annotations

from .parser import Command, StfError, parse_stf, parse_stf_file
from .runner import StfResult, run_stf, run_stf_commands

__all__ = [
    "Command",
    "StfError",
    "StfResult",
    "parse_stf",
    "parse_stf_file",
    "run_stf",
    "run_stf_commands",
]
