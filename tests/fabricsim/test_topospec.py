"""fabricsim.experiments.topospec: the topology specs an experiment can run on."""

from __future__ import annotations

import pytest

from fabricsim.experiments import load_spec


def test_generated_shapes() -> None:
    ft = load_spec("fat-tree:4")
    assert (len(ft.hosts), len(ft.switches)) == (16, 20)
    ls = load_spec("leaf-spine:3x2x5")
    assert len(ls.hosts) == 15 and len(ls.switches) == 5 and len(ls.links) == 6
    two = load_spec("fat-tree:4:planes=2")
    assert two.planes == (0, 1) and len(two.hosts) == 32 and len(two.servers()) == 16


def test_files_by_name_and_cached() -> None:
    t = load_spec("leaf-spine-4x4.yaml")
    assert len(t.hosts) == 16
    assert load_spec("leaf-spine-4x4.yaml") is t  # built once per process


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fat-tree:5", "k must be an even integer"),
        ("fat-tree:x", "k 'x' is not an integer"),
        ("leaf-spine:2x2", "LEAVESxSPINESxHOSTS_PER_LEAF"),
        ("leaf-spine:2x2x2:lanes=2", "unknown option 'lanes=2'"),
        ("no-such.yaml", "not a file; give a file under topologies/"),
    ],
)
def test_bad_specs_say_why(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_spec(spec)
