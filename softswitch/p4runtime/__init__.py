"""The P4Runtime server of softswitch (gRPC, the `p4runtime` protobufs)."""

from .errors import P4RuntimeError
from .server import P4RuntimeServer, api_version

__all__ = ["P4RuntimeError", "P4RuntimeServer", "api_version"]
