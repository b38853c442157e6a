"""A reconcile compares the read-back by encoding (`controller.fabric.readback`): the plan is
the one `reconcile.plan` makes of the decoded read, entries that are as desired are not
decoded, and an entry changed behind the controller's back is still found and fixed."""

from __future__ import annotations

import dataclasses

import pytest

from controller import P4RuntimeSession, codec
from controller.entities import Action, CloneSession, Entity, Replica, TableEntry
from controller.fabric import FabricSessions, Pipeline, plan
from controller.fabric.readback import DesiredIndex, ReadKeys
from controller.fabric.reconcile import Plan, wildcards
from controller.p4info import P4Schema
from controller.p4rt import config_cookie
from p4rt_proto import p4runtime_pb2 as p4r

from .conftest import LocalSwitch
from .test_sessions import canonical, desired_for, read_state


def _summary(p: Plan) -> tuple[list, list, list]:
    return (p.inserts, p.modifies, p.deletes)


def _messages(schema: P4Schema, entities: list[Entity]) -> list[p4r.Entity]:
    return [codec.encode_entity(schema, e) for e in entities]


def _first(entities: list[Entity], table: str) -> TableEntry:
    return next(e for e in entities if isinstance(e, TableEntry) and e.table.endswith(table))


def _with_param(e: TableEntry, **params: int) -> TableEntry:
    assert isinstance(e.action, Action)
    return dataclasses.replace(e, action=Action(e.action.name, {**e.action.params, **params}))


@pytest.fixture
def schema(fabric_pipeline: Pipeline) -> P4Schema:
    return P4Schema(fabric_pipeline.p4info)


def test_plan_is_the_decoded_plan(schema: P4Schema) -> None:
    desired = desired_for(schema, 1, routes=6)
    index = DesiredIndex(desired, ReadKeys(schema))
    assert len(index.by_key) == len(index.want)  # every one of these compares by encoding
    member = _first(desired, "next_hop_member")
    route = _first(desired, "routing_v4")
    stray = codec.table_entry(schema, "routing_v4", {"ipv4_dst": "192.168.0.0/16"}, "drop_route")
    cases = {
        "as desired": list(desired),
        "empty": [],
        "one changed": [_with_param(member, port=9) if e is member else e for e in desired],
        "one missing": [e for e in desired if e is not route],
        "one extra": [*desired, stray, CloneSession(7, (Replica(3),))],
        "read twice": [*desired, _with_param(route, group_id=2)],
    }
    for name, actual in cases.items():
        decoded = [codec.decode_entity(schema, m) for m in _messages(schema, actual)]
        want = _summary(plan(desired, decoded))
        got = _summary(
            index.plan(_messages(schema, actual), lambda m: codec.decode_entity(schema, m))
        )
        assert got == want, name


def test_entities_that_do_not_survive_encoding_take_the_general_path(schema: P4Schema) -> None:
    full = codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": "10.0.0.0/24"}, "set_next_hop_group", {"group_id": 1}
    )
    alias = dataclasses.replace(full, table="routing_v4")  # a name the Read does not return
    keys = ReadKeys(schema)
    assert keys.key(full) is not None
    assert keys.key(alias) is None
    assert keys.key(dataclasses.replace(full, is_const=False, counter=None)) is not None
    read = _messages(schema, [full])
    decode = lambda m: codec.decode_entity(schema, m)  # noqa: E731
    assert _summary(DesiredIndex([alias], keys).plan(read, decode)) == _summary(
        plan([alias], [decode(m) for m in read])
    )


def test_conflicting_desired_state_is_refused(schema: P4Schema) -> None:
    route = codec.table_entry(
        schema, "routing_v4", {"ipv4_dst": "10.0.0.0/24"}, "set_next_hop_group", {"group_id": 1}
    )
    with pytest.raises(ValueError, match="twice with different contents"):
        DesiredIndex([route, _with_param(route, group_id=2)], ReadKeys(schema))


def test_reconcile_finds_and_fixes_a_changed_entry(
    local_switches: list[LocalSwitch], fabric_pipeline: Pipeline
) -> None:
    schema = P4Schema(fabric_pipeline.p4info)
    s1 = local_switches[0]
    want = desired_for(schema, 1, routes=4)
    fab = FabricSessions([s1.target], fabric_pipeline, workers=2)
    try:
        fab.set_desired({"s1": want})
        fab.sync_all()
        sw = fab["s1"]
        decoded: list[p4r.Entity] = []

        def decode(m: p4r.Entity) -> Entity:
            decoded.append(m)
            return codec.decode_entity(schema, m)

        session = sw.connect()
        queries = wildcards(sw.managed_tables, sw.profiles)
        index = DesiredIndex(sw.desired, sw.read_keys)
        assert not index.plan(session.read_messages(*queries), decode)
        assert decoded == []  # nothing decoded when the switch holds what is desired

        # someone else changes a member (a two-field key) and a route behind our back
        member = _first(want, "next_hop_member")
        route = _first(want, "routing_v4")
        with P4RuntimeSession(s1.target.address, 1, election_id=100) as other:
            other.use_p4info(schema.p4info)
            other.modify(_with_param(member, port=7), _with_param(route, group_id=2))
        p = index.plan(session.read_messages(*queries), decode)
        assert canonical(p.modifies) == canonical([member, route])
        assert len(decoded) == 2

        r = fab.sync_all()["s1"]
        assert (r.inserted, r.modified, r.deleted) == (0, 2, 0)
        assert read_state(s1.target.address, 1, schema) == canonical(want)
        again = fab.sync_all()["s1"]
        assert again.changed == 0 and again.writes == 0
    finally:
        fab.close()


def test_pipeline_cookie_is_hashed_once_and_not_compared(fabric_pipeline: Pipeline) -> None:
    cookie = fabric_pipeline.cookie
    assert cookie == config_cookie(fabric_pipeline.p4info, fabric_pipeline.device_config)
    assert fabric_pipeline.cookie is cookie
    same = Pipeline(fabric_pipeline.p4info, fabric_pipeline.device_config)
    assert same == fabric_pipeline and same.cookie == cookie
    other = dataclasses.replace(fabric_pipeline, device_config=b"another")
    assert other.cookie == config_cookie(other.p4info, b"another") != cookie
