"""Errors of control-plane operations, named after the canonical gRPC codes P4Runtime uses."""

from __future__ import annotations


class SwitchError(Exception):
    """A control-plane operation failed; `code` is the canonical gRPC status name."""

    code = "UNKNOWN"


class InvalidArgument(SwitchError):
    code = "INVALID_ARGUMENT"


class NotFound(SwitchError):
    code = "NOT_FOUND"


class AlreadyExists(SwitchError):
    code = "ALREADY_EXISTS"


class ResourceExhausted(SwitchError):
    code = "RESOURCE_EXHAUSTED"


class OutOfRange(SwitchError):
    code = "OUT_OF_RANGE"


class PermissionDenied(SwitchError):
    code = "PERMISSION_DENIED"


class Unimplemented(SwitchError):
    code = "UNIMPLEMENTED"


class FailedPrecondition(SwitchError):
    code = "FAILED_PRECONDITION"
