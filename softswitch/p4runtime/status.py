"""gRPC status of P4Runtime answers: canonical codes, per-update `p4.v1.Error` details.

The P4Runtime specification ("Error Reporting Messages", "Write RPC: Error Reporting",
"Read RPC: Batch Processing") reports a batch in which some elements failed as:

* RPC status `UNKNOWN` (gRPC code 2) with a developer-facing message;
* trailing metadata `grpc-status-details-bin`: a serialized `google.rpc.Status` whose
  `code` and `message` repeat the RPC status and whose `details` hold one packed
  `p4.v1.Error` per batch element, in request order: `canonical_code` OK (0) and nothing
  else for the elements that succeeded, the canonical code, a message and the error
  space for the ones that failed.

RPC-wide problems (wrong device id, not primary, no pipeline) are the RPC status itself,
without details. This is what BMv2's PI server sends too (its error space is
"ALL-sswitch-p4org"; softswitch names its own, `SPACE`; the vendor `code` stays 0).

`error_details(rpc_error)` is the client-side inverse, used by the tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

import grpc
from google.rpc import code_pb2, status_pb2

from p4rt_proto import p4runtime_pb2

from .errors import P4RuntimeError

__all__ = [
    "DETAILS_KEY",
    "MAX_MESSAGE",
    "SPACE",
    "RpcAbort",
    "Undecodable",
    "abort",
    "batch_status",
    "code_of",
    "decoder",
    "error_details",
    "ok_error",
    "p4_error",
    "status_code",
]

DETAILS_KEY = "grpc-status-details-bin"
SPACE = "ALL-softswitch"
MAX_MESSAGE = 1024  # characters of one element's error message (trailers are size-limited)

_BY_VALUE = {c.value[0]: c for c in grpc.StatusCode}


def code_of(value: int) -> grpc.StatusCode | None:
    """The gRPC status code with numeric value `value` (None if there is none)."""
    return _BY_VALUE.get(value)


def status_code(code: grpc.StatusCode) -> int:
    """The numeric value of a gRPC status code (= google.rpc.Code)."""
    return int(code.value[0])


def _short(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def ok_error() -> Any:
    """The `p4.v1.Error` of a batch element that succeeded: canonical_code OK, nothing else."""
    return p4runtime_pb2.Error(canonical_code=code_pb2.OK)


def p4_error(code: grpc.StatusCode, message: str) -> Any:
    """The `p4.v1.Error` of a failed batch element."""
    if code == grpc.StatusCode.OK:
        return ok_error()
    return p4runtime_pb2.Error(
        canonical_code=status_code(code), message=_short(message), space=SPACE
    )


def batch_status(errors: Sequence[Any], message: str) -> Any:
    """`google.rpc.Status` UNKNOWN with one packed `p4.v1.Error` per batch element."""
    status = status_pb2.Status(code=code_pb2.UNKNOWN, message=message)
    for e in errors:
        status.details.add().Pack(e)
    return status


class Undecodable:
    """A request whose bytes do not decode as its message type (answered INVALID_ARGUMENT).

    The server decodes requests itself rather than letting gRPC do it: grpcio aborts a
    streaming call whose request fails to decode behind the handler's back and never
    releases it, so that `Server.stop()` then waits forever (grpcio 1.85)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Undecodable({self.message!r})"


def decoder(cls: Any) -> Any:
    """A request deserializer for message class `cls` that returns `Undecodable` on bad bytes."""
    name = cls.DESCRIPTOR.full_name

    def decode(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except Exception as e:  # noqa: BLE001 - any decoding failure
            return Undecodable(f"cannot decode the request as {name}: {e}")

    return decode


class RpcAbort(Exception):
    """Ends an RPC with `code`/`message` (and a `google.rpc.Status` as details, if given)."""

    def __init__(self, code: grpc.StatusCode, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @classmethod
    def of(cls, e: P4RuntimeError) -> RpcAbort:
        return cls(e.code, e.message)


def abort(context: grpc.ServicerContext, failure: RpcAbort) -> NoReturn:
    """Terminate the RPC: details (if any) go in `grpc-status-details-bin`."""
    if failure.details is not None:
        context.set_trailing_metadata(((DETAILS_KEY, failure.details.SerializeToString()),))
    context.abort(failure.code, failure.message)
    raise AssertionError("grpc context.abort returned")  # pragma: no cover


def error_details(err: grpc.RpcError) -> tuple[Any, list[Any]] | None:
    """(google.rpc.Status, [p4.v1.Error]) carried by a failed call, None if it has none."""
    trailers = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            errors = []
            for d in status.details:
                e = p4runtime_pb2.Error()
                if not d.Unpack(e):
                    raise ValueError(f"status detail of type {d.type_url} is not a p4.v1.Error")
                errors.append(e)
            return status, errors
    return None
