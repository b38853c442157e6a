"""GroupIds: a key keeps its id, a freed id waits for release, a returning key gets its old
id back, the same inputs give the same ids."""

from __future__ import annotations

import random

import pytest

from controller.routing import GroupIdError, GroupIds


def test_a_key_that_stays_keeps_its_id() -> None:
    ids: GroupIds[str] = GroupIds()
    first = ids.assign("s", ["a", "b", "c"])
    assert sorted(first.values()) == [0, 1, 2]
    again = ids.assign("s", ["c", "x", "a"])
    assert again["a"] == first["a"] and again["c"] == first["c"]
    assert again["x"] not in first.values()  # b's id is still pending


def test_a_freed_id_is_reused_only_after_release() -> None:
    ids: GroupIds[str] = GroupIds()
    ids.assign("s", ["a", "b"])
    b = ids.ids("s")["b"]
    ids.assign("s", ["a"])
    assert ids.pending("s") == {b}
    got = ids.assign("s", ["a", "n1"])
    assert got["n1"] != b
    ids.release("s")
    assert ids.pending("s") == frozenset()
    got = ids.assign("s", ["a", "n1", "n2"])
    assert got["n2"] == b


def test_switches_are_independent() -> None:
    ids: GroupIds[str] = GroupIds()
    assert ids.assign("s1", ["a", "b"]) == {"a": 0, "b": 1}
    assert ids.assign("s2", ["b", "a"]) == {"b": 0, "a": 1}
    ids.assign("s1", [])
    assert ids.ids("s2") == {"b": 0, "a": 1}
    assert ids.pending("s2") == frozenset()


def test_a_returning_key_gets_its_old_id_pending_or_released() -> None:
    ids: GroupIds[str] = GroupIds()
    orig = ids.assign("s", ["a", "b", "c", "d"])
    ids.assign("s", ["a", "d", "x"])  # b, c freed (pending), x new
    assert ids.assign("s", ["a", "b", "c", "d"]) == orig  # back before any release
    x = ids.assign("s", ["a", "d", "x"])["x"]
    ids.release("s")  # b's and c's ids are free now, and still theirs to come back to
    assert ids.assign("s", ["a", "b", "c", "d"]) == orig
    assert ids.pending("s") == {x}


def test_new_keys_prefer_ids_nobody_held_last() -> None:
    ids: GroupIds[str] = GroupIds()
    ids.assign("s", ["a", "b", "c"])
    ids.assign("s", ["a", "c"])
    ids.release("s")  # b's id 1 free, remembered for b
    ids.assign("s", ["c"])  # a's id 0 pending
    ids.release("s")
    got = ids.assign("s", ["c", "n"])
    assert got["n"] in (0, 1)
    got = ids.assign("s", ["c", "n", "b"])
    assert got["b"] == 1  # b still finds its id when n took the other one
    assert got["n"] == 0


def test_same_inputs_give_same_ids() -> None:
    rng = random.Random(7)
    seq = [rng.sample("abcdefghij", rng.randint(0, 8)) for _ in range(60)]
    releases = [rng.random() < 0.5 for _ in seq]

    def replay() -> list[dict[str, int]]:
        ids: GroupIds[str] = GroupIds()
        out = []
        for keys, rel in zip(seq, releases, strict=True):
            out.append(ids.assign("s", keys))
            if rel:
                ids.release("s")
        return out

    first = replay()
    assert first == replay()
    # and at no point do two live keys share an id, nor a pending id go to a new key
    ids: GroupIds[str] = GroupIds()
    held: dict[int, str] = {}  # id -> the key that held it last
    for keys, rel in zip(seq, releases, strict=True):
        pending_before = ids.pending("s")
        got = ids.assign("s", keys)
        assert len(set(got.values())) == len(got)
        for k, v in got.items():
            if v in pending_before:
                assert held[v] == k  # only its own key takes a pending id back
            held[v] = k
        if rel:
            ids.release("s")


def test_limit() -> None:
    ids: GroupIds[str] = GroupIds(first_id=1, limit=3)
    assert ids.assign("s", ["a", "b"]) == {"a": 1, "b": 2}
    with pytest.raises(GroupIdError, match="more than 2 next-hop groups"):
        ids.assign("s", ["a", "b", "c"])
    with pytest.raises(ValueError, match="empty range"):
        GroupIds(first_id=4, limit=4)
