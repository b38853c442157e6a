from __future__ import annotations

import pytest

from fabricsim.run import fabric_program
from softswitch.codegen.program import CompiledProgram


@pytest.fixture(scope="session")
def program() -> CompiledProgram:
    """p4src/fabric.p4, compiled once for every simulation test."""
    return fabric_program()
