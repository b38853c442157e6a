"""Where the switch programs and compilers are, which target to use, and compiling a P4
program for a target (both run as commands: nothing here imports a target).

- softswitch: the `softswitch` console script next to this interpreter (the venv's), else
  on PATH, else `python -m softswitch.cli`; compiled with `softswitch compile`.
- BMv2: `simple_switch_grpc` and `p4c-bm2-ss` on PATH; picked automatically when both are
  there (`detect_target`).
"""

from __future__ import annotations

import hashlib
import os
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
    "default_cache_dir",
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


def default_cache_dir() -> Path:
    """Where compiled programs are kept between runs: `$XDG_CACHE_HOME/sprayfabric/p4c`
    (default `~/.cache/sprayfabric/p4c`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sprayfabric" / "p4c"


def _cache_key(
    compiler: str, flags: Sequence[str], source: Path, include_dirs: Sequence[Path]
) -> str:
    """A digest of everything the output depends on: the compiler (its path and what
    `--version` says), the flags, the source's name and every file under its folder and
    the include folders (a changed header changes the key)."""
    h = hashlib.sha256()
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60)
    h.update(f"{compiler}\0{version.stdout}\0{source.name}\0".encode())
    h.update("\0".join(flags).encode())
    for root in (source.parent, *include_dirs):
        for f in sorted(p for p in Path(root).rglob("*") if p.is_file()):
            h.update(f"\0{f.relative_to(root)}\0".encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:32]


def compile_program(
    source: Path,
    out_dir: Path,
    target: Target = "softswitch",
    defines: Sequence[str] = (),
    include_dirs: Sequence[Path] = (),
    timeout: float = 600.0,
    cache_dir: Path | None = None,
) -> CompiledProgram:
    """Compile `source` for `target` into `out_dir` (`<stem>.p4info.txtpb`, `<stem>.json`).

    `defines` are `NAME` or `NAME=VALUE` (as `-D`). With `cache_dir` (BMv2 only, whose
    compiler is slow: about a minute for fabric.p4), the output is kept there under a digest
    of the compiler and the sources, and a later call with the same content copies it
    instead of compiling. Raises CompileError with the compiler's message,
    FileNotFoundError when the BMv2 compiler is missing."""
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
        cache_dir = None  # the compiler is this project's code: no version to key on
    else:
        raise ValueError(f"unknown target {target!r} (one of {', '.join(TARGETS)})")
    cached: Path | None = None
    if cache_dir is not None:
        cached = cache_dir / _cache_key(cmd[0], flags, source.resolve(), include_dirs)
        if (cached / p4info.name).is_file() and (cached / config.name).is_file():
            shutil.copyfile(cached / p4info.name, p4info)
            shutil.copyfile(cached / config.name, config)
            return CompiledProgram(target, p4info, config)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise CompileError((done.stderr or done.stdout).strip() or f"exit {done.returncode}")
    if cached is not None:
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p4info, tmp / p4info.name)
        shutil.copyfile(config, tmp / config.name)
        try:
            tmp.rename(cached)  # whole or not at all; a concurrent run may have won
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    return CompiledProgram(target, p4info, config)
