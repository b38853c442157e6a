"""build_p4info on hand-made ProgramInfo records: the parts the code generator may or may
not record (action uses, extern calls, semantic types, value sets, @pkginfo)."""

from __future__ import annotations

import pytest

from softswitch import program_info as pinfo
from softswitch.frontend import types as T
from softswitch.p4info import P4InfoError, Prefix, build_p4info, format_annotation, natural_id
from softswitch.p4info.build import p4info_pb2


def table(name: str, actions: list[str], **kw: object) -> pinfo.TableSpec:
    fields: dict[str, object] = dict(
        name=name,
        keys=(pinfo.KeySpec("k", "exact", 8),),
        actions=tuple(pinfo.ActionRefSpec(a) for a in actions),
        size=1024,
        default_action=actions[-1],
        default_args=(),
        default_const=False,
        const_entries=None,
    )
    fields.update(kw)
    return pinfo.TableSpec(**fields)  # type: ignore[arg-type]


def names(p4info: p4info_pb2.P4Info, kind: str = "actions") -> list[str]:
    return [x.preamble.name for x in getattr(p4info, kind)]


def test_recorded_action_uses_give_p4c_order() -> None:
    info = pinfo.ProgramInfo()
    info.actions = {
        "NoAction": pinfo.ActionSpec("NoAction", (), control=""),
        "drop": pinfo.ActionSpec("drop", (), control=""),
        "fwd": pinfo.ActionSpec("fwd", (pinfo.ParamSpec("port", 9),), control=""),
        "ingress.a": pinfo.ActionSpec("ingress.a", (pinfo.ParamSpec("x", 8),), control="ingress"),
        "ingress.unused": pinfo.ActionSpec("ingress.unused", (), control="ingress"),
        "ingress.c.b": pinfo.ActionSpec("ingress.c.b", (), control="ingress.c"),
        "egress.e": pinfo.ActionSpec("egress.e", (), control="egress"),
    }
    info.tables = {"ingress.t": table("ingress.t", ["ingress.a", "drop", "NoAction"])}
    info.action_refs = [
        ("ingress", "ingress.a", "table"),
        ("ingress", "drop", "table"),
        ("ingress", "NoAction", "table"),
        ("ingress.c", "ingress.c.b", "call"),
        ("ingress.c", "fwd", "call"),  # a direct call drops the parameters
        ("egress", "egress.e", "call"),
        ("egress", "drop", "call"),
    ]
    p = build_p4info(info)
    assert names(p) == ["drop", "NoAction", "fwd", "ingress.a", "ingress.c.b", "egress.e"]
    by_name = {a.preamble.name: a for a in p.actions}
    assert [x.name for x in by_name["ingress.a"].params] == ["x"]
    assert not by_name["fwd"].params


def test_guessed_action_order_without_recorded_uses() -> None:
    info = pinfo.ProgramInfo()
    info.actions = {
        "NoAction": pinfo.ActionSpec("NoAction", ()),
        "drop": pinfo.ActionSpec("drop", ()),
        "unused_global": pinfo.ActionSpec("unused_global", ()),
        "ingress.a": pinfo.ActionSpec("ingress.a", ()),
        "egress.b": pinfo.ActionSpec("egress.b", ()),
    }
    info.tables = {
        "ingress.t": table("ingress.t", ["ingress.a", "NoAction"]),
        "egress.t": table("egress.t", ["egress.b", "drop"]),
    }
    p = build_p4info(info)
    assert names(p) == ["NoAction", "ingress.a", "drop", "egress.b"]


def test_type_info_only_when_p4c_touches_it() -> None:
    info = pinfo.ProgramInfo()
    info.actions = {"ingress.a": pinfo.ActionSpec("ingress.a", (), control="ingress")}
    info.action_refs = [("ingress", "ingress.a", "call")]
    assert not build_p4info(info).HasField("type_info")
    info.extern_calls = ["mark_to_drop"]
    p = build_p4info(info)
    assert p.HasField("type_info") and p.type_info.ByteSize() == 0


def test_extern_calls_in_actions_touch_type_info_only_when_the_action_is_used() -> None:
    """p4c drops unused actions before it looks (p4c's issue1535.p4: an unused action
    calling mark_to_drop, no type_info); a used action, or one a used action calls,
    counts."""
    info = pinfo.ProgramInfo()
    info.action_extern_calls = [("my_drop", "mark_to_drop")]
    assert not build_p4info(info).HasField("type_info")
    info.action_calls = [("ingress.a", "my_drop")]
    assert not build_p4info(info).HasField("type_info")  # ingress.a itself is unused
    info.action_refs = [("ingress", "ingress.a", "call")]
    assert build_p4info(info).HasField("type_info")


