"""The marking a run asks of its switches: the DCTCP step (the default), none, or a
RED ramp, reaching every switch port as the controller encodes it (ecn_config), and
spelled on `sprayfabric sim run` as `fabric up` spells it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.lb import EcnRed, EcnStep
from controller.topology.generators import leaf_spine
from fabricsim.network import Network
from fabricsim.run import SimConfig, simulate
from softswitch.codegen.program import CompiledProgram
from sprayfabric.cli import main

TOPO = str(Path(__file__).resolve().parents[2] / "topologies" / "leaf-spine-2x2.yaml")


def test_the_config_names_one_marking_law() -> None:
    assert SimConfig().ecn == EcnStep(20)
    assert SimConfig(ecn_threshold=None).ecn is None
    red = EcnRed(8, 40, 51)
    assert SimConfig(ecn_red=red).ecn == red
    assert SimConfig(ecn_threshold=None, ecn_red=red).ecn == red
    with pytest.raises(ValueError, match="^ecn_threshold -1: a queue depth in packets"):
        SimConfig(ecn_threshold=-1)


def test_red_reaches_every_switch_port_as_mark_ecn_red(program: CompiledProgram) -> None:
    topo = leaf_spine(2, 2, 1)
    nets: list[Network] = []
    cfg = SimConfig(flow_bytes=3_000, ecn_red=EcnRed(8, 40, 51))
    simulate(topo, cfg, program=program, on_network=nets.append)
    for name, node in nets[0].switches.items():
        (table,) = (t for n, t in node.sw.tables.items() if n.endswith(".ecn_config"))
        wired = {link.port_of(name) for link in topo.links if name in (link.a, link.b)}
        wired |= {h.port for h in topo.hosts if h.switch == name}
        got = {
            e.matches[0].value: (e.action.split(".")[-1], e.args) for e in table.entries.values()
        }
        assert got == {port: ("mark_ecn_red", (8, 40, 51)) for port in wired}, name


def _marks(tmp_path: Path, *flags: str) -> int:
    out = tmp_path / "r.json"
    args = ["--workload", "incast", "--flow-bytes", "20000", *flags, "--json", str(out)]
    assert main(["sim", TOPO, *args]) == 0
    return int(json.loads(out.read_text())["ecn_marks"])


def test_ecn_flags_reach_the_switches(tmp_path: Path) -> None:
    """An incast's queue (15 packets at most): no marks with the marking off or at the
    default step (20); some above 8; more with a ramp that marks every packet meeting
    one queued packet or more."""
    assert _marks(tmp_path, "--ecn-step", "off") == 0 == _marks(tmp_path)
    step = _marks(tmp_path, "--ecn-step", "8")
    assert _marks(tmp_path, "--ecn-red", "0,1,0") > step > 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--ecn-red", "5,30"], "--ecn-red: '5,30': expected 3 numbers"),
        (["--ecn-red", "5,x,3"], "--ecn-red: '5,x,3': not a list of integers"),
        (["--ecn-red", "50,30,3"], "--ecn-red: ecn red: min_threshold 50 > max_threshold 30"),
        (["--ecn-red", "5,30,300"], "--ecn-red: ecn red max_probability: 300 > 256"),
        (["--ecn-red", "5,30,-1"], "--ecn-red: ecn red max_probability"),
        (["--ecn-step", "-3"], "--ecn-step: expected a queue depth in packets (0 or more) or off"),
        (["--ecn-step", "4", "--ecn-red", "1,2,3"], "--ecn-red: not allowed with argument"),
    ],
)
def test_ecn_flags_refuse_what_the_switch_cannot_do(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", TOPO, *args]) != 0
    err = capsys.readouterr().err
    assert says in err, err


def test_fct_lossless_dcqcn_marks_on_the_published_ramps_scaled_to_the_line_rate() -> None:
    """HPCC's evaluation: 100 kB to 400 kB per 25 Gb/s, 20%; at 100 Gb/s 400 kB / 1,500-byte
    frames = 266.7 and 1.6 MB / 1,500 = 1066.7 packets, 0.2 * 256 = 51.2. The DCQCN
    paper's 5 kB to 200 kB at 40 Gb/s, 1%: x2.5 = 12.5 kB (8.3 frames) and 500 kB (333.3),
    2.56/256. The step the '/lossless' DCQCN marked before stays as '-step'."""
    from fabricsim.experiments.fct import HPCC_DCQCN_RED, SIGCOMM15_DCQCN_RED, variants

    assert HPCC_DCQCN_RED.at(100e9) == EcnRed(267, 1067, 51)
    assert HPCC_DCQCN_RED.at(25e9) == EcnRed(67, 267, 51)
    assert SIGCOMM15_DCQCN_RED.at(100e9) == EcnRed(8, 333, 3)
    for quick in (True, False):
        v = variants(quick)
        assert v["dcqcn@0.5/lossless"].ecn == EcnRed(267, 1067, 51)
        assert v["dcqcn-sigcomm15@0.5/lossless"].ecn == EcnRed(8, 333, 3)
        assert v["dcqcn-step@0.5/lossless"].ecn == EcnStep(100)
        assert v["dctcp@0.5/lossless"].ecn == EcnStep(20) == v["dcqcn@0.5"].ecn
        # '/lossless-deep': the same ramp, with PFC above its K_min (24 packets below it on
        # '/lossless'), and queues that hold every port at XOFF (still lossless)
        deep = v["dcqcn@0.5/lossless-deep"]
        assert deep.ecn == EcnRed(267, 1067, 51)
        assert v["dcqcn@0.5/lossless"].net.pfc.xoff < 267 < deep.net.pfc.xoff
        assert deep.net.queue_depth >= 16 * deep.net.pfc.xoff
        assert v["hpcc@0.5/lossless-deep"].net == deep.net == v["dctcp@0.5/lossless-deep"].net
