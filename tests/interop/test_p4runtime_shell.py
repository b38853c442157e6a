"""Interop: p4runtime-shell (the P4 API working group's P4Runtime client, `p4runtime_sh`)
driving a `softswitch --no-p4` subprocess over gRPC on loopback.

The module starts one softswitch, pushes a pipeline of our own (compiled here by
`softswitch compile`) with p4runtime-shell's `setup(config=FwdPipeConfig(...))`, then writes
and reads every kind of entity through p4runtime-shell's API: table entries (exact, LPM,
ternary, default entries, one-shot), action-profile members and groups, indirect and
direct counters, registers (through the shell's client: p4runtime-shell 0.0.6 has no
RegisterEntry), multicast groups and clone sessions, plus the write errors it turns into
`P4RuntimeWriteException`.

p4runtime-shell keeps its connection in module globals (`shell.client`, `shell.context`),
so this module does one `setup()` and one `teardown()`; each test starts from an emptied
switch (the `clean` fixture), so the tests can run in any order or on any xdist worker.

p4runtime-shell 0.0.6 pins protobuf 3.20 and p4runtime 1.4.1, which we do not install:
it goes in with `pip install --no-deps p4runtime-shell==0.0.6` plus its other
dependencies (ipython 7.31, jedi 0.17.2); its `p4.v1` imports then load through the venv's
`p4rt_proto` import hook (installed at start-up by a `.pth`), with no preliminary import.

One fix is patched into p4runtime-shell for this module (`_next_error`): 0.0.6 loops
forever decoding the error of a batch in which some updates succeeded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.rpc import code_pb2

from p4rt_proto import p4runtime_pb2

from ._softswitch import SoftswitchProcess, compile_program

try:
    import p4runtime_sh.shell as sh
    from p4runtime_sh.p4runtime import (
        P4RuntimeErrorFormatException,
        P4RuntimeErrorIterator,
        P4RuntimeException,
        P4RuntimeWriteException,
    )
except ImportError as e:  # pragma: no cover - depends on the environment
    pytest.skip(
        f"p4runtime-shell cannot be imported ({e}); install it with "
        "`pip install --no-deps p4runtime-shell==0.0.6 'ipython==7.31.*,>=7.31.1' "
        "jedi==0.17.2`",
        allow_module_level=True,
    )

# Ethernet + IPv4, and one of each thing p4runtime-shell can program.
PROGRAM = r"""
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src; bit<32> dst;
}
struct headers_t { ethernet_t eth; ipv4_t ipv4; }
struct metadata_t { bit<16> flow; }

parser P(packet_in pkt, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control VC(inout headers_t hdr, inout metadata_t meta) { apply {} }

control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) acl_counter;
    counter(32, CounterType.packets_and_bytes) port_counter;
    register<bit<32>>(64) flow_reg;
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) ecmp_selector;

    action drop() { mark_to_drop(sm); }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    action set_nhop(bit<48> dmac, bit<9> port) { hdr.eth.dst = dmac; sm.egress_spec = port; }
    action set_flow(bit<16> flow) { meta.flow = flow; }

    table mac_exact {
        key = { hdr.eth.dst: exact; }
        actions = { set_port; drop; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dst: lpm; }
        actions = { set_nhop; set_flow; drop; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    table acl {
        key = { hdr.ipv4.src: ternary; hdr.ipv4.protocol: ternary; }
        actions = { drop; set_port; NoAction; }
        default_action = NoAction();
        counters = acl_counter;
        size = 64;
    }
    table ecmp {
        key = { meta.flow: exact; hdr.ipv4.src: selector; hdr.ipv4.dst: selector; }
        actions = { set_nhop; drop; }
        implementation = ecmp_selector;
        size = 64;
    }

    apply {
        mac_exact.apply();
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            acl.apply();
            ecmp.apply();
            flow_reg.write((bit<32>)meta.flow, hdr.ipv4.src);
        }
        port_counter.count((bit<32>)sm.ingress_port);
    }
}

control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers_t hdr, inout metadata_t meta) { apply {} }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

