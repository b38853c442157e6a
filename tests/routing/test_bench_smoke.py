"""The routing benchmark runs on small fabrics and prints one row per fabric (the\n`sprayfabric routes` runs it also times are covered by tests/cli)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_routing_bench_small() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.routing_bench", "--sizes", "4", "--planes-k", "2", "--skip-cli"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {line.split("  ")[0].strip(): line.split() for line in done.stdout.splitlines()}
    k4 = rows["fat-tree k=4"]
    assert k4[2:7] == ["20", "16", "4", "64", "168"]  # switches, NICs, classes, groups, entries
    assert "fat-tree k=2 x 4 planes" in rows
    assert "peak RSS after importing" in done.stdout
