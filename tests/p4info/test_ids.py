"""The P4Runtime id scheme: Jenkins one-at-a-time hash, prefixes, probing, @id, aliases."""

from __future__ import annotations

import pytest

from softswitch.p4info import (
    IdAllocator,
    P4InfoError,
    Prefix,
    SuffixSet,
    field_ids,
    jenkins_hash,
    natural_id,
)


@pytest.mark.parametrize(
    ("prefix", "name", "expected"),
    [
        # ids taken from p4c's golden P4Info files
        (Prefix.ACTION, "NoAction", 21257015),
        (Prefix.ACTION, "my_drop", 32609675),
        (Prefix.TABLE, "ingress.ipv4_da_lpm", 35996228),
        (Prefix.TABLE, "MyIngress.ipv4_lpm", 37375156),
        (Prefix.ACTION_PROFILE, "IngressI.as", 291652621),
        (Prefix.CONTROLLER_HEADER, "packet_in_header_t", 81826293),
        (Prefix.CONTROLLER_HEADER, "packet_out_header_t", 76689799),
    ],
)
def test_natural_ids(prefix: Prefix, name: str, expected: int) -> None:
    assert natural_id(prefix, name) == expected


def test_hash_is_uint32_of_utf8_bytes() -> None:
    assert jenkins_hash("NoAction") == 0x14445B37
    assert jenkins_hash("") == 0
    assert jenkins_hash("é") == jenkins_hash("é".encode())
    assert all(0 <= jenkins_hash(s) < 1 << 32 for s in ("a", "x" * 1000, "ünïcødé"))


def test_collisions_probe_in_sorted_name_order() -> None:
    # these two names share the low 24 bits of their hash
    a, b = "ingress.t8383", "ingress.t10718"
    assert jenkins_hash(a) & 0xFFFFFF == jenkins_hash(b) & 0xFFFFFF
    for order in ((a, b), (b, a)):
        ids = IdAllocator()
        for n in order:
            ids.add(Prefix.TABLE, n)
        ids.assign()
        # "ingress.t10718" sorts first, keeps the natural id; the other moves on by one
        assert ids.id(Prefix.TABLE, b) == natural_id(Prefix.TABLE, b)
        assert ids.id(Prefix.TABLE, a) == natural_id(Prefix.TABLE, a) + 1


def test_same_hash_in_other_kinds_does_not_collide() -> None:
    ids = IdAllocator()
    ids.add(Prefix.TABLE, "x")
    ids.add(Prefix.ACTION, "x")
    assert ids.id(Prefix.TABLE, "x") & 0xFFFFFF == ids.id(Prefix.ACTION, "x") & 0xFFFFFF


def test_id_annotations() -> None:
    ids = IdAllocator()
    ids.add(Prefix.TABLE, "ingress.t", 5)  # the prefix is added
    ids.add(Prefix.ACTION, "a", 0x01000007)  # already has the right prefix
    assert ids.id(Prefix.TABLE, "ingress.t") == 0x02000005
    assert ids.id(Prefix.ACTION, "a") == 0x01000007


def test_id_annotation_takes_precedence_over_a_hash() -> None:
    taken = natural_id(Prefix.ACTION, "b")
    ids = IdAllocator()
    ids.add(Prefix.ACTION, "b")
    ids.add(Prefix.ACTION, "a", taken)
    assert ids.id(Prefix.ACTION, "a") == taken
    assert ids.id(Prefix.ACTION, "b") == taken + 1


def test_bad_id_annotations() -> None:
    ids = IdAllocator()
    with pytest.raises(P4InfoError, match="wrong 8-bit prefix"):
        ids.add(Prefix.TABLE, "t", 0x01000001)
    ids.add(Prefix.TABLE, "t1", 1)
    with pytest.raises(P4InfoError, match="multiple declarations"):
        ids.add(Prefix.TABLE, "t2", 0x02000001)


def test_first_declaration_of_a_name_wins() -> None:
    ids = IdAllocator()
    ids.add(Prefix.ACTION, "a", 9)
    ids.add(Prefix.ACTION, "a", 10)
    assert ids.id(Prefix.ACTION, "a") == 0x01000009


def test_aliases_are_shortest_unique_suffixes() -> None:
    s = SuffixSet()
    for n in ("ingress.t", "egress.t", "ingress.c.acl", "egress.d.acl", "ingress.mac", "mac", "x"):
        s.add(n)
    s.add("x")  # duplicates do not count twice
    assert s.shortest_unique_suffix("ingress.t") == "ingress.t"
    assert s.shortest_unique_suffix("egress.t") == "egress.t"
    assert s.shortest_unique_suffix("ingress.c.acl") == "c.acl"
    assert s.shortest_unique_suffix("ingress.mac") == "ingress.mac"
    assert s.shortest_unique_suffix("mac") == "mac"
    assert s.shortest_unique_suffix("x") == "x"


def test_field_ids() -> None:
    assert field_ids([None, None, None]) == [1, 2, 3]
    # annotated ids first; the position counter still moves over annotated fields
    assert field_ids([None, 5, None, None]) == [1, 5, 2, 3]
    assert field_ids([2, None, None]) == [2, 3, 4]  # as p4c: position 1 is "used" by @id(2)
    assert field_ids([None, 1]) == [2, 1]
    with pytest.raises(P4InfoError, match="0 is not a valid"):
        field_ids([0])
    with pytest.raises(P4InfoError, match="used multiple times"):
        field_ids([3, 3])
