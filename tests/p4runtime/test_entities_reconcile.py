"""RECONCILE_AND_COMMIT: what still fits the new P4Info is carried over, the rest dropped."""

from __future__ import annotations

from p4rt_proto import p4runtime_pb2

from ._entities_util import DELETE, INSERT, MODIFY, PROGRAM, World, make_world, packet

P = p4runtime_pb2

KINDS = [
    P.TableEntry(),
    P.ActionProfileMember(),
    P.ActionProfileGroup(),
    P.CounterEntry(),
    P.MeterEntry(),
    P.RegisterEntry(),
    P.PacketReplicationEngineEntry(multicast_group_entry={}),
    P.PacketReplicationEngineEntry(clone_session_entry={}),
    P.ValueSetEntry(),
    P.DigestEntry(),
]


def populate(w: World) -> None:
    for i, port in enumerate((1, 2, 3)):
        w.write(
            INSERT, w.entry("t_lpm", {"hdr.h.c": ((i + 1) << 24, 8)}, w.action("fwd", port=port))
        )
    w.write(
        INSERT,
        w.entry(
            "t_exact",
            {"hdr.h.a": 1, "hdr.h.b": 300},
            w.action("fwd", port=4),
            metadata=b"keep",
            idle_timeout_ns=10**9,
        ),
    )
    t = w.entry("t_tern", {"hdr.h.d": ("o", 1)}, w.action("metered", port=2), priority=3)
    t.counter_data.packet_count = 4
    t.meter_config.CopyFrom(P.MeterConfig(cir=10, cburst=1, pir=20, pburst=2))
    w.write(INSERT, t)
    default = w.entry("t_lpm", action=w.action("fwd", port=9), is_default_action=True)
    w.write(MODIFY, default)
    sel = w.id("action_profiles", "sel")
    for mid in (1, 2):
        w.write(
            INSERT,
            P.ActionProfileMember(
                action_profile_id=sel, member_id=mid, action=w.action("fwd", port=mid)
            ),
        )
    g = P.ActionProfileGroup(action_profile_id=sel, group_id=5)
    g.members.add(member_id=1, weight=2)
    g.members.add(member_id=2, weight=1)
    w.write(INSERT, g)
    e = w.entry("t_sel", {"hdr.h.a": 1})
    e.action.action_profile_group_id = 5
    w.write(INSERT, e)
    prof = w.id("action_profiles", "prof")
    w.write(
        INSERT,
        P.ActionProfileMember(action_profile_id=prof, member_id=1, action=w.action("fwd", port=6)),
    )
    pe = w.entry("t_prof", {"hdr.h.a": 2})
    pe.action.action_profile_member_id = 1
    w.write(INSERT, pe)
    c = P.CounterEntry(counter_id=w.id("counters", "cnt"), data=P.CounterData(packet_count=9))
    c.index.index = 6
    w.write(MODIFY, c)
    m = P.MeterEntry(
        meter_id=w.id("meters", "mtr"), config=P.MeterConfig(cir=5, cburst=5, pir=6, pburst=6)
    )
    m.index.index = 1
    w.write(MODIFY, m)
    for index, value in ((2, b"\x42"), (12, b"\x43"), (3, b"\x01\x00")):
        r = P.RegisterEntry(register_id=w.id("registers", "reg"))
        r.index.index = index
        r.data.bitstring = value
        w.write(MODIFY, r)
    for index, value in ((0, b"\x05"), (1, b"\x9d"), (2, b"\xfe")):
        r = P.RegisterEntry(register_id=w.id("registers", "sreg"))
        r.index.index = index
        r.data.bitstring = value
        w.write(MODIFY, r)
    mc = P.PacketReplicationEngineEntry()
    mc.multicast_group_entry.multicast_group_id = 3
    mc.multicast_group_entry.replicas.add(port=b"\x02", instance=1)
    w.write(INSERT, mc)
    cs = P.PacketReplicationEngineEntry()
    cs.clone_session_entry.session_id = 4
    cs.clone_session_entry.replicas.add(egress_port=5)
    w.write(INSERT, cs)
    vs = P.ValueSetEntry(value_set_id=w.id("value_sets", "vs_a"))
    vs.members.add().match.add(field_id=1).exact.value = b"\x07"
    w.write(MODIFY, vs)
    d = P.DigestEntry(digest_id=w.id("digests", "learn_t"))
    d.config.max_list_size = 3
    w.write(INSERT, d)


def snapshot(w: World) -> list[list]:
    out = [w.read(k) for k in KINDS]
    req = P.TableEntry(is_default_action=True)
    out.append(w.read(req))
    full = P.TableEntry()
    full.counter_data.SetInParent()
    full.meter_config.SetInParent()
    out.append(w.read(full))
    return out


def test_same_program_keeps_everything() -> None:
    old = make_world()
    populate(old)
    new = make_world()
    old.store.reconcile_into(new.store)
    assert snapshot(new) == snapshot(old)
    assert new.port_of(packet(1, c=0x02000001)) == 2
    assert new.port_of(packet(1, c=0x09000001)) == 9  # modified default kept
    assert new.port_of(packet(6, a=2)) == 6


