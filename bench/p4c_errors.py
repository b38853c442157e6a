"""softswitch on p4c's programs that must not compile (p4c's `testdata/p4_16_errors`).

Every program there is wrong in some way p4c reports. softswitch must refuse each with one
positioned message (`file:line:col: error: ...`), never a Python exception. This prints one
line per program that crashed the compiler (an exception other than P4Error, or a run
longer than `--timeout` seconds), that was refused without a position, or that softswitch
compiled; with `--p4c`, each compiled one gets p4c-bm2-ss's verdict beside it (some of
these programs test front-end checks newer than the p4c-bm2-ss on PATH). Then:

    p4_16_errors: N programs: R refused with a position, U without one, A compiled, C crashed

Exit status 1 when any crashed.

    python -m bench.p4c_errors --errors P4C/testdata/p4_16_errors [--p4c]
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from types import FrameType

from softswitch.compiler import P4Error, compile_file

_POSITIONED = re.compile(r"^.+:\d+:\d+: ")


class _TooLong(Exception):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise _TooLong


def p4c_verdict(p: Path) -> str:
    """'p4c-bm2-ss accepts it' or p4c-bm2-ss's first error line."""
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["p4c-bm2-ss", str(p), "-o", str(Path(d) / "p.json")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if out.returncode == 0:
        return "p4c-bm2-ss accepts it"
    errors = [ln for ln in out.stderr.splitlines() if " error: " in ln or "Compiler Bug" in ln]
    return (errors or out.stderr.splitlines() or ["p4c-bm2-ss refuses it"])[0][:160]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--errors", type=Path, required=True, help="p4c's testdata/p4_16_errors")
    ap.add_argument("--p4c", action="store_true", help="ask p4c-bm2-ss about those compiled")
    ap.add_argument("--timeout", type=int, default=30)
    args = ap.parse_args()
    if args.p4c and shutil.which("p4c-bm2-ss") is None:
        ap.error("--p4c: p4c-bm2-ss is not on PATH")
    programs = sorted(p for p in args.errors.glob("*.p4") if p.is_file())
    refused = unpositioned = compiled = crashed = 0
    signal.signal(signal.SIGALRM, _alarm)
    for p in programs:
        signal.alarm(args.timeout)
        try:
            compile_file(p, [args.errors])
        except P4Error as e:
            if _POSITIONED.match(str(e)):
                refused += 1
            else:
                unpositioned += 1
                print(f"NO POSITION {p.name}: {e}", flush=True)
        except _TooLong:
            crashed += 1
            print(f"CRASH {p.name}: still compiling after {args.timeout} s", flush=True)
        except Exception as e:  # noqa: BLE001 (what this tool is for)
            crashed += 1
            print(f"CRASH {p.name}: {type(e).__name__}: {str(e)[:160]}", flush=True)
        else:
            compiled += 1
            verdict = f": {p4c_verdict(p)}" if args.p4c else ""
            print(f"COMPILED {p.name}{verdict}", flush=True)
        finally:
            signal.alarm(0)
    print(
        f"p4_16_errors: {len(programs)} programs: {refused} refused with a position,"
        f" {unpositioned} without one, {compiled} compiled, {crashed} crashed"
    )
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
