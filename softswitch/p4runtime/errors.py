"""P4Runtime errors with the canonical gRPC codes the specification prescribes."""

from __future__ import annotations

import grpc

from ..engine.errors import SwitchError

__all__ = ["P4RuntimeError", "from_switch_error"]


class P4RuntimeError(Exception):
    """A request failed; `code` is the gRPC status code to report, `message` the reason."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


def from_switch_error(e: SwitchError) -> P4RuntimeError:
    """Engine errors carry the canonical code name (INVALID_ARGUMENT, NOT_FOUND, ...)."""
    code = getattr(grpc.StatusCode, e.code, grpc.StatusCode.UNKNOWN)
    return P4RuntimeError(code, str(e))
