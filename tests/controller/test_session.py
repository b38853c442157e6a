"""Connection, arbitration, the pipeline RPCs and error reporting."""

from __future__ import annotations

import grpc
import pytest

from controller import (
    P4RuntimeError,
    P4RuntimeReadError,
    P4RuntimeSession,
    P4RuntimeWriteError,
    Update,
    config_cookie,
)

from .conftest import Pipeline, Switch
from .world import packet


def test_primary_and_backup(switch: Switch, sw: P4RuntimeSession) -> None:
    assert sw.is_primary
    backup = P4RuntimeSession(switch.address, device_id=1, election_id=5)
    with pytest.raises(P4RuntimeError, match="not primary") as err:
        backup.connect(timeout=5)
    assert err.value.code == grpc.StatusCode.PERMISSION_DENIED
    backup.connect(timeout=5, wait_primary=False)
    try:
        assert not backup.is_primary
        backup.use_p4info(sw.schema.p4info)
        with pytest.raises(P4RuntimeError) as err:
            backup.insert(backup.table_entry("route", {"c": "10.0.0.0/8"}, "drop"))
        assert err.value.code == grpc.StatusCode.PERMISSION_DENIED
    finally:
        backup.close()
    assert sw.is_primary


def test_no_server_is_unavailable() -> None:
    with pytest.raises(P4RuntimeError, match="no P4Runtime server") as err:
        P4RuntimeSession("127.0.0.1:1", device_id=1).connect(timeout=0.5)
    assert err.value.code == grpc.StatusCode.UNAVAILABLE


def test_wrong_device_id_is_reported(switch: Switch) -> None:
    s = P4RuntimeSession(switch.address, device_id=99)
    with pytest.raises(P4RuntimeError, match="not primary"):
        s.connect(timeout=5)


def test_pipeline_cookie_and_ensure(sw: P4RuntimeSession, pipeline: Pipeline) -> None:
    got = sw.get_pipeline()
    assert got.cookie == config_cookie(pipeline.p4info, pipeline.device_config)
    assert got.device_config == pipeline.device_config
    assert got.p4info is not None and got.p4info.tables[0].preamble.name
    sw.insert(sw.table_entry("route", {"c": "10.0.0.0/8"}, "fwd", {"port": 2}))
    assert not sw.ensure_pipeline(pipeline.p4info, pipeline.device_config)
    assert len(list(sw.read_table("route"))) == 1  # not pushed again: the entry is kept
    sw.set_pipeline(pipeline.p4info, pipeline.device_config, cookie=7)
    assert sw.get_pipeline("COOKIE_ONLY").cookie == 7
    assert sw.ensure_pipeline(pipeline.p4info, pipeline.device_config)
    assert list(sw.read_table("route")) == []


def test_write_errors_name_each_failed_update(sw: P4RuntimeSession, switch: Switch) -> None:
    ok = sw.table_entry("route", {"c": "10.1.0.0/16"}, "fwd", {"port": 3})
    missing = sw.table_entry("route", {"c": "10.2.0.0/16"}, "fwd", {"port": 3})
    sw.insert(ok)
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write(
            [
                Update.modify(ok),
                Update.insert(ok),  # exists
                Update.insert(sw.table_entry("route", {"c": "10.3.0.0/16"}, "drop")),
                Update.delete(missing),  # never inserted
            ]
        )
    e = err.value
    assert [(x.index, x.code) for x in e.errors] == [
        (1, grpc.StatusCode.ALREADY_EXISTS),
        (3, grpc.StatusCode.NOT_FOUND),
    ]
    text = str(e)
    assert "update 1: ALREADY_EXISTS" in text and "[INSERT table_entry]" in text
    assert "update 3: NOT_FOUND" in text and "[DELETE table_entry]" in text
    # CONTINUE_ON_ERROR: the updates that could be applied were
    assert {x.match["c"].prefix_len for x in sw.read_table("route")} == {16}
    assert len(list(sw.read_table("route"))) == 2
    switch.send(1, packet(2, c=0x0A010203))
    assert switch.recv(3) is not None


def test_rollback_on_error_is_passed_through(sw: P4RuntimeSession) -> None:
    e = sw.table_entry("route", {"c": "10.1.0.0/16"}, "drop")
    try:
        sw.write([Update.insert(e), Update.insert(e)], atomicity="ROLLBACK_ON_ERROR")
    except P4RuntimeWriteError as err:
        assert [x.index for x in err.errors if x.code == grpc.StatusCode.ALREADY_EXISTS] == [1]
        assert list(sw.read_table("route")) == []  # rolled back
    except P4RuntimeError as err:  # a target without rollback
        assert err.code == grpc.StatusCode.UNIMPLEMENTED


def test_read_errors_are_unwrapped(sw: P4RuntimeSession) -> None:
    with pytest.raises(P4RuntimeReadError) as err:
        list(sw.read(sw.counter("by_d", 100)))
    assert err.value.errors[0].index == 0
    assert "entity 0:" in str(err.value)