TABLES = ("mac_exact", "ipv4_lpm", "acl", "ecmp")
DIRECT_TABLES = ("mac_exact", "ipv4_lpm", "acl")  # default action writable (no profile)
SELECTOR = "ecmp_selector"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoftswitchProcess]:
    """A `softswitch --no-p4` subprocess, ready; stopped by PID with SIGTERM, exit 0."""
    sp = SoftswitchProcess(tmp_path_factory.mktemp("softswitch"))
    try:
        sp.wait_ready()
    except BaseException:
        sp.stop()
        raise
    yield sp
    code = sp.stop()
    assert code == 0, f"softswitch exited with {code} on SIGTERM:\n{sp.log()}"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(P4Info text file, device config) from `softswitch compile` of PROGRAM."""
    return compile_program(PROGRAM, tmp_path_factory.mktemp("pipeline"), "interop")


def _next_error(self: Any) -> tuple[int, Any]:
    """P4RuntimeErrorIterator.__next__ without p4runtime-shell 0.0.6's infinite loop: its
    own skips an OK entry of a failed batch's error details without moving past it, so a
    batch in which some updates succeed would hang the test run instead of failing it."""
    while self.idx < len(self.errors):
        p4_error = p4runtime_pb2.Error()
        if not self.errors[self.idx].Unpack(p4_error):
            raise P4RuntimeErrorFormatException("Cannot convert Any message to p4.Error")
        self.idx += 1
        if p4_error.canonical_code != code_pb2.OK:
            return self.idx - 1, p4_error
    raise StopIteration


@pytest.fixture(scope="module")
def shell(switch: SoftswitchProcess, pipeline: tuple[Path, Path]) -> Iterator[Any]:
    """p4runtime-shell connected as primary, with our pipeline pushed by its `setup()`."""
    p4info_path, config_path = pipeline
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P4RuntimeErrorIterator, "__next__", _next_error)
        sh.global_options.reset()
        try:
            sh.setup(
                device_id=0,
                grpc_addr=switch.addr,
                election_id=(0, 1),
                config=sh.FwdPipeConfig(str(p4info_path), str(config_path)),
                verbose=False,
            )
        except SystemExit as e:  # p4runtime-shell exits on a failed setup
            pytest.fail(
                f"p4runtime_sh.shell.setup() exited ({e.code}); softswitch:\n{switch.log()}"
            )
        try:
            yield sh
        finally:
            sh.global_options.reset()
            sh.teardown()


def _clear_switch() -> None:
    """Delete every entry, group, member and replication entry; reset default actions."""
    for t in TABLES:
        sh.TableEntry(t).read(lambda e: e.delete())
    for t in DIRECT_TABLES:
        sh.TableEntry(t)(action="NoAction", is_default=True).modify()
    sh.ActionProfileGroup(SELECTOR).read(lambda g: g.delete())
    sh.ActionProfileMember(SELECTOR).read(lambda m: m.delete())
    sh.MulticastGroupEntry().read(lambda g: g.delete())
    sh.CloneSessionEntry().read(lambda s: s.delete())


@pytest.fixture
def clean(shell: Any) -> Any:
    """The shell, on a switch with no entries (whatever an earlier test left)."""
    sh.global_options["canonical_bytestrings"] = True
    _clear_switch()
    return shell


# ---------------------------------------------------------------- helpers


def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def _params(action: Any) -> dict[str, int]:
    """An Action read back by p4runtime-shell, as {param name: int}."""
    return {name: _int(p.value) for name, p in action._param_values.items()}


def _write_error_codes(excinfo: pytest.ExceptionInfo[P4RuntimeWriteException]) -> list[int]:
    return [err.canonical_code for _, err in excinfo.value.errors]


def _mac_entry(mac: str, port: int) -> Any:
    te = sh.TableEntry("mac_exact")(action="set_port")
    te.match["hdr.eth.dst"] = mac
    te.action["port"] = str(port)
    return te


def _acl_entry(src: str, proto: str, priority: int) -> Any:
    te = sh.TableEntry("acl")(action="set_port")
    te.match["hdr.ipv4.src"] = src
    te.match["hdr.ipv4.protocol"] = proto
    te.action["port"] = "2"
    te.priority = priority
    return te


def _member(member_id: int, mac: str, port: int) -> Any:
    m = sh.ActionProfileMember(SELECTOR)(member_id=member_id, action="set_nhop")
    m.action["dmac"] = mac
    m.action["port"] = str(port)
    return m


# ---------------------------------------------------------------- tests


def test_setup_pushed_our_pipeline(clean: Any, pipeline: tuple[Path, Path]) -> None:
    from google.protobuf import text_format

    from p4rt_proto import p4info_pb2

    assert sh.APIVersion().startswith("1.")
    expected = p4info_pb2.P4Info()
    text_format.Parse(pipeline[0].read_text(), expected)
    served = sh.client.get_p4info()
    assert served == expected  # GetForwardingPipelineConfig gives back what setup() sent
    assert {t.preamble.alias for t in served.tables} == set(TABLES)
    # the shell resolved names from it
    assert sh.TableEntry("acl").info().preamble.name == "I.acl"
    assert sh.CounterEntry("port_counter").info().size == 32
    assert sh.DirectCounterEntry("acl_counter").info().direct_table_id == sh.TableEntry("acl").id


def test_exact_entry_insert_read_modify_delete(clean: Any) -> None:
    _mac_entry("00:11:22:33:44:55", 3).insert()
    _mac_entry("00:11:22:33:44:66", 4).insert()

    got = {_int(e.match["hdr.eth.dst"].exact.value): e for e in sh.TableEntry("mac_exact").read()}
    assert set(got) == {0x001122334455, 0x001122334466}
    e = got[0x001122334455]
    assert e.action.action_name == "I.set_port"
    assert _params(e.action) == {"port": 3}
    assert e.priority == 0 and not e.is_default

    te = _mac_entry("00:11:22:33:44:55", 7)
    te.modify()
    key = sh.TableEntry("mac_exact")
    key.match["hdr.eth.dst"] = "00:11:22:33:44:55"
    (one,) = list(key.read())  # read by key
    assert _params(one.action) == {"port": 7}

    te.delete()
    assert list(key.read()) == []
    (left,) = list(sh.TableEntry("mac_exact").read())
    assert _int(left.match["hdr.eth.dst"].exact.value) == 0x001122334466


def test_modify_to_another_action(clean: Any) -> None:
    _mac_entry("00:00:00:00:00:0a", 1).insert()
    te = sh.TableEntry("mac_exact")(action="drop")
    te.match["dst"] = "00:00:00:00:00:0a"  # a unique suffix of the field name
    te.modify()
    (e,) = list(sh.TableEntry("mac_exact").read())
    assert e.action.action_name == "I.drop"
    assert list(e.action.msg().params) == []


def test_lpm_entries(clean: Any) -> None:
    for prefix, port in (("10.0.0.0/8", 1), ("10.1.2.0/24", 2), ("10.1.2.3/32", 3)):
        te = sh.TableEntry("ipv4_lpm")(action="set_nhop")
        te.match["hdr.ipv4.dst"] = prefix
        te.action["dmac"] = f"02:00:00:00:00:{port:02x}"
        te.action["port"] = str(port)
        te.insert()

    got = {}
    for e in sh.TableEntry("ipv4_lpm").read():
        lpm = e.match["hdr.ipv4.dst"].lpm
        got[(_int(lpm.value), lpm.prefix_len)] = _params(e.action)
    assert got == {
        (0x0A000000, 8): {"dmac": 0x020000000001, "port": 1},
        (0x0A010200, 24): {"dmac": 0x020000000002, "port": 2},
        (0x0A010203, 32): {"dmac": 0x020000000003, "port": 3},
    }

    # the same value with another prefix length is another entry
    key = sh.TableEntry("ipv4_lpm")
    key.match["hdr.ipv4.dst"] = "10.1.2.0/24"
    (e,) = list(key.read())
    assert _params(e.action)["port"] == 2
    key.delete()
    assert len(list(sh.TableEntry("ipv4_lpm").read())) == 2

    # p4runtime-shell masks the host bits itself; the server sees 10.0.0.0/8
    te = sh.TableEntry("ipv4_lpm")(action="set_flow")
    te.match["hdr.ipv4.dst"] = "10.9.9.9/8"
    te.action["flow"] = "0x1234"
    te.modify()
    key = sh.TableEntry("ipv4_lpm")
    key.match["hdr.ipv4.dst"] = "10.0.0.0/8"
    (e,) = list(key.read())
    assert e.action.action_name == "I.set_flow"
    assert _params(e.action) == {"flow": 0x1234}


def test_ternary_entries_and_priority(clean: Any) -> None:
    _acl_entry("10.0.0.1&&&255.255.255.0", "6", priority=10).insert()
    _acl_entry("10.0.0.0&&&255.0.0.0", "17&&&0xff", priority=20).insert()
    # the same match with another priority is another entry
    _acl_entry("10.0.0.0&&&255.0.0.0", "17&&&0xff", priority=30).insert()

    got = {}
    for e in sh.TableEntry("acl").read():
        src = e.match["hdr.ipv4.src"].ternary
        proto = e.match["hdr.ipv4.protocol"].ternary
        got[e.priority] = (_int(src.value), _int(src.mask), _int(proto.value), _int(proto.mask))
    assert got == {
        10: (0x0A000000, 0xFFFFFF00, 6, 0xFF),  # 10.0.0.1 masked by the shell
        20: (0x0A000000, 0xFF000000, 17, 0xFF),
        30: (0x0A000000, 0xFF000000, 17, 0xFF),
    }

    # a ternary table's entries need a priority
    with pytest.raises(P4RuntimeWriteException) as ei:
        _acl_entry("192.168.0.0&&&255.255.0.0", "6", priority=0).insert()
    assert _write_error_codes(ei) == [code_pb2.INVALID_ARGUMENT]

    # a key with one field left out (a wildcard) is fine
    te = sh.TableEntry("acl")(action="drop")
    te.match["hdr.ipv4.protocol"] = "1"
    te.priority = 5
    te.insert()
    (e,) = [e for e in sh.TableEntry("acl").read() if e.priority == 5]
    assert list(e.match._mk) == ["hdr.ipv4.protocol"]
    assert e.action.action_name == "I.drop"

    _acl_entry("10.0.0.0&&&255.0.0.0", "17&&&0xff", priority=20).delete()
    assert sorted(e.priority for e in sh.TableEntry("acl").read()) == [5, 10, 30]


def test_direct_counter(clean: Any) -> None:
    _acl_entry("10.0.0.1&&&255.255.255.0", "6", priority=10).insert()
    _acl_entry("10.0.0.2&&&255.255.255.255", "6", priority=11).insert()

    dc = sh.DirectCounterEntry("acl_counter")
    dc.table_entry.match["hdr.ipv4.src"] = "10.0.0.1&&&255.255.255.0"
    dc.table_entry.match["hdr.ipv4.protocol"] = "6"
    dc.table_entry.priority = 10
    (fresh,) = list(dc.read())
    assert (fresh.packet_count, fresh.byte_count) == (0, 0)

    dc.packet_count = 7
    dc.byte_count = 700
    dc.modify()
    (got,) = list(dc.read())
    assert (got.packet_count, got.byte_count) == (7, 700)
    assert got.table_entry.priority == 10

    # a wildcard read gives one counter per entry of the table
    counts = {
        e.table_entry.priority: e.packet_count for e in sh.DirectCounterEntry("acl_counter").read()
    }
    assert counts == {10: 7, 11: 0}

    # a table entry read that asks for counter data carries it
    te = sh.TableEntry("acl")
    te.counter_data  # noqa: B018  (touching it makes the read ask for counter data)
    with_counters = {e.priority: e.counter_data.packet_count for e in te.read()}
    assert with_counters == {10: 7, 11: 0}

    # deleting the entry deletes its counter; a new entry starts at zero
    _acl_entry("10.0.0.1&&&255.255.255.0", "6", priority=10).delete()
    _acl_entry("10.0.0.1&&&255.255.255.0", "6", priority=10).insert()
    (again,) = list(dc.read())
    assert (again.packet_count, again.byte_count) == (0, 0)

    # an insert may set the counter's value
    te = _acl_entry("10.0.0.3&&&255.255.255.255", "6", priority=12)
    te.counter_data.packet_count = 3
    te.counter_data.byte_count = 300
    te.insert()
    dc3 = sh.DirectCounterEntry("acl_counter")
    dc3.table_entry.match["hdr.ipv4.src"] = "10.0.0.3"  # no mask: all ones
    dc3.table_entry.match["hdr.ipv4.protocol"] = "6"
    dc3.table_entry.priority = 12
    (got3,) = list(dc3.read())
    assert (got3.packet_count, got3.byte_count) == (3, 300)


def test_indirect_counter(clean: Any) -> None:
    for index, packets in ((5, 42), (6, 1)):
        c = sh.CounterEntry("port_counter")
        c.index = index
        c.packet_count = packets
        c.byte_count = packets * 100
        c.modify()

    c = sh.CounterEntry("port_counter")
    c.index = 5
    (got,) = list(c.read())
    assert (got.index, got.packet_count, got.byte_count) == (5, 42, 4200)

    everything = {
        e.index: (e.packet_count, e.byte_count) for e in sh.CounterEntry("port_counter").read()
    }
    assert set(everything) == set(range(32))
    assert everything[5] == (42, 4200) and everything[6] == (1, 100)

    c.packet_count = 0
    c.byte_count = 0
    c.modify()
    (got,) = list(c.read())
    assert (got.packet_count, got.byte_count) == (0, 0)

    # past the counter's size: the Read fails, with OUT_OF_RANGE inside
    bad = sh.CounterEntry("port_counter")
    bad.index = 32
    with pytest.raises(P4RuntimeException) as ei:
        list(bad.read())
    assert "OUT_OF_RANGE" in str(ei.value)

    # counters cannot be inserted or deleted, only modified
    with pytest.raises(NotImplementedError):
        sh.CounterEntry("port_counter").insert()


def _register_id() -> int:
    (reg,) = [r for r in sh.context.p4info.registers if r.preamble.alias == "flow_reg"]
    return reg.preamble.id


def _register_entity(index: int | None = None) -> p4runtime_pb2.Entity:
    entity = p4runtime_pb2.Entity()
    entity.register_entry.register_id = _register_id()
    if index is not None:
        entity.register_entry.index.index = index
    return entity


def _read_registers(index: int | None = None) -> dict[int, bytes]:
    out = {}
    for reply in sh.client.read_one(_register_entity(index)):
        for entity in reply.entities:
            reg = entity.register_entry
            out[reg.index.index] = reg.data.bitstring
    return out


def test_register_through_the_shell_client(clean: Any) -> None:
    # p4runtime-shell 0.0.6 has no RegisterEntry: build the entity, send it with its client
    assert sh.context.p4info.registers[0].size == 64
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    update.entity.CopyFrom(_register_entity(7))
    update.entity.register_entry.data.bitstring = bytes.fromhex("deadbeef")
    sh.client.write_update(update)

    assert _read_registers(7) == {7: bytes.fromhex("deadbeef")}
    everything = _read_registers()
    assert set(everything) == set(range(64))
    assert all(_int(v) == 0 for i, v in everything.items() if i != 7)

    update.entity.register_entry.data.bitstring = b"\x00\x00\x00\x2a"  # padded is accepted
    sh.client.write_update(update)
    assert _int(_read_registers(7)[7]) == 42

    # a value wider than bit<32> is refused (P4Runtime spec, bytestrings: OUT_OF_RANGE)
    update.entity.register_entry.data.bitstring = b"\x01\x00\x00\x00\x00"
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.client.write_update(update)
    assert _write_error_codes(ei) == [code_pb2.OUT_OF_RANGE]
    assert _int(_read_registers(7)[7]) == 42


def test_action_selector_members_groups_and_entries(clean: Any) -> None:
    for i in (1, 2, 3):
        _member(i, f"00:00:00:00:00:0{i}", i).insert()
    members = {m.member_id: _params(m.action) for m in sh.ActionProfileMember(SELECTOR).read()}
    assert members == {i: {"dmac": i, "port": i} for i in (1, 2, 3)}

    sh.ActionProfileGroup(SELECTOR)(group_id=100).add(1).add(2, weight=2).insert()
    (g,) = list(sh.ActionProfileGroup(SELECTOR).read())
    assert g.group_id == 100
    assert [(m.member_id, m.weight) for m in g.members] == [(1, 1), (2, 2)]

    te = sh.TableEntry("ecmp")
    te.match["meta.flow"] = "1"
    te.group_id = 100
    te.insert()
    te = sh.TableEntry("ecmp")
    te.match["meta.flow"] = "2"
    te.member_id = 3
    te.insert()
    got = {_int(e.match["meta.flow"].exact.value): e for e in sh.TableEntry("ecmp").read()}
    assert got[1].group_id == 100 and got[1].member_id is None
    assert got[2].member_id == 3 and got[2].group_id is None

    # modify a group's members and a member's action
    sh.ActionProfileGroup(SELECTOR)(group_id=100).add(1).add(2).add(3).modify()
    (g,) = list(sh.ActionProfileGroup(SELECTOR)(group_id=100).read())
    assert sorted(m.member_id for m in g.members) == [1, 2, 3]
    _member(3, "00:00:00:00:00:33", 33).modify()
    (m3,) = list(sh.ActionProfileMember(SELECTOR)(member_id=3).read())
    assert _params(m3.action) == {"dmac": 0x33, "port": 33}

    # point an entry at another group
    sh.ActionProfileGroup(SELECTOR)(group_id=200).add(3).insert()
    te = sh.TableEntry("ecmp")
    te.match["meta.flow"] = "1"
    te.group_id = 200
    te.modify()
    (e,) = list(te.read())
    assert e.group_id == 200

    # what is in use cannot be deleted
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.ActionProfileMember(SELECTOR)(member_id=1).delete()
    assert _write_error_codes(ei) == [code_pb2.FAILED_PRECONDITION]
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.ActionProfileGroup(SELECTOR)(group_id=200).delete()
    assert _write_error_codes(ei) == [code_pb2.FAILED_PRECONDITION]
    # nor can an entry point at a group or member that does not exist
    te = sh.TableEntry("ecmp")
    te.match["meta.flow"] = "9"
    te.group_id = 999
    with pytest.raises(P4RuntimeWriteException) as ei:
        te.insert()
    assert _write_error_codes(ei) == [code_pb2.NOT_FOUND]

    # tear down in dependency order
    sh.TableEntry("ecmp").read(lambda x: x.delete())
    sh.ActionProfileGroup(SELECTOR).read(lambda x: x.delete())
    sh.ActionProfileMember(SELECTOR).read(lambda x: x.delete())
    assert list(sh.TableEntry("ecmp").read()) == []
    assert list(sh.ActionProfileGroup(SELECTOR).read()) == []
    assert list(sh.ActionProfileMember(SELECTOR).read()) == []


def test_one_shot_selector_entry(clean: Any) -> None:
    te = sh.TableEntry("ecmp")
    te.match["meta.flow"] = "5"
    for port in (5, 6):
        a = sh.Action("set_nhop")
        a["dmac"] = f"00:00:00:00:00:0{port}"
        a["port"] = str(port)
        te.oneshot.add(a)
    te.insert()
    (e,) = list(sh.TableEntry("ecmp").read())
    actions = e.oneshot.msg().action_profile_actions
    ports = sorted(_int(a.action.params[1].value) for a in actions)
    assert ports == [5, 6]
    assert all(a.weight == 1 for a in actions)
    # the selector is now programmed in one-shot mode: no members of its own
    with pytest.raises(P4RuntimeWriteException):
        _member(1, "00:00:00:00:00:01", 1).insert()
    te.delete()
    assert list(sh.TableEntry("ecmp").read()) == []


def test_default_action(clean: Any) -> None:
    (d,) = list(sh.TableEntry("ipv4_lpm")(is_default=True).read())
    assert d.is_default and d.action.action_name == "NoAction"

    te = sh.TableEntry("ipv4_lpm")(action="set_nhop", is_default=True)
    te.action["dmac"] = "02:00:00:00:00:ff"
    te.action["port"] = "9"
    te.modify()
    (d,) = list(sh.TableEntry("ipv4_lpm")(is_default=True).read())
    assert d.is_default and d.action.action_name == "I.set_nhop"
    assert _params(d.action) == {"dmac": 0x0200000000FF, "port": 9}
    # the default entry is not among the wildcard-read entries
    assert list(sh.TableEntry("ipv4_lpm").read()) == []

    # a MODIFY of the default entry with no action resets it to the P4Info default
    sh.TableEntry("ipv4_lpm")(is_default=True).modify()
    (d,) = list(sh.TableEntry("ipv4_lpm")(is_default=True).read())
    assert d.action.action_name == "NoAction"

    # the default entry cannot be inserted or deleted
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.TableEntry("ipv4_lpm")(action="drop", is_default=True).insert()
    assert _write_error_codes(ei) == [code_pb2.INVALID_ARGUMENT]


def test_multicast_groups(clean: Any) -> None:
    sh.MulticastGroupEntry(1).add(1).add(2).add(3, instance=1).insert()
    sh.MulticastGroupEntry(2).add(4).insert()

    groups = {
        g.group_id: [(r.egress_port, r.instance) for r in g.replicas]
        for g in sh.MulticastGroupEntry().read()
    }
    assert groups == {1: [(1, 0), (2, 0), (3, 1)], 2: [(4, 0)]}

    sh.MulticastGroupEntry(1).add(5).add(5, instance=1).modify()
    (g,) = list(sh.MulticastGroupEntry(1).read())
    assert [(r.egress_port, r.instance) for r in g.replicas] == [(5, 0), (5, 1)]

    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.MulticastGroupEntry(2).add(6).insert()
    assert _write_error_codes(ei) == [code_pb2.ALREADY_EXISTS]

    sh.MulticastGroupEntry(1).delete()
    assert [g.group_id for g in sh.MulticastGroupEntry().read()] == [2]
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.MulticastGroupEntry(1).delete()
    assert _write_error_codes(ei) == [code_pb2.NOT_FOUND]


def test_clone_sessions(clean: Any) -> None:
    cs = sh.CloneSessionEntry(5).add(3).add(4, instance=2)
    cs.cos = 1
    cs.packet_length_bytes = 128
    cs.insert()
    (got,) = list(sh.CloneSessionEntry(5).read())
    assert [(r.egress_port, r.instance) for r in got.replicas] == [(3, 0), (4, 2)]
    assert (got.cos, got.packet_length_bytes) == (1, 128)
    sh.CloneSessionEntry(5).add(7).modify()
    (got,) = list(sh.CloneSessionEntry().read())
    assert [(r.egress_port, r.instance) for r in got.replicas] == [(7, 0)]
    assert (got.cos, got.packet_length_bytes) == (0, 0)
    sh.CloneSessionEntry(5).delete()
    assert list(sh.CloneSessionEntry().read()) == []


def test_duplicate_insert_raises_already_exists(clean: Any) -> None:
    _mac_entry("00:aa:bb:cc:dd:ee", 1).insert()
    with pytest.raises(P4RuntimeWriteException) as ei:
        _mac_entry("00:aa:bb:cc:dd:ee", 2).insert()
    assert _write_error_codes(ei) == [code_pb2.ALREADY_EXISTS]
    assert "ALREADY_EXISTS" in str(ei.value)
    # the first entry is unchanged
    (e,) = list(sh.TableEntry("mac_exact").read())
    assert _params(e.action) == {"port": 1}

    # a duplicate action-profile member and group too
    _member(1, "00:00:00:00:00:01", 1).insert()
    with pytest.raises(P4RuntimeWriteException) as ei:
        _member(1, "00:00:00:00:00:02", 2).insert()
    assert _write_error_codes(ei) == [code_pb2.ALREADY_EXISTS]
    sh.ActionProfileGroup(SELECTOR)(group_id=1).add(1).insert()
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.ActionProfileGroup(SELECTOR)(group_id=1).insert()
    assert _write_error_codes(ei) == [code_pb2.ALREADY_EXISTS]


def test_missing_entries_raise_not_found(clean: Any) -> None:
    with pytest.raises(P4RuntimeWriteException) as ei:
        _mac_entry("00:00:00:00:99:99", 1).modify()
    assert _write_error_codes(ei) == [code_pb2.NOT_FOUND]
    with pytest.raises(P4RuntimeWriteException) as ei:
        _mac_entry("00:00:00:00:99:99", 1).delete()
    assert _write_error_codes(ei) == [code_pb2.NOT_FOUND]
    with pytest.raises(P4RuntimeWriteException) as ei:
        _member(42, "00:00:00:00:00:01", 1).modify()
    assert _write_error_codes(ei) == [code_pb2.NOT_FOUND]


def test_padded_bytestrings_are_accepted_and_read_back_canonical(clean: Any) -> None:
    sh.global_options["canonical_bytestrings"] = False  # the shell now pads to the bitwidth
    try:
        te = _mac_entry("00:00:00:00:00:01", 3)
        msg = te.msg()
        assert msg.match[0].exact.value == b"\x00\x00\x00\x00\x00\x01"
        assert msg.action.action.params[0].value == b"\x00\x03"
        te.insert()
        (e,) = list(sh.TableEntry("mac_exact").read())
        # P4Runtime servers answer with the canonical (shortest) bytestrings
        assert e.msg().match[0].exact.value == b"\x01"
        assert e.msg().action.action.params[0].value == b"\x03"
        # the padded key names the same entry
        with pytest.raises(P4RuntimeWriteException) as ei:
            te.insert()
        assert _write_error_codes(ei) == [code_pb2.ALREADY_EXISTS]
        te.delete()
        assert list(sh.TableEntry("mac_exact").read()) == []
    finally:
        sh.global_options["canonical_bytestrings"] = True


def test_batch_write_from_file(clean: Any, tmp_path: Path) -> None:
    """p4runtime-shell's Write() sends a text-format WriteRequest: a batch of updates."""
    table = sh.TableEntry("mac_exact")
    action = sh.context.get_obj_id(sh.P4Type.action, "set_port")
    updates = "".join(
        f"""
updates {{
  type: INSERT
  entity {{ table_entry {{
    table_id: {table.id}
    match {{ field_id: 1 exact {{ value: "\\x{mac:02x}" }} }}
    action {{ action {{ action_id: {action} params {{ param_id: 1 value: "\\x{port:02x}" }} }} }}
  }} }}
}}"""
        for mac, port in ((0x21, 1), (0x22, 2))
    )
    path = tmp_path / "batch.txtpb"
    path.write_text(updates)
    sh.Write(str(path))
    got = {
        _int(e.match["hdr.eth.dst"].exact.value): _params(e.action)["port"]
        for e in sh.TableEntry("mac_exact").read()
    }
    assert got == {0x21: 1, 0x22: 2}

    # the same batch again: each update fails, and each error names its index
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.Write(str(path))
    assert [(i, err.canonical_code) for i, err in ei.value.errors] == [
        (0, code_pb2.ALREADY_EXISTS),
        (1, code_pb2.ALREADY_EXISTS),
    ]
    # a batch whose first update is new: it is applied, only the second one fails
    path.write_text(updates.replace("\\x21", "\\x23"))
    with pytest.raises(P4RuntimeWriteException) as ei:
        sh.Write(str(path))
    assert [(i, err.canonical_code) for i, err in ei.value.errors] == [(1, code_pb2.ALREADY_EXISTS)]
    assert len(list(sh.TableEntry("mac_exact").read())) == 3
