"""Differential runs: the same P4 program and packets on softswitch and on BMv2.

One program (its STF test, a pcap, or both), outputs compared byte for byte:

    python -m bench.differential PROG.p4 [TEST.stf] [-I DIR] [--pcap PORT=FILE.pcap ...]

Every v1model program with an STF test in a directory (p4c's testdata/p4_16_samples),
with the agreement figure at the end:

    python -m bench.differential --samples P4C/testdata/p4_16_samples [--match TEXT] [-j 2]

`--without-stf` takes instead the v1model programs that have no STF test, each with a set
of common and random frames on ports 0 to 7 (`probes.py`; tables without entries run
their default actions).

`--fuzz N` also runs each test with N mutated copies after each of its packets (seeded by
`--seed`); `--cli PATH` names simple_switch_CLI (default: PATH, then next to
simple_switch); `--keep DIR` keeps the work files (BMv2 JSON, switch logs).

Needs p4c-bm2-ss, simple_switch and simple_switch_CLI (found on PATH). Prints one line per
case that does not agree, then for the tests as written (and for the fuzzed runs)
`agree A, differ D, refused R, excluded E; agreement: A of A+D+R (P %)`. Exit status: 0
all compared cases agree, 1 some differ (or softswitch refuses a program p4c compiles) or
bad arguments, 2 BMv2 is not installed.
Cases are excluded, and said why, when BMv2 cannot run them (p4c refuses the program, the
switch aborts) or neither runner supports a command in the test.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from softswitch.ports import read_pcap
from softswitch.stf import StfError
from softswitch.stf import parser as P

from ..p4c_conformance import v1model_programs
from .bmv2 import Bmv2Tools
from .compare import AGREE, DIFFER, EXCLUDED, REFUSED, Case, Differ, Outcome
from .fuzz import fuzz_commands
from .probes import probe_commands, uses_random

FUZZ_SUFFIX = " (fuzz)"


def _cases(case: Case, fuzz: int, seed: int) -> list[Case]:
    out = [case]
    if fuzz:
        rng = random.Random(f"{seed}:{case.name}")
        out.append(replace(case, name=f"{case.name}{FUZZ_SUFFIX}", commands=fuzz_commands(
            case.commands, fuzz, rng
        )))  # fmt: skip
    return out


def _run_program(
    args: tuple[Path, Path | None, Sequence[Path], int, int, str | None, Path, bool],
) -> list[Outcome]:
    program, stf, include_dirs, fuzz, seed, cli, work, probes = args
    tools = Bmv2Tools.find(cli)
    assert tools is not None
    try:
        if probes:
            if uses_random(program.read_text(errors="replace")):
                return [Outcome(program.stem, EXCLUDED, "calls random(): the targets draw apart")]
            commands = probe_commands(program.stem, seed)
        else:
            commands = tuple(P.parse_stf_file(stf or program.with_suffix(".stf")))
    except (StfError, OSError) as e:
        return [Outcome(program.stem, EXCLUDED, f"stf: {e}")]
    differ = Differ(tools, Path(tempfile.mkdtemp(prefix=f"{program.stem}-", dir=work)))
    case = Case(program.stem, program, commands, tuple(include_dirs))
    out = []
    for c in _cases(case, fuzz, seed):
        try:
            out.append(differ.run(c))
        except Exception as e:  # noqa: BLE001 - one broken case must not end the run
            out.append(Outcome(c.name, EXCLUDED, f"internal error: {type(e).__name__}: {e}"))
    return out


def _report(outcomes: list[Outcome], first: str = "STF tests") -> bool:
    """Print the summary (the tests as written, then the fuzzed runs); True if every
    compared case agreed."""
    ok = True
    fuzzed = [o for o in outcomes if o.name.endswith(FUZZ_SUFFIX)]
    plain = [o for o in outcomes if not o.name.endswith(FUZZ_SUFFIX)]
    for label, group in ((first, plain), ("fuzzed", fuzzed)):
        if not group:
            continue
        n = Counter(o.verdict for o in group)
        compared = n[AGREE] + n[DIFFER] + n[REFUSED]
        share = f" ({100 * n[AGREE] / compared:.1f} %)" if compared else ""
        print(
            f"{label}: agree {n[AGREE]}, differ {n[DIFFER]}, refused {n[REFUSED]}, "
            f"excluded {n[EXCLUDED]}; agreement: {n[AGREE]} of {compared}{share}"
        )
        ok = ok and n[DIFFER] + n[REFUSED] == 0
    return ok


def _pcap_packets(specs: Sequence[str]) -> list[P.Command]:
    out: list[P.Command] = []
    for spec in specs:
        port, sep, name = spec.partition("=")
        if not sep or not port.isdigit():
            raise ValueError(f"--pcap {spec}: expected PORT=FILE")
        path = Path(name)
        if not path.exists():
            raise ValueError(f"--pcap {spec}: {path}: no such file")
        out.extend(P.Packet(int(port), r.data.hex()) for r in read_pcap(path))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.differential", description=__doc__.splitlines()[0]
    )
    ap.add_argument("program", nargs="?", type=Path)
    ap.add_argument("stf", nargs="?", type=Path)
    ap.add_argument("--samples", type=Path, help="every v1model program with an .stf here")
    ap.add_argument(
        "--without-stf",
        action="store_true",
        help="with --samples: the programs without an .stf, on probe packets",
    )
    ap.add_argument("--match", default="", help="only programs whose name contains TEXT")
    ap.add_argument("-I", dest="include", action="append", type=Path, default=[])
    ap.add_argument("--pcap", action="append", default=[], metavar="PORT=FILE")
    ap.add_argument("--fuzz", type=int, default=0, metavar="N", help="mutants per packet")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--cli", help="simple_switch_CLI to use")
    ap.add_argument("--keep", type=Path, help="keep work files here")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print agreeing cases")
    args = ap.parse_args(argv)
    if (args.program is None) == (args.samples is None):
        ap.error("give a PROGRAM or --samples DIR")
    tools = Bmv2Tools.find(args.cli)
    if tools is None:
        print("BMv2 not found: needs p4c-bm2-ss, simple_switch and simple_switch_CLI on PATH")
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="differential-"))
    work.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    if args.program is not None:
        if not args.program.exists():
            print(f"{args.program}: no such file")
            return 1
        try:
            commands = list(P.parse_stf_file(args.stf)) if args.stf else []
            if args.stf is None and not args.pcap and args.program.with_suffix(".stf").exists():
                commands = list(P.parse_stf_file(args.program.with_suffix(".stf")))
            commands += _pcap_packets(args.pcap)
        except (StfError, OSError, ValueError) as e:
            print(f"error: {e}")
            return 1
        case = Case(args.program.stem, args.program, tuple(commands), tuple(args.include))
        differ = Differ(tools, work)
        outcomes = [differ.run(c) for c in _cases(case, args.fuzz, args.seed)]
    else:
        with_stf = not args.without_stf
        programs = [p for p in v1model_programs(args.samples, with_stf) if args.match in p.name]
        jobs = [(p, None, [args.samples, *args.include], args.fuzz, args.seed, args.cli, work,
                 args.without_stf) for p in programs]  # fmt: skip
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for got in pool.map(_run_program, jobs):
                for o in got:
                    if o.verdict != AGREE or args.verbose:
                        print(f"{o.verdict.upper():8} {o.name}: {o.detail}".rstrip(": "),
                              flush=True)  # fmt: skip
                outcomes.extend(got)
    if args.program is not None:
        for o in outcomes:
            print(f"{o.verdict.upper():8} {o.name}: {o.detail}".rstrip(": "))
    return 0 if _report(outcomes, "probe packets" if args.without_stf else "STF tests") else 1


if __name__ == "__main__":
    sys.exit(main())
