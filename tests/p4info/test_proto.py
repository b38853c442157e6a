"""The P4Runtime bindings load on the fast (upb) protobuf runtime."""

from __future__ import annotations

import sys

import p4rt_proto  # noqa: F401


def test_bindings_import_on_upb() -> None:
    from google.protobuf.internal import api_implementation
    from p4.config.v1 import p4info_pb2
    from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

    assert api_implementation.Type() == "upb"
    assert hasattr(p4runtime_pb2_grpc, "P4RuntimeStub")
    assert hasattr(p4runtime_pb2_grpc, "P4RuntimeServicer")
    entry = p4runtime_pb2.TableEntry(table_id=0x02000001, priority=3)
    entry.match.add(field_id=1).exact.value = b"\x0a"
    assert p4runtime_pb2.TableEntry.FromString(entry.SerializeToString()) == entry
    info = p4info_pb2.P4Info()
    info.pkg_info.arch = "v1model"
    assert info.pkg_info.arch == "v1model"


def test_lazy_module_attributes() -> None:
    from p4rt_proto import p4info_pb2, p4runtime_pb2

    assert p4info_pb2 is sys.modules["p4.config.v1.p4info_pb2"]
    assert p4runtime_pb2.WriteRequest.DESCRIPTOR.full_name == "p4.v1.WriteRequest"


def test_install_is_idempotent() -> None:
    from p4rt_proto import OldStyleProtoFinder, install

    install()
    install()
    assert sum(isinstance(f, OldStyleProtoFinder) for f in sys.meta_path) == 1
