"""P4Runtime errors as the client reports them.

A failed RPC becomes a `P4RuntimeError` (its gRPC code and message; the class softswitch
raises too, from `p4rt_proto.errors`). A Write or Read in which some batch elements failed
comes back, per the specification ("Error Reporting Messages"), as status UNKNOWN with a
`google.rpc.Status` in the `grpc-status-details-bin` trailer holding one `p4.v1.Error` per
element; `P4RuntimeWriteError` unwraps it:

    P4RuntimeWriteError: Write failed: 1 of 3 updates
      update 2: NOT_FOUND: unknown table 33554432 [INSERT table_entry]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.rpc import status_pb2

from p4rt_proto import p4runtime_pb2 as p4r
from p4rt_proto.errors import P4RuntimeError

__all__ = [
    "DETAILS_KEY",
    "ElementError",
    "P4RuntimeError",
    "P4RuntimeReadError",
    "P4RuntimeWriteError",
    "StreamError",
    "element_errors",
]

DETAILS_KEY = "grpc-status-details-bin"
_CODES = {c.value[0]: c for c in grpc.StatusCode}


@dataclass(frozen=True, slots=True)
class ElementError:
    """The failure of one batch element (an update of a Write, an entity of a Read)."""

    index: int
    code: grpc.StatusCode
    message: str
    space: str = ""
    what: str = ""  # e.g. "INSERT table_entry"

    def __str__(self) -> str:
        what = f" [{self.what}]" if self.what else ""
        return f"{self.index}: {self.code.name}: {self.message}{what}"


class P4RuntimeWriteError(P4RuntimeError):
    """Some updates of a Write failed; `errors` has one `ElementError` per failed update
    (index into the request's updates)."""

    def __init__(self, code: grpc.StatusCode, message: str, errors: Sequence[ElementError]) -> None:
        super().__init__(code, message, "Write")
        self.errors = list(errors)

    def __str__(self) -> str:
        if not self.errors:
            return super().__str__()
        head = f"Write failed: {len(self.errors)} update(s)"
        return head + "".join(f"\n  update {e}" for e in self.errors)


class P4RuntimeReadError(P4RuntimeError):
    """Some entities of a Read failed (the others' results were returned first)."""

    def __init__(self, code: grpc.StatusCode, message: str, errors: Sequence[ElementError]) -> None:
        super().__init__(code, message, "Read")
        self.errors = list(errors)

    def __str__(self) -> str:
        if not self.errors:
            return super().__str__()
        return f"Read failed: {len(self.errors)} entity request(s)" + "".join(
            f"\n  entity {e}" for e in self.errors
        )


class StreamError(P4RuntimeError):
    """A `StreamError` the switch sent on the stream (a refused packet-out or ack)."""


def element_errors(err: grpc.RpcError, labels: Sequence[str] = ()) -> list[ElementError] | None:
    """The failed elements of a batch RPC error, or None if it carries no details."""
    trailers = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailers or ():
        if key != DETAILS_KEY:
            continue
        status = status_pb2.Status.FromString(value)
        out: list[ElementError] = []
        for i, detail in enumerate(status.details):
            e = p4r.Error()
            if not detail.Unpack(e):
                continue
            if e.canonical_code == 0:
                continue
            code = _CODES.get(e.canonical_code, grpc.StatusCode.UNKNOWN)
            what = labels[i] if i < len(labels) else ""
            out.append(ElementError(i, code, e.message, e.space, what))
        return out
    return None


def describe(update: Any) -> str:
    """ "INSERT table_entry" for a p4.v1.Update."""
    return f"{p4r.Update.Type.Name(update.type)} {update.entity.WhichOneof('entity')}"
