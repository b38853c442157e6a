"""Offline: values, P4Info lookups and entity builders (no switch needed)."""

from __future__ import annotations

import pytest

from controller import (
    Action,
    Exact,
    Lpm,
    OptionalMatch,
    P4InfoError,
    P4Schema,
    Range,
    Ternary,
    Update,
    UpdateType,
)
from controller.codec import decode_entity, encode_entity, table_entry
from controller.values import decode, encode, mac_str, to_int

from .conftest import Pipeline


@pytest.fixture(scope="module")
def schema(pipeline: Pipeline) -> P4Schema:
    return P4Schema(pipeline.p4info)


# ------------------------------------------------------------------ values
@pytest.mark.parametrize(
    ("value", "width", "expected"),
    [
        (0, 9, b"\x00"),
        (255, 9, b"\xff"),
        (256, 9, b"\x01\x00"),
        ("00:00:00:00:aa:01", 48, b"\xaa\x01"),
        ("10.0.2.1", 32, b"\x0a\x00\x02\x01"),
        ("2001:db8::1", 128, bytes.fromhex("20010db8000000000000000000000001")),
        (b"\x00\x00\x07", 16, b"\x07"),  # padded input, canonical output
    ],
)
def test_values_are_sent_canonical(value: object, width: int, expected: bytes) -> None:
    assert encode(value, width) == expected  # type: ignore[arg-type]
    assert decode(expected) == to_int(value)  # type: ignore[arg-type]


def test_values_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="does not fit in 9 bits"):
        encode(512, 9, "port")
    with pytest.raises(ValueError, match="neither a MAC nor an IP"):
        encode("eth0", 48)
    with pytest.raises(ValueError, match="negative"):
        encode(-1, 8)
    assert mac_str(0xAA01) == "00:00:00:00:aa:01"


# ------------------------------------------------------------------ names
def test_names_resolve_by_full_name_alias_and_suffix(schema: P4Schema) -> None:
    full = "Ing.host"
    assert schema.table("host").name == full
    assert schema.table(full).name == full
    assert schema.action("fwd").name == "Ing.fwd"
    assert schema.table("host").field("mac").bitwidth == 48
    assert schema.counters["by_d"].name == "Ing.by_d"


def test_unknown_names_list_what_exists(schema: P4Schema) -> None:
    with pytest.raises(P4InfoError, match=r"no table 'hots'.*Ing\.host"):
        schema.table("hots")
    with pytest.raises(P4InfoError, match="no match field 'b'.*fields: a, mac"):
        schema.table("host").field("b")
    with pytest.raises(P4InfoError, match="table Ing.route has no action 'set_b'"):
        table_entry(schema, "route", {"c": "10.0.0.0/8"}, "set_b", {"b": 1, "port": 1})


# ------------------------------------------------------------------ table entries
def test_match_forms_by_kind(schema: P4Schema) -> None:
    e = table_entry(schema, "host", {"a": 7, "mac": "00:00:00:00:00:0b"}, "fwd", {"port": 2})
    assert e.match == {"a": Exact(7), "mac": Exact(11)}
    assert e.action == Action("Ing.fwd", {"port": 2})
    assert table_entry(schema, "route", {"c": "10.0.0.0/8"}, "drop").match == {
        "c": Lpm(0x0A000000, 8)
    }
    assert table_entry(schema, "route", {"c": ("10.0.0.0", 8)}, "drop").match == {
        "c": Lpm(0x0A000000, 8)
    }
    assert table_entry(schema, "route", {"c": "10.0.0.1"}, "drop").match["c"] == Lpm(0x0A000001, 32)
    acl = table_entry(
        schema, "acl", {"a": (0x10, 0xF0), "b": (100, 200), "d": 3}, "fwd", {"port": 1}, 5
    )
    assert acl.match == {"a": Ternary(0x10, 0xF0), "b": Range(100, 200), "d": OptionalMatch(3)}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"match": {"a": 1}}, "exact match field 'mac' missing"),
        ({"match": {"a": (1, 2), "mac": 0}}, "takes a single value"),
        ({"match": {"a": 256, "mac": 0}}, "does not fit in 8 bits"),
        ({"match": {"a": 1, "mac": 0}, "params": {}}, "parameter 'port' missing"),
        ({"match": {"a": 1, "mac": 0}, "params": {"port": 1, "x": 2}}, "no parameter 'x'"),
        ({"match": {"a": 1, "mac": 0}, "params": {"port": 512}}, "does not fit in 9 bits"),
        ({"match": {"a": 1, "mac": 0}, "params": {"port": 1}, "priority": 3}, "takes no priority"),
    ],
)
def test_bad_host_entries_are_refused_before_sending(
    schema: P4Schema, kwargs: dict[str, object], error: str
) -> None:
    kwargs.setdefault("params", {"port": 1})
    with pytest.raises((ValueError, P4InfoError), match=error):
        table_entry(schema, "host", action="fwd", **kwargs)  # type: ignore[arg-type]


def test_lpm_host_bits_ternary_bits_and_priority(schema: P4Schema) -> None:
    with pytest.raises(ValueError, match="bits outside /8"):
        table_entry(schema, "route", {"c": ("10.0.0.1", 8)}, "drop")
    with pytest.raises(ValueError, match="bits outside mask"):
        table_entry(schema, "acl", {"a": (0x11, 0xF0)}, "fwd", {"port": 1}, 1)
    with pytest.raises(ValueError, match="give a priority"):
        table_entry(schema, "acl", {"a": (0x10, 0xF0)}, "fwd", {"port": 1})
    with pytest.raises(ValueError, match="low 9 > high 3"):
        table_entry(schema, "acl", {"b": (9, 3)}, "fwd", {"port": 1}, 1)


def test_dont_care_fields_are_omitted_on_the_wire(schema: P4Schema) -> None:
    e = table_entry(schema, "acl", {"a": (0, 0), "b": (0, 0xFFFF), "d": 1}, "fwd", {"port": 1}, 1)
    te = encode_entity(schema, e).table_entry
    assert [fm.WhichOneof("field_match_type") for fm in te.match] == ["optional"]
    assert table_entry(schema, "route", {"c": "0.0.0.0/0"}, "drop").match == {"c": Lpm(0, 0)}


def test_entities_round_trip_through_protobuf(schema: P4Schema) -> None:
    e = table_entry(schema, "acl", {"a": (0x10, 0xF0), "b": (1, 9)}, "fwd", {"port": 3}, 7)
    assert decode_entity(schema, encode_entity(schema, e)) == e
    u = Update.delete(e)
    assert u.type is UpdateType.DELETE and u.entity is e
