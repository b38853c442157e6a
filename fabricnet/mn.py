"""Finding Mininet's Python package from the project's venv.

Debian's `mininet` package installs its Python code in the system's dist-packages
(/usr/lib/python3/dist-packages/mininet), which a venv does not see. Putting the whole
dist-packages folder on `sys.path` would also expose every other Debian Python package
(protobuf, grpc, scapy in other versions than the venv's), so only the `mininet` package
itself is loaded from there, by its path.

The checkout's own `mininet/` folder holds entry scripts and has no `__init__.py`: Python
may still import it as a namespace package when the checkout is on `sys.path` (pytest
puts it there). A namespace `mininet` is never taken for the real one.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["MininetMissing", "ensure_mininet", "mininet_missing_reason"]

# where Debian (and Ubuntu) put Mininet's Python package
_DIST_PACKAGES = (
    Path("/usr/lib/python3/dist-packages"),
    Path("/usr/local/lib/python3/dist-packages"),
)


# commands the runner needs, and the Debian package of each
_TOOLS = (
    ("mnexec", "mininet"),
    ("ip", "iproute2"),
    ("tc", "iproute2"),
    ("ethtool", "ethtool"),
    ("ping", "iputils-ping"),
    ("iperf3", "iperf3"),
)


class MininetMissing(Exception):
    """Mininet cannot run here; the message says why."""


def _is_real(module: object) -> bool:
    """A regular package (with an __init__.py), not a namespace portion."""
    return getattr(module, "__file__", None) is not None


def _find_package() -> Path | None:
    extra = os.environ.get("SPRAYFABRIC_MININET_PATH")
    roots = ([Path(extra)] if extra else []) + list(_DIST_PACKAGES)
    for root in roots:
        init = root / "mininet" / "__init__.py"
        if init.is_file() and (root / "mininet" / "net.py").is_file():
            return root / "mininet"
    return None


def ensure_mininet() -> None:
    """Make `import mininet.net` work: the venv's own Mininet if it has one, else Debian's
    package (only that package) loaded from dist-packages. Raises MininetMissing."""
    current = sys.modules.get("mininet")
    if current is not None and _is_real(current):
        return
    if current is not None:
        # a namespace portion (the checkout's mininet/ folder): drop it
        del sys.modules["mininet"]
    spec = importlib.util.find_spec("mininet")
    if spec is not None and spec.origin not in (None, "namespace"):
        importlib.import_module("mininet")
        return
    sys.modules.pop("mininet", None)
    pkg = _find_package()
    if pkg is None:
        raise MininetMissing(
            "Mininet's Python package is not installed (Debian: apt-get install mininet)"
        )
    spec = importlib.util.spec_from_file_location(
        "mininet", pkg / "__init__.py", submodule_search_locations=[str(pkg)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mininet"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["mininet"]
        raise


def mininet_missing_reason() -> str | None:
    """Why a Mininet network cannot be built here, or None if it can (root, Mininet's
    Python package, the commands the runner uses, and a network namespace)."""
    if os.geteuid() != 0:
        return "Mininet needs root"
    for tool, package in _TOOLS:
        if shutil.which(tool) is None:
            return f"{tool} not found on PATH (Debian: apt-get install {package})"
    try:
        ensure_mininet()
    except MininetMissing as e:
        return str(e)
    # a container may deny namespaces even to root: try one (it ends with the process)
    probe = subprocess.run(["mnexec", "-n", "true"], capture_output=True, text=True, timeout=10)
    if probe.returncode != 0:
        why = probe.stderr.strip() or f"exit status {probe.returncode}"
        return f"cannot create a network namespace here (mnexec -n: {why})"
    return None
