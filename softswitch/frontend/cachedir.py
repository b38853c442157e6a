"""The one directory softswitch caches in (the parser's grammar analysis, compiled
programs); here, below every other layer, so both can use it without importing lark."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """Where softswitch keeps what it can rebuild: $SOFTSWITCH_CACHE_DIR, else
    $XDG_CACHE_HOME/softswitch, else ~/.cache/softswitch."""
    env = os.environ.get("SOFTSWITCH_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "softswitch"
