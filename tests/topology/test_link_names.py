"""A-B link names over node names that hold hyphens."""

from __future__ import annotations

from controller.topology.link_names import split_link_name


def test_split_where_the_names_say() -> None:
    names = {"pod0-agg1", "core2", "leaf1", "spine2"}
    assert split_link_name("pod0-agg1-core2", names) == ("pod0-agg1", "core2")
    assert split_link_name("leaf1-spine2", names) == ("leaf1", "spine2")
    # no split into two known names: no A-B
    assert split_link_name("pod0-agg1-core9", names) is None
    assert split_link_name("leaf1", names) is None
    assert split_link_name("leaf1-", names) is None


def test_an_ambiguous_split_is_not_guessed() -> None:
    names = {"a", "a-b", "b-c", "c"}
    assert split_link_name("a-b-c", names) is None