def test_changed_program_keeps_what_fits() -> None:
    changed = (
        PROGRAM.replace("size = 4;", "size = 2;")  # t_lpm shrinks
        .replace("register<bit<16>>(16) reg;", "register<bit<16>>(8) reg;")
        .replace("register<int<8>>(4) sreg;", "register<int<4>>(4) sreg;")
        .replace("table t_prof", "table t_prof_renamed")
        .replace("t_prof.apply()", "t_prof_renamed.apply()")
        .replace("hdr.h.b: exact; }", "hdr.h.b: exact; hdr.h.d: exact; }")  # t_exact key grows
    )
    old = make_world()
    populate(old)
    new = make_world(changed)
    old.store.reconcile_into(new.store)
    assert len(new.read(P.TableEntry(table_id=new.id("tables", "t_lpm")))) == 2
    assert new.read(P.TableEntry(table_id=new.id("tables", "t_exact"))) == []
    assert new.read(P.TableEntry(table_id=new.id("tables", "t_prof_renamed"))) == []
    regs = {
        r.index.index: r.data.bitstring
        for r in new.read(P.RegisterEntry(register_id=new.id("registers", "reg")))
    }
    assert regs[2] == b"\x42" and regs[3] == b"\x01\x00" and len(regs) == 8
    sregs = [
        r.data.bitstring for r in new.read(P.RegisterEntry(register_id=new.id("registers", "sreg")))
    ]
    assert sregs == [b"\x05", b"\x00", b"\xfe", b"\x00"]  # -99 no longer fits int<4>
    [sel_entry] = new.read(P.TableEntry(table_id=new.id("tables", "t_sel")))
    assert sel_entry.action.action_profile_group_id == 5
    assert {m.member_id for m in new.read(P.ActionProfileMember())} == {1, 2}  # prof's too
    assert new.store.digest_config(new.id("digests", "learn_t")).max_list_size == 3
    [t] = new.read(P.TableEntry(table_id=new.id("tables", "t_tern")))
    assert t.priority == 3


# ---------------------------------------------------------------- snapshot / restore


def test_restore_undoes_everything_since_the_snapshot() -> None:
    w = make_world()
    populate(w)
    oneshot = w.entry("t_sel", {"hdr.h.a": 9})
    apa = oneshot.action.action_profile_action_set.action_profile_actions.add(weight=1)
    apa.action.CopyFrom(w.action("fwd", port=3))
    before = snapshot(w)
    token = w.store.snapshot()
    # change a bit of everything
    w.write(DELETE, w.entry("t_lpm", {"hdr.h.c": (1 << 24, 8)}))
    w.write(INSERT, w.entry("t_lpm", {"hdr.h.c": (7 << 24, 8)}, w.action("drop")))
    w.write(MODIFY, w.entry("t_lpm", is_default_action=True))
    w.write(DELETE, w.entry("t_sel", {"hdr.h.a": 1}))
    sel = w.id("action_profiles", "sel")
    w.write(DELETE, P.ActionProfileGroup(action_profile_id=sel, group_id=5))
    w.write(DELETE, P.ActionProfileMember(action_profile_id=sel, member_id=2))
    w.send(packet(3, d=1))
    w.send(packet(0, d=6))
    r = P.RegisterEntry(register_id=w.id("registers", "reg"))
    r.data.bitstring = b"\x09"
    w.write(MODIFY, r)
    mc = P.PacketReplicationEngineEntry()
    mc.multicast_group_entry.multicast_group_id = 3
    w.write(DELETE, mc)
    w.write(MODIFY, P.ValueSetEntry(value_set_id=w.id("value_sets", "vs_a")))
    w.write(DELETE, P.DigestEntry(digest_id=w.id("digests", "learn_t")))
    assert snapshot(w) != before
    w.store.restore(token)
    assert snapshot(w) == before
    assert w.port_of(packet(1, c=0x01000001)) == 1
    assert w.port_of(packet(1, c=0x07000001)) == 9  # the inserted entry is gone again
    assert w.port_of(packet(8, a=7)) == 1  # value set member back
    # the store keeps working after a restore, one-shot included
    w.write(DELETE, w.entry("t_sel", {"hdr.h.a": 1}))
    w.write(DELETE, P.ActionProfileGroup(action_profile_id=sel, group_id=5))
    for mid in (1, 2):
        w.write(DELETE, P.ActionProfileMember(action_profile_id=sel, member_id=mid))
    w.write(INSERT, oneshot)
    assert w.read(w.entry("t_sel", {"hdr.h.a": 9})) == [oneshot]
    token = w.store.snapshot()
    w.write(DELETE, w.entry("t_sel", {"hdr.h.a": 9}))
    w.store.restore(token)
    assert w.read(w.entry("t_sel", {"hdr.h.a": 9})) == [oneshot]
    assert w.port_of(packet(5, a=9)) == 3
    w.write(DELETE, w.entry("t_sel", {"hdr.h.a": 9}))
    assert w.switch.externs["I.sel"].groups == {}
