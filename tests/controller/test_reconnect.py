"""A controller that closes its session and reconnects at once with the same election id
becomes primary again (the switch may still be dropping the old stream); a live
controller's election id stays refused."""

from __future__ import annotations

import time

import pytest

from controller import P4RuntimeError, P4RuntimeSession

from .conftest import Switch


def test_reconnect_with_the_same_election_id(switch: Switch) -> None:
    for _ in range(20):
        with P4RuntimeSession(switch.address, device_id=1, election_id=77) as s:
            assert s.is_primary


def test_a_live_controllers_election_id_is_still_refused(switch: Switch) -> None:
    with P4RuntimeSession(switch.address, device_id=1, election_id=78) as first:
        t0 = time.monotonic()
        with pytest.raises(P4RuntimeError, match="already used"):
            P4RuntimeSession(switch.address, device_id=1, election_id=78).connect(timeout=5)
        assert time.monotonic() - t0 < 5  # retried for a short grace, not the whole timeout
        assert first.is_primary
