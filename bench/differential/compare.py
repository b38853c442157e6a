"""One differential case: the same program and STF commands on softswitch and on BMv2,
the packets each observed port sent compared byte for byte."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from softswitch.compiler import compile_file
from softswitch.engine.errors import Unimplemented
from softswitch.frontend.errors import P4Error, P4Unsupported
from softswitch.stf import parser as P
from softswitch.stf import run_stf_commands

from .bmv2 import Bmv2Error, Bmv2Tools, Untranslatable, compile_bmv2, run_on_bmv2

__all__ = ["AGREE", "DIFFER", "EXCLUDED", "REFUSED", "Case", "Outcome", "compare_outputs"]

AGREE = "agree"  # every observed port sent the same bytes on both
DIFFER = "differ"  # some port's packets differ
REFUSED = "refused"  # p4c compiles it, softswitch refuses it (a fidelity gap too)
EXCLUDED = "excluded"  # cannot be compared: BMv2 failed/aborted, or a feature neither runs


@dataclass(slots=True, frozen=True)
class Outcome:
    name: str
    verdict: str
    detail: str = ""


@dataclass(slots=True, frozen=True)
class Case:
    """A program and the STF commands to run on it (`name` labels the report)."""

    name: str
    program: Path
    commands: tuple[P.Command, ...]
    include_dirs: tuple[Path, ...] = ()


def compare_outputs(
    ours: dict[int, list[bytes]], theirs: dict[int, list[bytes]], limit: int = 3
) -> list[str]:
    """Differences between two port -> frames maps, one line each (at most `limit`)."""
    out: list[str] = []
    for port in sorted(set(ours) | set(theirs)):
        a, b = ours.get(port, []), theirs.get(port, [])
        if len(a) != len(b):
            out.append(f"port {port}: softswitch sent {len(a)} packets, BMv2 {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                at = next((j for j in range(min(len(x), len(y))) if x[j] != y[j]), None)
                where = f"byte {at}" if at is not None else f"length {len(x)} vs {len(y)}"
                out.append(
                    f"port {port} packet {i}: differ at {where}\n"
                    f"    softswitch {x.hex()}\n    bmv2       {y.hex()}"
                )
                break
    return out[:limit]


class Differ:
    """Runs cases on both targets; compiles each program once per target."""

    def __init__(self, tools: Bmv2Tools, work: Path | None = None) -> None:
        self.tools = tools
        self.work = Path(work or tempfile.mkdtemp(prefix="differential-"))
        self.work.mkdir(parents=True, exist_ok=True)
        self._programs: dict[Path, object] = {}
        self._configs: dict[Path, Path] = {}
        self._count = 0

    def _softswitch(self, case: Case) -> object:
        if case.program not in self._programs:
            self._programs[case.program] = compile_file(case.program, list(case.include_dirs))
        return self._programs[case.program]

    def _bmv2(self, case: Case) -> Path:
        if case.program not in self._configs:
            out = self.work / f"{case.program.stem}.json"
            self._configs[case.program] = compile_bmv2(
                self.tools, case.program, out, case.include_dirs
            )
        return self._configs[case.program]

    def outputs(self, case: Case) -> tuple[dict[int, list[bytes]], dict[int, list[bytes]]]:
        """(softswitch's, BMv2's) outputs; raises what `run` classifies."""
        config = self._bmv2(case)
        program = self._softswitch(case)
        ours = run_stf_commands(program, list(case.commands))
        if ours.status == "unsupported":
            raise Unimplemented(ours.reason)
        self._count += 1
        theirs = run_on_bmv2(self.tools, config, case.commands, self.work / f"run{self._count}")
        if theirs.aborted:
            raise Bmv2Error(f"BMv2 aborted: {theirs.aborted}")
        return ours.outputs, theirs.outputs

    def run(self, case: Case) -> Outcome:
        try:
            ours, theirs = self.outputs(case)
        except Bmv2Error as e:
            return Outcome(case.name, EXCLUDED, str(e))
        except (P4Unsupported, Unimplemented, Untranslatable) as e:
            return Outcome(case.name, EXCLUDED, f"unsupported: {e}")
        except P4Error as e:
            return Outcome(case.name, REFUSED, str(e).splitlines()[0])
        diffs = compare_outputs(ours, theirs)
        if diffs:
            return Outcome(case.name, DIFFER, "\n  ".join(diffs))
        return Outcome(case.name, AGREE)


def stf_case(program: Path, stf: Path | None = None, include_dirs: Sequence[Path] = ()) -> Case:
    """A case from an STF file (default: the program's name with .stf)."""
    stf = stf or program.with_suffix(".stf")
    return Case(program.stem, program, tuple(P.parse_stf_file(stf)), tuple(include_dirs))


__all__ += ["Differ", "stf_case"]
