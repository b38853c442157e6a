"""PTF packet tests of p4src/fabric.p4, target-agnostic (softswitch or BMv2).

    python ptf_tests/run.py --target softswitch          # in-process softswitch (default)
    python ptf_tests/run.py --target softswitch --veth   # softswitch process on veth pairs (root)
    python ptf_tests/run.py --target bmv2                # simple_switch_grpc on veth pairs (root)

`run.py` compiles the program, starts the switch and runs PTF with `tests/` (one module per
feature); `lib/` holds the base class (`FabricTest`), packet transformations and the target
glue; `platforms/` the PTF platform modules.
"""
