"""Differential testing of softswitch against BMv2 `simple_switch` (see `__main__` for the
command line): the same program and STF commands (or pcap packets) on both, each port's
packets compared byte for byte; a fuzzer adds mutated packets."""

from __future__ import annotations

from .bmv2 import Bmv2Error, Bmv2Run, Bmv2Tools, compile_bmv2, run_on_bmv2
from .compare import AGREE, DIFFER, EXCLUDED, REFUSED, Case, Differ, Outcome, compare_outputs
from .fuzz import fuzz_commands, mutate
from .stf_cli import CliTranslator, Untranslatable

__all__ = [
    "AGREE",
    "DIFFER",
    "EXCLUDED",
    "REFUSED",
    "Bmv2Error",
    "Bmv2Run",
    "Bmv2Tools",
    "Case",
    "CliTranslator",
    "Differ",
    "Outcome",
    "Untranslatable",
    "compare_outputs",
    "compile_bmv2",
    "fuzz_commands",
    "mutate",
    "run_on_bmv2",
]