def test_static_assert_is_no_extern_call_for_p4info() -> None:
    from softswitch.compiler import compile_text
    from softswitch.p4info import p4info_for
    from tests.p4util import program

    src = program(decls='header h_t { bit<8> a; } const bool ok = static_assert(true, "x");')
    assert not p4info_for(compile_text(src, "t.p4")).HasField("type_info")
    decls = "header h_t { bit<8> a; } action my_drop(inout standard_metadata_t s) {"
    decls += " mark_to_drop(s); }"
    unused = program(decls=decls)
    assert not p4info_for(compile_text(unused, "t.p4")).HasField("type_info")
    used = program(decls=decls, ingress="apply { my_drop(sm); }")
    assert p4info_for(compile_text(used, "t.p4")).HasField("type_info")


def test_semantic_types_fill_type_names_and_type_info() -> None:
    port_t = T.NewType("port_t", T.BitType(9))
    color = T.EnumType("color_t", ("RED", "GREEN"), T.BitType(8), {"RED": 1, "GREEN": 2})
    mode = T.EnumType("mode_t", ("ON", "OFF"))
    err = T.ErrorType(["NoError", "Oops"])
    info = pinfo.ProgramInfo(errors=("NoError", "Oops"))
    params = (
        pinfo.ParamSpec("port", 9, type=port_t),
        pinfo.ParamSpec("c", 8, type=color),
        pinfo.ParamSpec("m", 32, type=mode),
    )
    info.actions = {"ingress.a": pinfo.ActionSpec("ingress.a", params, control="ingress")}
    keys = (
        pinfo.KeySpec("meta.port", "exact", 9, type=port_t),
        pinfo.KeySpec("meta.err", "exact", 32, type=err),
    )
    info.tables = {"ingress.t": table("ingress.t", ["ingress.a"], keys=keys)}
    info.action_refs = [("ingress", "ingress.a", "table")]
    p = build_p4info(info)
    a = p.actions[0]
    assert [(x.bitwidth, x.type_name.name) for x in a.params] == [
        (9, "port_t"),
        (8, ""),
        (0, "mode_t"),
    ]
    mf = p.tables[0].match_fields
    assert (mf[0].type_name.name, mf[0].bitwidth) == ("port_t", 9)
    assert (mf[1].type_name.name, mf[1].bitwidth) == ("", 0)
    ti = p.type_info
    assert ti.new_types["port_t"].original_type.bitstring.bit.bitwidth == 9
    assert [m.value for m in ti.serializable_enums["color_t"].members] == [b"\x01", b"\x02"]
    assert [m.name for m in ti.enums["mode_t"].members] == ["ON", "OFF"]
    assert list(ti.error.members) == ["NoError", "Oops"]


def test_selector_keys_take_an_id_position() -> None:
    keys = (pinfo.KeySpec("a", "exact", 8, index=0), pinfo.KeySpec("b", "exact", 8, index=2))
    sel = (pinfo.KeySpec("s", "selector", 8, index=1),)
    info = pinfo.ProgramInfo()
    info.actions = {"NoAction": pinfo.ActionSpec("NoAction", ())}
    info.tables = {"i.t": table("i.t", ["NoAction"], keys=keys, selector_keys=sel)}
    p = build_p4info(info)
    assert [(m.name, m.id) for m in p.tables[0].match_fields] == [("a", 1), ("b", 3)]


def test_in_place_action_selector() -> None:
    info = pinfo.ProgramInfo()
    info.actions = {"NoAction": pinfo.ActionSpec("NoAction", ())}
    info.externs = {
        "ap": pinfo.ExternSpec(
            "action_selector",
            "ap",
            args=("crc16", 64, 10),
            annotations=(
                ("max_group_size", "8"),
                ("selector_size_semantics", '"sum_of_members"'),
                ("max_member_weight", "100"),
            ),
            in_place=True,
        )
    }
    info.tables = {"i.t": table("i.t", ["NoAction"], implementation="ap")}
    p = build_p4info(info)
    prof = p.action_profiles[0]
    assert prof.preamble.name == "ap" and not prof.preamble.annotations
    assert (prof.size, prof.max_group_size, prof.with_selector) == (64, 8, True)
    assert prof.sum_of_members.max_member_weight == 100
    assert list(prof.table_ids) == [p.tables[0].preamble.id]
    assert p.tables[0].implementation_id == natural_id(Prefix.ACTION_PROFILE, "ap")


def test_value_sets() -> None:
    info = pinfo.ProgramInfo()
    info.value_sets = {
        "P.vs": pinfo.ValueSetSpec("P.vs", 4, (pinfo.HeaderFieldSpec("", 16),)),
        "P.pvs": pinfo.ValueSetSpec(
            "P.pvs",
            8,
            (
                pinfo.HeaderFieldSpec("a", 8, (("match", "ternary"),)),
                pinfo.HeaderFieldSpec("b", 16, (("id", "4"),)),
            ),
        ),
    }
    p = build_p4info(info)
    vs, pvs = p.value_sets
    assert vs.preamble.id >> 24 == Prefix.VALUE_SET and vs.size == 4
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in vs.match] == [
        (1, "", 16, p4info_pb2.MatchField.EXACT)
    ]
    assert [(m.id, m.name, m.match_type) for m in pvs.match] == [
        (1, "a", p4info_pb2.MatchField.TERNARY),
        (4, "b", p4info_pb2.MatchField.EXACT),
    ]
    assert not pvs.match[0].annotations  # @match is not echoed


