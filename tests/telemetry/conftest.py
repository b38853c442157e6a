from __future__ import annotations

import pytest

from softswitch.program_info import CompiledProgram
from tests.fabric.fabric import compile_fabric


@pytest.fixture(scope="module")
def program() -> CompiledProgram:
    """p4src/fabric.p4 (full profile), compiled once per test module."""
    return compile_fabric()
