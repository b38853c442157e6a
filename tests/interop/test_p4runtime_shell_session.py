"""Interop: p4runtime-shell's session handling against a `softswitch --no-p4` subprocess:
`setup()` with no pipeline on the switch, primary/backup arbitration between the shell and
other clients made with p4runtime-shell's own `P4RuntimeClient`, and refused handshakes.

A module of its own, with its own switch and its own `setup()`/`teardown()` of the shell's
global client (see test_p4runtime_shell.py for the entity tests and the install notes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2

from p4rt_proto import p4runtime_pb2, p4runtime_pb2_grpc

from ._softswitch import SoftswitchProcess, compile_program

try:
    import p4runtime_sh.shell as sh
    from p4runtime_sh.p4runtime import P4RuntimeClient
except ImportError as e:  # pragma: no cover - depends on the environment
    pytest.skip(
        f"p4runtime-shell cannot be imported ({e}); install it with "
        "`pip install --no-deps p4runtime-shell==0.0.6 'ipython==7.31.*,>=7.31.1' "
        "jedi==0.17.2`",
        allow_module_level=True,
    )

PROGRAM = r"""
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> dst; }
struct H { h_t h; }
struct M {}
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t { key = { hdr.h.dst: exact; } actions = { fwd; NoAction; } default_action = NoAction(); }
    apply { t.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control CC(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _start(workdir: Path) -> SoftswitchProcess:
    sp = SoftswitchProcess(workdir)
    try:
        sp.wait_ready()
    except BaseException:
        sp.stop()
        raise
    return sp


def _stop(sp: SoftswitchProcess) -> None:
    code = sp.stop()
    assert code == 0, f"softswitch exited with {code} on SIGTERM:\n{sp.log()}"


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoftswitchProcess]:
    sp = _start(tmp_path_factory.mktemp("softswitch"))
    yield sp
    _stop(sp)


@pytest.fixture(scope="module")
def shell(switch: SoftswitchProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The shell as primary (election id 1) with PROGRAM pushed by its `setup()`."""
    p4info, config = compile_program(PROGRAM, tmp_path_factory.mktemp("pipeline"), "session")
    sh.global_options.reset()
    try:
        sh.setup(
            device_id=0,
            grpc_addr=switch.addr,
            election_id=(0, 1),
            config=sh.FwdPipeConfig(str(p4info), str(config)),
            verbose=False,
        )
    except SystemExit as e:
        pytest.fail(f"p4runtime_sh.shell.setup() exited ({e.code}); softswitch:\n{switch.log()}")
    try:
        yield sh
    finally:
        sh.global_options.reset()
        sh.teardown()


def _entry(dst: int) -> Any:
    te = sh.TableEntry("t")(action="fwd")
    te.match["hdr.h.dst"] = str(dst)
    te.action["port"] = "1"
    return te


def _count_entries(client: Any) -> int:
    entity = p4runtime_pb2.Entity()
    entity.table_entry.table_id = sh.TableEntry("t").id
    return sum(len(reply.entities) for reply in client.read_one(entity))


def _arbitration_code(client: Any) -> int | None:
    """The status code of the next arbitration update the client's stream got (None: none
    within 5 s)."""
    msg = client.get_stream_packet("arbitration", timeout=5)
    return None if msg is None else msg.arbitration.status.code


def test_setup_without_a_pipeline_exits(tmp_path: Path) -> None:
    """On a switch with no pipeline, `setup()` without a config cannot read a P4Info: the
    server says FAILED_PRECONDITION and p4runtime-shell exits."""
    saved = getattr(sh, "client", None)  # setup() replaces the shell's global client
    sp = _start(tmp_path)
    try:
        with grpc.insecure_channel(sp.addr) as channel:
            stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
            with pytest.raises(grpc.RpcError) as ei:
                stub.GetForwardingPipelineConfig(
                    p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=0), timeout=10
                )
            assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        with pytest.raises(SystemExit) as exited:
            sh.setup(device_id=0, grpc_addr=sp.addr, election_id=(0, 1), verbose=False)
        assert exited.value.code == 1
        assert sp.alive(), sp.log()
    finally:
        sh.client = saved
        _stop(sp)


def test_backup_client_reads_but_cannot_write(shell: Any, switch: SoftswitchProcess) -> None:
    _entry(1).insert()
    backup = P4RuntimeClient(0, switch.addr, (0, 0))  # a lower election id: backup
    try:
        assert _count_entries(backup) >= 1
        update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
        update.entity.table_entry.CopyFrom(_entry(2).msg())
        with pytest.raises(grpc.RpcError) as ei:  # not UNKNOWN: p4runtime-shell re-raises it
            backup.write_update(update)
        assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        backup.tear_down()
    _entry(1).delete()


def test_a_higher_election_id_takes_over_and_hands_back(
    shell: Any, switch: SoftswitchProcess
) -> None:
    # drain arbitration updates left from earlier clients
    while sh.client.get_stream_packet("arbitration", timeout=0.2) is not None:
        pass
    other = P4RuntimeClient(0, switch.addr, (0, 2))
    try:
        # the shell is told it is no longer primary, and its writes are refused
        assert _arbitration_code(sh.client) not in (None, code_pb2.OK)
        with pytest.raises(grpc.RpcError) as ei:
            _entry(3).insert()
        assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # the new primary writes; the shell still reads
        update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
        update.entity.table_entry.CopyFrom(_entry(4).msg())
        other.write_update(update)
        (e,) = list(sh.TableEntry("t").read())
        assert int.from_bytes(e.match["hdr.h.dst"].exact.value, "big") == 4
    finally:
        other.tear_down()
    # with the other client gone, the shell is primary again
    assert _arbitration_code(sh.client) == code_pb2.OK
    _entry(4).delete()
    assert list(sh.TableEntry("t").read()) == []


def test_refused_handshakes_exit(shell: Any, switch: SoftswitchProcess) -> None:
    """p4runtime-shell's client exits when the server refuses its arbitration: an election
    id already in use, or another device id."""
    with pytest.raises(SystemExit):
        P4RuntimeClient(0, switch.addr, (0, 1))  # the shell's own election id
    with pytest.raises(SystemExit):
        P4RuntimeClient(5, switch.addr, (0, 9))  # the switch is device 0
    # the shell's session is unaffected
    _entry(7).insert()
    _entry(7).delete()
