"""The P4Runtime server of softswitch (gRPC, the `p4runtime` protobufs)."""
