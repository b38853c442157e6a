"""Settings every test shares: subprocesses run this checkout's code.

The venv's editable install points at the checkout it was made in; a test run from
another checkout (a worktree sharing the venv) would otherwise start `sprayfabric`,
`softswitch` and `python -m ...` subprocesses on that other checkout's code."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_path = os.environ.get("PYTHONPATH", "")
if str(ROOT) not in _path.split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), _path) if p)
