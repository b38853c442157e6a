"""`from softswitch import ...`: the curated public API."""

from __future__ import annotations

import subprocess
import sys

import softswitch
from tests.p4util import SKELETON

PROGRAM = SKELETON.format(
    decls="header h_t { bit<8> k; bit<8> v; }",
    meta="bit<8> unused;",
    headers="h_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    verify="apply { }",
    ingress="""
    action fwd(bit<9> port, bit<8> v) { sm.egress_spec = port; hdr.h.v = v; }
    table t { key = { hdr.h.k: lpm; } actions = { fwd; NoAction; } }
    apply { t.apply(); }
    """,
    egress="apply { }",
    compute="apply { }",
)


def test_every_public_name_resolves_to_its_definition() -> None:
    for name in softswitch.__all__:
        obj = getattr(softswitch, name)
        assert getattr(obj, "__name__", name) == name
    assert set(softswitch.__all__) <= set(dir(softswitch))
    assert sorted(softswitch.__all__) == sorted(softswitch._WHERE)


def test_a_program_runs_through_the_public_api() -> None:
    from softswitch import Lpm, SimClock, Switch, compile_text

    sw = Switch(compile_text(PROGRAM, "api.p4"), clock=SimClock())
    sw.tables["I.t"].add([Lpm(0x40, 2)], "I.fwd", (3, 0x99))
    assert sw.process(1, bytes([0x41, 0])) == [(3, bytes([0x41, 0x99]))]
    assert sw.process(1, bytes([0x81, 0])) == [(0, bytes([0x81, 0]))]  # miss: NoAction


def test_importing_the_package_loads_nothing_else() -> None:
    code = "import sys, softswitch; print(sorted(m for m in sys.modules if m.startswith('softswitch.')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"
