"""Kept for existing imports: the P4Runtime bindings live in the neutral `p4rt_proto`."""

from p4rt_proto import (
    OldStyleProtoFinder,
    install,
    modules,
    p4data_pb2,
    p4info_pb2,
    p4runtime_pb2,
    p4runtime_pb2_grpc,
    p4types_pb2,
)

__all__ = [
    "OldStyleProtoFinder",
    "install",
    "modules",
    "p4data_pb2",
    "p4info_pb2",
    "p4runtime_pb2",
    "p4runtime_pb2_grpc",
    "p4types_pb2",
]
