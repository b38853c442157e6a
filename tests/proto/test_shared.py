"""What the switch and the controller share from p4rt_proto is one class each, whichever
side's name a caller imports it by."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

import controller
import controller.entities
import softswitch
import softswitch.engine.matches
import softswitch.p4info
import softswitch.p4runtime.errors
from controller import codec, errors, targets
from p4rt_proto import errors as shared
from p4rt_proto import matches
from softswitch.ports import afpacket


def test_one_p4runtime_error() -> None:
    assert softswitch.P4RuntimeError is controller.P4RuntimeError is shared.P4RuntimeError
    assert softswitch.p4runtime.errors.P4RuntimeError is shared.P4RuntimeError
    assert issubclass(errors.P4RuntimeWriteError, softswitch.P4RuntimeError)
    server = shared.P4RuntimeError(grpc.StatusCode.NOT_FOUND, "no such table")
    assert str(server) == "NOT_FOUND: no such table"  # the switch's status message
    client = shared.P4RuntimeError(grpc.StatusCode.NOT_FOUND, "no such table", "Write")
    assert str(client) == "Write: NOT_FOUND: no such table"


def test_one_p4info_error_that_is_a_value_and_a_key_error() -> None:
    assert softswitch.p4info.P4InfoError is controller.P4InfoError is shared.P4InfoError
    with pytest.raises(ValueError, match="wrong 8-bit prefix"):  # softswitch's: not built
        softswitch.p4info.IdAllocator().add(softswitch.p4info.Prefix.TABLE, "t", 0x01000001)
    with pytest.raises(KeyError) as e:  # the controller's: a name not in the P4Info
        raise controller.P4InfoError("no table 'x' in the P4Info (tables: y)")
    assert str(e.value) == "no table 'x' in the P4Info (tables: y)"  # not quoted


def test_one_set_of_match_values() -> None:
    assert softswitch.Exact is softswitch.engine.matches.Exact is controller.Exact
    assert controller.entities.OptionalMatch is softswitch.Optional is matches.Optional
    assert {softswitch.Lpm, softswitch.Ternary, softswitch.Range} == {
        codec.Lpm,
        codec.Ternary,
        codec.Range,
    }


def test_one_in_netns() -> None:
    assert targets.in_netns is afpacket.in_netns


def test_shared_modules_load_neither_side() -> None:
    code = (
        "import sys, p4rt_proto.errors, p4rt_proto.matches, p4rt_proto.netns\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('softswitch', 'controller')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"
