"""Running the `sprayfabric` command from tests: one-shot subcommands, and waiting for a
background `up` to have its fabric running."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

EXE = [sys.executable, "-m", "sprayfabric"]  # this tree's, whatever the venv installed


def sf(cwd: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """`sprayfabric ARGS` in `cwd`; with `ok`, it must exit 0."""
    r = subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if ok:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def wait_ready(up: subprocess.Popen, log: Path, timeout: float = 120) -> None:  # type: ignore[type-arg]
    """Wait until the `up` process writing `log` says its fabric runs (it must not exit)."""
    deadline = time.monotonic() + timeout
    while "Ctrl-C stops the fabric" not in log.read_text():
        assert up.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
