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

from .bmv2 import Bmv2Error, Bmv2Run, Bmv2Tools, Untranslatable, compile_bmv2, run_on_bmv2

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

    def outputs(self, case: Case) -> tuple[dict[int, list[bytes]], Bmv2Run]:
        """softswitch's outputs and BMv2's run; raises what `run` classifies."""
        config = self._bmv2(case)
        program = self._softswitch(case)
        ours = run_stf_commands(program, list(case.commands))
        if ours.status == "unsupported":
            raise Unimplemented(ours.reason)
        self._count += 1
        theirs = run_on_bmv2(self.tools, config, case.commands, self.work / f"run{self._count}")
        if theirs.aborted:
            raise Bmv2Error(f"BMv2 aborted: {theirs.aborted}")
        return ours.outputs, theirs

    def run(self, case: Case) -> Outcome:
        try:
            ours, theirs = self.outputs(case)
        except Bmv2Error as e:
            return Outcome(case.name, EXCLUDED, str(e))
        except (P4Unsupported, Unimplemented, Untranslatable) as e:
            return Outcome(case.name, EXCLUDED, f"unsupported: {e}")
        except P4Error as e:
            return Outcome(case.name, REFUSED, str(e).splitlines()[0])
        diffs = compare_outputs(ours, theirs.outputs)
        if not diffs:
            return Outcome(case.name, AGREE)
        why = self.history_dependent(case, ours, theirs)
        if why:
            return Outcome(case.name, EXCLUDED, why)
        return Outcome(case.name, DIFFER, "\n  ".join(diffs))

    def history_dependent(self, case: Case, ours: dict[int, list[bytes]], theirs: Bmv2Run) -> str:
        """Why the first difference is BMv2's history, not softswitch's error ('' if not).

        BMv2 reuses a thread's header storage from packet to packet, so reading a field
        of an invalid header gives bits an earlier packet left there. The packet whose
        output differs first is run again alone, after the same control commands: if
        both targets agree on it then, and softswitch's output for it is the one it gave
        with the other packets before, only BMv2's output depended on those packets."""
        first = _first_difference(ours, theirs.outputs)
        if first is None:
            return ""
        port, i = first
        k = theirs.sources[port][i]
        alone: list[P.Command] = []
        seen = -1
        for c in case.commands:
            if isinstance(c, P.Packet):
                if len(c.data) % 2:
                    continue
                seen += 1
                if seen == k:
                    alone.append(c)
            elif isinstance(c, P.Expect) or seen < k:
                alone.append(c)
        solo = Case(case.name, case.program, tuple(alone), case.include_dirs)
        try:
            ours_alone, theirs_alone = self.outputs(solo)
        except (Bmv2Error, P4Error, Unimplemented, Untranslatable):
            return ""
        if compare_outputs(ours_alone, theirs_alone.outputs):
            return ""
        if i >= len(ours.get(port, [])) or ours[port][i] not in ours_alone.get(port, []):
            return ""
        return (
            f"BMv2's output for input packet {k} depends on the packets before it "
            f"(alone, both targets send {ours[port][i].hex()} on port {port}): stale bits "
            "of an invalid header"
        )


def _first_difference(
    ours: dict[int, list[bytes]], theirs: dict[int, list[bytes]]
) -> tuple[int, int] | None:
    """(port, index) of the first BMv2 frame that softswitch did not send the same."""
    for port in sorted(theirs):
        a = ours.get(port, [])
        for i, frame in enumerate(theirs[port]):
            if i >= len(a) or a[i] != frame:
                return port, i
    return None


def stf_case(program: Path, stf: Path | None = None, include_dirs: Sequence[Path] = ()) -> Case:
    """A case from an STF file (default: the program's name with .stf)."""
    stf = stf or program.with_suffix(".stf")
    return Case(program.stem, program, tuple(P.parse_stf_file(stf)), tuple(include_dirs))


__all__ += ["Differ", "stf_case"]
