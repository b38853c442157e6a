"""P4Runtime errors with the canonical gRPC codes the specification prescribes.

`P4RuntimeError` is the one the controller raises too (`p4rt_proto.errors`), re-exported
here; `from_switch_error` turns an engine error into it.
"""

from __future__ import annotations

import grpc

from p4rt_proto.errors import P4RuntimeError

from ..engine.errors import SwitchError

__all__ = ["P4RuntimeError", "from_switch_error"]


def from_switch_error(e: SwitchError) -> P4RuntimeError:
    """Engine errors carry the canonical code name (INVALID_ARGUMENT, NOT_FOUND, ...)."""
    code = getattr(grpc.StatusCode, e.code, grpc.StatusCode.UNKNOWN)
    return P4RuntimeError(code, str(e))
