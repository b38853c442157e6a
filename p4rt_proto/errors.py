"""The two errors both ends of P4Runtime raise: the switch (`softswitch.p4runtime`,
`softswitch.p4info`) and the controller (`controller.errors`, `controller.p4info`) each
re-export them, so an `except` on either side's name catches what the other raises.

Loaded only when imported (the package's start-up import does not load it); standard
library only (`grpc` is named in annotations, not imported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc

__all__ = ["P4InfoError", "P4RuntimeError"]


class P4RuntimeError(Exception):
    """A P4Runtime request failed: `code` is its gRPC status code, `message` the reason.

    The switch raises it to answer a request with that status; the controller raises it
    (and the subclasses in `controller.errors`) when an RPC failed as a whole, with `rpc`
    naming the RPC (`Write`, `Read`, `StreamChannel`, ...), shown before the code."""

    def __init__(self, code: grpc.StatusCode, message: str, rpc: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rpc = rpc

    def __str__(self) -> str:
        where = f"{self.rpc}: " if self.rpc else ""
        return f"{where}{self.code.name}: {self.message}"

    @classmethod
    def of(cls, err: grpc.RpcError, rpc: str = "") -> P4RuntimeError:
        """The error a failed gRPC call raised, as a P4RuntimeError of `rpc`."""
        return cls(err.code(), err.details() or "", rpc)  # type: ignore[attr-defined]


class P4InfoError(KeyError, ValueError):
    """A P4Info problem: a program whose P4Info cannot be built (a bad or duplicate `@id`,
    a type P4Info cannot describe: `softswitch.p4info`), or a name a P4Info does not have
    or has more than once (`controller.p4info`). Both a `ValueError` and a `KeyError`, so
    an `except` written for either keeps catching it. Shown as its message (not quoted, as
    a bare `KeyError` would be)."""

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()
