"""`up --target tofino|tofino2` against fake P4Runtime servers: what each switch is sent
(the pipeline: P4Info and bf-p4c's files packed as Stratum reads them; the entries: the
same intents as on BMv2, with the TNA build's mirror sessions), what `status` reads back
and `down` forgets, and the errors for wrong inputs."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from google.protobuf import text_format

from controller import P4Schema, codec
from controller.entities import CloneSession, Replica, TableEntry
from controller.fabric import FabricError
from controller.fabric.core import DesiredCache, ReportRoute, desired_state
from controller.fabric.tofino import TofinoRun, read_back
from controller.fabric.tofino_files import TofinoRecord, load_bf_program, load_switches
from controller.fabric.up import run_down
from controller.lb import FabricEncoder, Policy
from controller.lb.policy import Cnp, GroupMode, Trim
from controller.targets.tofino import BfPipeline, unpack_device_config
from controller.topology import Topology
from p4rt_proto import p4info_pb2

from .conftest import BINARY, make_bf_out
from .fake_p4runtime import FakeP4Runtime

CNP_ADAPTIVE = Policy(cnp=Cnp(queue_threshold=40, interval_us=50, dscp=48)).with_mode(
    GroupMode("adaptive")
)


def _run(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path | None,
    target: str = "tofino",
    policy: Policy | None = None,
) -> TofinoRun:
    return TofinoRun(
        topo,
        workdir=tmp_path / "work",
        target=target,
        switches=load_switches(switches_file, topo),
        program=load_bf_program(bf_out, target),
        policy=policy,
        connect_timeout=3.0,
    )


def _ports(topo: Topology, switch: str) -> list[int]:
    return sorted(
        p
        for lk in topo.all_links()
        for n, p in ((lk.a, lk.a_port), (lk.b, lk.b_port))
        if n == switch
    )


def _sessions(fake: FakeP4Runtime, schema: P4Schema) -> dict[int, CloneSession]:
    out = {}
    for m in fake.written():
        e = codec.decode_entity(schema, m)
        if isinstance(e, CloneSession):
            out[e.session_id] = e
    return out


@pytest.mark.parametrize("target", ["tofino", "tofino2"])
def test_up_pushes_the_bf_output_and_the_tna_sessions(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
    p4info: p4info_pb2.P4Info,
    target: str,
) -> None:
    binary = "tofino.bin" if target == "tofino" else "tofino2.bin"
    (bf_out / "pipe" / "tofino.bin").rename(bf_out / "pipe" / binary)
    run = _run(topo, tmp_path, bf_out, switches_file, target, CNP_ADAPTIVE)
    run.start(control=False)
    try:
        schema = P4Schema(p4info)
        for name, fake in fakes.items():
            (req,) = fake.pipeline_requests
            assert req.device_id == 1
            assert req.action == req.VERIFY_AND_COMMIT
            assert req.config.p4info == p4info
            got = unpack_device_config(req.config.p4_device_config)
            context = (bf_out / "pipe" / "context.json").read_bytes()
            assert got == BfPipeline("fabric_tna", BINARY, context)
            ports = _ports(topo, name)
            sessions = _sessions(fake, schema)
            if target == "tofino":  # 512 + port, cut to 74 bytes; depth reports to 68
                want = {
                    512 + p: CloneSession(512 + p, (Replica(p),), packet_length_bytes=74)
                    for p in ports
                }
            else:  # 128 + the port's low 7 bits, uncut
                want = {128 | p: CloneSession(128 | p, (Replica(p),)) for p in ports}
            want[2] = CloneSession(2, (Replica(68),), packet_length_bytes=64)
            assert sessions == want
    finally:
        run.stop()


def test_table_entries_are_the_ones_written_for_bmv2(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
    p4info: p4info_pb2.P4Info,
) -> None:
    run = _run(topo, tmp_path, bf_out, switches_file, "tofino", CNP_ADAPTIVE)
    run.start(control=False)
    run.stop()
    schema = P4Schema(p4info)
    v1 = FabricEncoder(schema)  # the v1model build's constants, as for bmv2/softswitch
    bmv2 = desired_state(
        topo, CNP_ADAPTIVE, [], DesiredCache(), lambda _n: v1, lambda _n: ReportRoute()
    )
    for name, fake in fakes.items():
        wrote = [codec.decode_entity(schema, m) for m in fake.written()]
        tables = [e for e in wrote if isinstance(e, TableEntry)]
        want = [e for e in bmv2[name] if isinstance(e, TableEntry)]
        assert len(tables) == len(want) > 0
        assert {
            codec.encode_entity(schema, e).SerializeToString(deterministic=True) for e in tables
        } == {codec.encode_entity(schema, e).SerializeToString(deterministic=True) for e in want}


def test_status_reads_back_and_down_forgets(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = _run(topo, tmp_path, bf_out, switches_file)
    run.start(control=False)
    held = {  # what a wildcard read returns: every entry but the tables' defaults
        n: sum(1 for e in sw.desired if not (isinstance(e, TableEntry) and e.is_default))
        for n, sw in run.sessions.switches.items()  # type: ignore[union-attr]
    }
    run.stop()
    record = TofinoRecord.load(tmp_path / "work" / "tofino.json")
    assert {s.name: s.address for s in record.switches} == {n: f.address for n, f in fakes.items()}
    got = read_back(record)
    assert {n: r["pipeline"] for n, r in got.items()} == dict.fromkeys(fakes, "ours")
    assert {n: sum(r["entries"].values()) for n, r in got.items()} == held
    # a switch that was reprogrammed behind our back, and one that went away
    fakes["leaf1"].config.cookie.cookie ^= 1  # type: ignore[union-attr]
    fakes["spine2"].stop()
    got = read_back(record, timeout=1.0)
    assert got["leaf1"]["pipeline"] == "other" and got["leaf1"]["entries"] == {}
    assert "UNAVAILABLE" in got["spine2"]["error"]
    assert run_down(tmp_path / "work") == 0
    assert "forgot the Tofino fabric" in capsys.readouterr().out
    assert not (tmp_path / "work" / "tofino.json").exists()


def test_a_second_start_writes_nothing(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
) -> None:
    writes = []
    for _ in range(2):
        run = _run(topo, tmp_path, bf_out, switches_file)
        run.start(control=False)
        run.stop()
        writes.append({n: len(f.write_requests) for n, f in fakes.items()})
    assert all(n > 0 for n in writes[0].values())
    assert writes[1] == writes[0]  # the switches hold it all: read back, nothing written
    for fake in fakes.values():
        assert len(fake.pipeline_requests) == 1  # same cookie: not pushed again


def test_link_down_rewrites_the_tofino_switches(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
) -> None:
    run = _run(topo, tmp_path, bf_out, switches_file)
    run.start(control=False)
    try:
        before = {n: len(f.write_requests) for n, f in fakes.items()}
        out = run.set_link("leaf1", "spine1", up=False)
        assert out["fast_groups"] > 0
        assert len(fakes["leaf1"].write_requests) > before["leaf1"]
    finally:
        run.stop()


def test_a_restarted_switch_gets_pipeline_and_entries_again(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
) -> None:
    """bf_switchd restarted on a box: its P4Runtime server comes back empty on the same
    address, and the watcher pushes the pipeline and every entry again."""
    run = TofinoRun(
        topo,
        workdir=tmp_path / "work",
        target="tofino",
        switches=load_switches(switches_file, topo),
        program=load_bf_program(bf_out, "tofino"),
        watch_interval=0.1,
        connect_timeout=3.0,
    )
    run.start(control=False)
    try:
        assert run.sessions is not None
        before = run.sessions["leaf2"].counts.restores
        old = fakes["leaf2"]
        port = int(old.address.rsplit(":", 1)[1])
        old.stop()
        new = fakes["leaf2"] = FakeP4Runtime(device_id=1)
        new.start(port)
        assert run.sessions.wait_restored("leaf2", before, 30.0)
        assert len(new.pipeline_requests) == 1
        assert len(new.store) == len(run.sessions["leaf2"].desired)
    finally:
        run.stop()


# ---------------------------------------------------------------- errors
def test_unreachable_switch_is_named_with_its_status(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
) -> None:
    fakes["spine1"].stop()
    run = _run(topo, tmp_path, bf_out, switches_file)
    with pytest.raises(FabricError) as err:
        run.start(control=False)
    assert "spine1: connect: UNAVAILABLE" in str(err.value)
    assert "leaf1" not in str(err.value)
    assert not (tmp_path / "work" / "tofino.json").exists()


def test_a_refused_pipeline_shows_the_switchs_status(
    topo: Topology,
    tmp_path: Path,
    bf_out: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
) -> None:
    fakes["leaf2"].refuse_pipeline = (grpc.StatusCode.INVALID_ARGUMENT, "bad context.json")
    run = _run(topo, tmp_path, bf_out, switches_file)
    with pytest.raises(FabricError, match="leaf2: SetForwardingPipelineConfig: INVALID_ARGUMENT"):
        run.start(control=False)


def test_missing_bf_output_files(tmp_path: Path, p4info: p4info_pb2.P4Info) -> None:
    out = make_bf_out(tmp_path, p4info, binary="tofino2.bin")
    with pytest.raises(ValueError, match="no tofino.bin for target tofino.*other chip"):
        load_bf_program(out, "tofino")
    (out / "pipe" / "context.json").unlink()
    with pytest.raises(ValueError, match="no context.json"):
        load_bf_program(out, "tofino2")
    with pytest.raises(ValueError, match="no such directory"):
        load_bf_program(tmp_path / "nowhere", "tofino")
    (out / "p4info.txt").unlink()
    (out / "pipe" / "context.json").write_text("{}")
    with pytest.raises(ValueError, match="expected one P4Info file.*found none"):
        load_bf_program(out, "tofino2")


def test_p4info_not_matching_context_json(tmp_path: Path, p4info: p4info_pb2.P4Info) -> None:
    other = p4info_pb2.P4Info()
    other.CopyFrom(p4info)
    other.tables.add().preamble.name = "SomeOtherIngress.forward"
    out = make_bf_out(tmp_path, p4info)
    info = tmp_path / "other.p4info.txt"
    info.write_text(text_format.MessageToString(other))
    with pytest.raises(ValueError, match="P4Info mismatch.*SomeOtherIngress.forward"):
        load_bf_program(out, "tofino", p4info=info)


def test_p4info_without_a_table_the_fabric_writes(
    topo: Topology, tmp_path: Path, p4info: p4info_pb2.P4Info, switches_file: Path
) -> None:
    """Tofino 1's P4Info has no trim_config: a trimming policy fails before any switch
    is contacted."""
    t1 = p4info_pb2.P4Info()
    t1.CopyFrom(p4info)
    keep = [t for t in t1.tables if not t.preamble.name.endswith("trim_config")]
    del t1.tables[:]
    t1.tables.extend(keep)
    out = make_bf_out(tmp_path, t1)
    run = _run(topo, tmp_path, out, switches_file, "tofino", Policy(trim=Trim(queue_threshold=8)))
    with pytest.raises(ValueError, match="P4Info mismatch.*trim_config"):
        run.start(control=False)


def test_switches_file_must_name_every_switch(topo: Topology, tmp_path: Path) -> None:
    path = tmp_path / "switches.yaml"
    path.write_text(
        "leaf1: {address: '10.0.0.1:9559', device_id: 1}\nbox9: {address: x, device_id: 1}\n"
    )
    with pytest.raises(
        ValueError, match="not in the topology: box9; missing: leaf2, spine1, spine2"
    ):
        load_switches(path, topo)
    names = [s.name for s in topo.switches]
    path.write_text("\n".join(f"{n}: {{address: '10.0.0.1:9559'}}" for n in names))
    with pytest.raises(ValueError, match="switch leaf1: needs address .* and device_id"):
        load_switches(path, topo)
    path.write_text(
        "\n".join(f"{n}: {{address: '10.0.0.{i}:9559', device_id: 1}}" for i, n in enumerate(names))
    )
    got = load_switches(path, topo)
    assert got["spine1"].address == "10.0.0.2:9559" and got["spine1"].device_id == 1
    # no file: the topology's own addresses
    assert load_switches(None, topo)["leaf2"].address == topo.switch("leaf2").grpc_addr


# ---------------------------------------------------------------- the real TNA P4Info
@pytest.mark.skipif(
    shutil.which("p4test") is None or not os.environ.get("TNA_INCLUDE"),
    reason="needs p4test on PATH and TNA_INCLUDE (the directory holding tna.p4, t2na.p4)",
)
@pytest.mark.parametrize("target", ["tofino", "tofino2"])
def test_the_tna_p4info_takes_the_fabric(
    topo: Topology,
    tmp_path: Path,
    switches_file: Path,
    fakes: dict[str, FakeP4Runtime],
    target: str,
) -> None:
    """fabric_tna's own P4Info (p4test's; bf-p4c's names the same tables) holds every
    entry of a CNP + adaptive fabric, and trimming on Tofino 2."""
    chip = "1" if target == "tofino" else "2"
    info_file = tmp_path / "tna.p4info.txt"
    tna = Path(__file__).resolve().parents[2] / "p4src" / "tna" / "fabric_tna.p4"
    run = subprocess.run(
        ["p4test", "--std", "p4-16", "-I", os.environ["TNA_INCLUDE"]]
        + [f"-D__TARGET_TOFINO__={chip}", str(tna), "--p4runtime-files", str(info_file)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    info = p4info_pb2.P4Info()
    text_format.Parse(info_file.read_text(), info)
    binary = "tofino.bin" if target == "tofino" else "tofino2.bin"
    out = make_bf_out(tmp_path, info, binary=binary)
    policy = CNP_ADAPTIVE if target == "tofino" else replace(CNP_ADAPTIVE, trim=Trim(8))
    fabric = _run(topo, tmp_path, out, switches_file, target, policy)
    fabric.start(control=False)
    fabric.stop()
    schema = P4Schema(info)
    names = {
        e.table
        for f in fakes.values()
        for e in (codec.decode_entity(schema, m) for m in f.written())
        if isinstance(e, TableEntry)
    }
    assert {"next_hop_group", "next_hop_member", "cnp_config"} <= {n.split(".")[-1] for n in names}
    assert ("trim_config" in {n.split(".")[-1] for n in names}) == (target == "tofino2")
    assert all(f.pipeline_requests[0].config.p4info == info for f in fakes.values())
