"""The P4Runtime bindings work in any interpreter of the venv with no preliminary import, and
the controller never imports the switch.

Each check runs in a fresh interpreter started outside the checkout, so nothing this test
session imported (and not the checkout on `sys.path`) can make it pass.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_plain_p4_imports_work_in_a_fresh_interpreter(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import p4.v1.p4runtime_pb2, p4.config.v1.p4info_pb2, p4.v1.p4runtime_pb2_grpc\n"
        "import p4.v1.p4data_pb2, p4.config.v1.p4types_pb2\n"
        "from google.protobuf.internal import api_implementation\n"
        "r = p4.v1.p4runtime_pb2.WriteRequest(device_id=7)\n"
        "r.updates.add().entity.table_entry.table_id = 33554433\n"
        "back = p4.v1.p4runtime_pb2.WriteRequest.FromString(r.SerializeToString())\n"
        "assert back.updates[0].entity.table_entry.table_id == 33554433, back\n"
        "assert hasattr(p4.v1.p4runtime_pb2_grpc, 'P4RuntimeStub')\n"
        "print(api_implementation.Type(), 'softswitch' in sys.modules, 'controller' in sys.modules)\n"
    )
    done = _run(code, tmp_path)
    assert done.returncode == 0, (
        f"{done.stderr}\n(is packaging/p4rt-proto-pth installed? `make venv` installs it)"
    )
    # the fast runtime, and neither project package was needed
    assert done.stdout.split() == ["upb", "False", "False"]


def test_pi_p4config_for_the_tutorials_p4runtime_lib(tmp_path: Path) -> None:
    """`from p4.tmp import p4config_pb2` (PI's BMv2 device config, imported by the p4lang
    tutorials' p4runtime_lib) works and encodes PI's wire format."""
    code = (
        "from p4.tmp import p4config_pb2\n"
        "c = p4config_pb2.P4DeviceConfig(reassign=True, device_data=b'{}')\n"
        "c.extras.kv['k'] = 'v'\n"
        "print(c.SerializeToString().hex())\n"
    )
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    # reassign (1, varint) = 1; extras (2) = {kv (1) = {key "k", value "v"}}; device_data (3)
    assert done.stdout.strip() == "0801" + "1208" + "0a06" + "0a016b120176" + "1a027b7d"


def test_p4runtime_shell_imports_with_no_preliminary_import(tmp_path: Path) -> None:
    pytest.importorskip("p4runtime_sh", reason="p4runtime-shell is not installed (make venv)")
    done = _run("import p4runtime_sh.shell as sh; print(sh.TableEntry.__name__)", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "TableEntry"


def test_controller_does_not_import_softswitch(tmp_path: Path) -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import controller\n"
        "for m in pkgutil.walk_packages(controller.__path__, 'controller.'):\n"
        "    if not m.name.endswith('.__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] == 'softswitch'))\n"
    )
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_old_softswitch_module_is_the_same_bindings() -> None:
    import p4rt_proto
    from softswitch import _proto

    assert _proto.p4runtime_pb2 is p4rt_proto.p4runtime_pb2
    assert _proto.install is p4rt_proto.install
