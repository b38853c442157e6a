"""Fixtures of the live-fabric tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.fabric.runner import FabricRun


@pytest.fixture
def live(fabric: FabricRun) -> Iterator[FabricRun]:
    """The module's running `fabric`, every fault cleared after the test."""
    yield fabric
    fabric.faults.request({"op": "clear", "all": True})
