"""Loading Mininet's Python package from outside the venv without taking the checkout's
`mininet/` folder (entry scripts, no __init__.py) for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import sys
sys.path.insert(0, {root!r})
import mininet
print("plain import:", getattr(mininet, "__file__", None))
from fabricnet.mn import ensure_mininet
ensure_mininet()
import mininet.net
print("after ensure:", mininet.net.__file__)
print("marker:", getattr(mininet.net, "MARKER", "-"))
"""


def _probe(env: dict[str, str]) -> list[str]:
    got = subprocess.run(
        [sys.executable, "-c", _PROBE.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert got.returncode == 0, got.stderr
    return got.stdout.splitlines()


def test_the_checkout_folder_is_not_taken_for_mininet(tmp_path: Path) -> None:
    pkg = tmp_path / "mininet"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "net.py").write_text("MARKER = 'the real one'\n")
    env = dict(os.environ, SPRAYFABRIC_MININET_PATH=str(tmp_path))
    lines = _probe(env)
    # with the checkout on sys.path, a plain import finds only the namespace folder
    assert lines[0] == "plain import: None"
    assert lines[1] == f"after ensure: {pkg / 'net.py'}"
    assert lines[2] == "marker: the real one"


@pytest.mark.skipif(
    not Path("/usr/lib/python3/dist-packages/mininet/net.py").exists(),
    reason="Debian's mininet package is not installed",
)
def test_debians_package_is_found() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SPRAYFABRIC_MININET_PATH"}
    lines = _probe(env)
    assert lines[1] == "after ensure: /usr/lib/python3/dist-packages/mininet/net.py"
