"""softswitch against p4c's own v1model test programs (not shipped with this project).

Given p4c's `testdata/p4_16_samples` (and optionally `testdata/p4_16_samples_outputs`), run
every v1model program that has an `.stf` test through `softswitch stf`, and compare the
P4Info softswitch writes with p4c's reference P4Info (documentation strings ignored):

    python -m bench.p4c_conformance --samples P4C/testdata/p4_16_samples \\
        --outputs P4C/testdata/p4_16_samples_outputs

`--all-p4info` compares the P4Info of every v1model sample p4c has one for, with or
without an STF test (those p4c-bm2-ss refuses count as not compiled when softswitch
refuses them too).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from google.protobuf import text_format

from p4rt_proto import p4info_pb2
from softswitch.compiler import P4Error, compile_file
from softswitch.p4info import p4info_for
from softswitch.stf import run_stf


def v1model_programs(samples: Path, with_stf: bool | None = None) -> list[Path]:
    """The samples that include v1model.p4: all of them, or (`with_stf`) those that have
    an .stf test, or (False) those that have none. A link to a file that is not there
    (p4c's tree links some samples into backends a partial copy lacks) is skipped."""
    return [
        p
        for p in sorted(samples.glob("*.p4"))
        if p.is_file()
        and (with_stf is None or p.with_suffix(".stf").is_file() == with_stf)
        and "v1model.p4" in p.read_text(errors="replace")
    ]


def strip_doc(msg: object) -> None:
    """Clear every `doc` field (p4c fills them from comments, softswitch does not)."""
    for fd, value in list(msg.ListFields()):  # type: ignore[attr-defined]
        if fd.name == "doc":
            msg.ClearField("doc")  # type: ignore[attr-defined]
        elif fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
            for v in value if fd.is_repeated else [value]:
                strip_doc(v)


def comparable(msg: p4info_pb2.P4Info, theirs: p4info_pb2.P4Info) -> p4info_pb2.P4Info:
    """`msg` (either side) cleared in place of what p4c and softswitch may rightly write
    differently: every `doc`, and each table's `initial_default_action` when p4c's P4Info
    `theirs` has none (p4c writes that field only since 1.2.4.15)."""
    strip_doc(msg)
    if not any(t.HasField("initial_default_action") for t in theirs.tables):
        for t in msg.tables:
            t.ClearField("initial_default_action")
    return msg


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=Path, required=True)
    ap.add_argument("--outputs", type=Path, help="p4c's expected outputs (for P4Info)")
    ap.add_argument(
        "--all-p4info",
        action="store_true",
        help="with --outputs: the P4Info of every v1model sample, not only those with an STF",
    )
    args = ap.parse_args()
    programs = v1model_programs(args.samples, with_stf=True)
    passed = 0
    for p in programs:
        r = run_stf(p, include_dirs=[args.samples])
        if r.status == "pass":
            passed += 1
        else:
            print(f"STF FAIL {p.stem}: {r.reason}", flush=True)
    print(f"STF: {passed} passed, {len(programs) - passed} failed")
    if args.outputs is None:
        return 0
    same = compared = refused = 0
    for p in v1model_programs(args.samples) if args.all_p4info else programs:
        golden = args.outputs / f"{p.name}.p4info.txtpb"
        if not golden.exists():
            continue
        compared += 1
        try:
            ours = p4info_for(compile_file(p, [args.samples]))
        except P4Error as e:
            print(f"P4Info {p.stem}: not compiled: {e}")
            refused += 1
            continue
        theirs = text_format.Parse(golden.read_text(), p4info_pb2.P4Info())
        strip_doc(ours)
        strip_doc(theirs)
        if ours == theirs:
            same += 1
        else:
            print(f"P4Info differs: {p.stem}")
    print(f"P4Info: {same} of {compared} identical to p4c's ({refused} not compiled)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
