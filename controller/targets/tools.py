"""Where the switch programs and compilers are, which target to use, and compiling a P4
program for a target (both run as commands: nothing here imports a target).

- softswitch: the `softswitch` console script next to this interpreter (the venv's), else
  on PATH, else `python -m softswitch.cli`; compiled with `softswitch compile`.
- BMv2: `simple_switch_grpc` and `p4c-bm2-ss` on PATH; picked automatically when both are
  there (`detect_target`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "TARGETS",
    "CompileError",
    "CompiledProgram",
    "Target",
    "bmv2_available",
    "compile_program",
    "detect_target",
    "softswitch_command",
]

Target = Literal["softswitch", "bmv2"]
TARGETS: tuple[Target, ...] = ("softswitch", "bmv2")


class CompileError(RuntimeError):
    """The compiler refused the program (its message, with file:line:col, is the text)."""


@dataclass(slots=True, frozen=True)
class CompiledProgram:
    """What a target needs for SetForwardingPipelineConfig."""

    target: Target
    p4info: Path
    device_config: Path


def softswitch_command() -> list[str]:
    """argv prefix that runs softswitch: the venv's console script, else PATH, else -m."""
    here = Path(sys.executable).with_name("softswitch")
    if here.exists():
        return [str(here)]
    found = shutil.which("softswitch")
    if found is not None:
        return [found]
    return [sys.executable, "-m", "softswitch.cli"]


def bmv2_available() -> bool:
    """Both BMv2 tools on PATH: `simple_switch_grpc` and `p4c-bm2-ss`."""
    return shutil.which("simple_switch_grpc") is not None and shutil.which("p4c-bm2-ss") is not None


def detect_target() -> Target:
    """ "bmv2" when its switch and compiler are on PATH, else "softswitch"."""
    return "bmv2" if bmv2_available() else "softswitch"


def compile_program(
    source: Path,
    out_dir: Path,
    target: Target = "softswitch",
    defines: Sequence[str] = (),
    include_dirs: Sequence[Path] = (),
    timeout: float = 600.0,
) -> CompiledProgram:
    """Compile `source` for `target` into `out_dir` (`<stem>.p4info.txtpb`, `<stem>.json`).

    `defines` are `NAME` or `NAME=VALUE` (as `-D`). Raises CompileError with the
    compiler's message, FileNotFoundError when the BMv2 compiler is missing."""
    out_dir.mkdir(parents=True, exist_ok=True)
    p4info = out_dir / f"{source.stem}.p4info.txtpb"
    config = out_dir / f"{source.stem}.json"
    flags = [f"-D{d}" for d in defines] + [f"-I{d}" for d in include_dirs]
    if target == "bmv2":
        p4c = shutil.which("p4c-bm2-ss")
        if p4c is None:
            raise FileNotFoundError("p4c-bm2-ss is not on PATH (BMv2 target)")
        cmd = [p4c, *flags, "--p4runtime-files", str(p4info), "-o", str(config), str(source)]
    elif target == "softswitch":
        cmd = [*softswitch_command(), "compile", str(source), "--p4info", str(p4info)]
        cmd += ["-o", str(config), *flags]
    else:
        raise ValueError(f"unknown target {target!r} (one of {', '.join(TARGETS)})")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise CompileError((done.stderr or done.stdout).strip() or f"exit {done.returncode}")
    return CompiledProgram(target, p4info, config)