def test_pkginfo() -> None:
    info = pinfo.ProgramInfo(
        package_annotations=(
            ("pkginfo", 'name="sw", version="1.2"'),
            ("platform_property", "multicast_group_table_size=64"),
            ("brief", '"a switch"'),
            ("tag", "x"),
        )
    )
    pkg = build_p4info(info).pkg_info
    assert (pkg.arch, pkg.name, pkg.version, pkg.doc.brief) == ("v1model", "sw", "1.2", "a switch")
    assert pkg.platform_properties.multicast_group_table_size == 64
    assert list(pkg.annotations) == ["@tag(x)"]


def test_bad_id_annotation_is_reported() -> None:
    info = pinfo.ProgramInfo()
    info.actions = {"NoAction": pinfo.ActionSpec("NoAction", ())}
    info.tables = {"i.t": table("i.t", ["NoAction"], annotations=(("id", "0x01000001"),))}
    with pytest.raises(P4InfoError, match="prefix"):
        build_p4info(info)


@pytest.mark.parametrize(
    ("name", "body", "text"),
    [
        ("defaultonly", "", "@defaultonly"),
        ("noWarn", '"unused"', '@noWarn("unused")'),
        ("min_width", " 32 ", "@min_width(32)"),
        ("mode", '"fair"', '@mode("fair")'),
        ("custom", "a,b", "@custom(a , b)"),
        ("deprecated", '"x",  "y"', '@deprecated("x", "y")'),
    ],
)
def test_annotation_text(name: str, body: str, text: str) -> None:
    assert format_annotation(name, body) == text


def test_names_as_p4c_writes_them() -> None:
    """A top-level extern instance's @name (p4c's named_meter_1-bmv2.p4), a name in UTF-8
    (nonstandard_table_names-bmv2.p4) and key expressions with constants, in hex or with
    a width (match-on-exprs2-bmv2.p4), are named in P4Info as p4c names them (checked with
    p4c-bm2-ss --p4runtime-files on this program)."""
    from softswitch.compiler import compile_text
    from softswitch.p4info import p4info_for
    from tests.p4util import program

    src = program(
        decls='header h_t { bit<8> a; } @name("renamed") counter(4, CounterType.packets) c;',
        ingress="""
        action nop() { }
        @name("prefix◕‿◕😀ツt") table t {
            key = { hdr.h.a & 0x0F : exact; hdr.h.a & 8w0x1A : exact; hdr.h.a & 8w10 : exact; }
            actions = { nop; }
        }
        apply { t.apply(); c.count(0); }
        """,
    )
    p = p4info_for(compile_text(src, "t.p4"))
    assert [c.preamble.name for c in p.counters] == ["renamed"]
    (t,) = p.tables
    assert t.preamble.name == "I.prefix◕‿◕😀ツt"
    assert [m.name for m in t.match_fields] == [
        "hdr.h.a & 0xf",
        "hdr.h.a & 0x1a",
        "hdr.h.a & 10",
    ]


def test_key_names_take_the_field_names_given_by_annotations() -> None:
    """A struct field with `@name(".l3")` starts the key's name there, one with
    `@name("renamed")` is renamed in place (P4_14 translations such as p4c's switch_p4_16.p4
    and issue298-bmv2.p4); stack elements and validity keep their form. The expected names
    are what p4c-bm2-ss --p4runtime-files writes for this program."""
    from softswitch.compiler import compile_text
    from softswitch.p4info import p4info_for
    from tests.p4util import program

    src = program(
        decls="header h_t { bit<8> a; bit<8> b; } header s_t { bit<8> v; }"
        " struct inner_t { bit<8> x; bit<8> y; }",
        meta='@name(".l3") inner_t l3; @name("renamed") inner_t m2;',
        headers="h_t h; s_t[2] st;",
        ingress="""
        action nop() { }
        table t {
            key = {
                meta.l3.x : exact;
                meta.m2.y : exact;
                hdr.st[1].v : exact;
                hdr.st[0].isValid() : exact;
                hdr.h.a : exact;
            }
            actions = { nop; }
        }
        apply { t.apply(); }
        """,
    )
    (t,) = p4info_for(compile_text(src, "t.p4")).tables
    assert [m.name for m in t.match_fields] == [
        "l3.x",
        "meta.renamed.y",
        "hdr.st[1].v",
        "hdr.st[0].$valid$",
        "hdr.h.a",
    ]
