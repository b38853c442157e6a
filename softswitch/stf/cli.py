"""`softswitch stf`: run one STF test, or every X.p4 with an X.stf in a directory."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from .runner import FAIL, StfResult, run_stf

__all__ = ["add_stf_command", "cmd_stf"]


def add_stf_command(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "stf",
        help="run STF tests (p4c's Simple Test Framework) like p4c's BMv2 runner",
        description=(
            "Run PROGRAM.p4 against TEST.stf (default: PROGRAM with an .stf suffix); "
            "exit 0 on pass, 1 on a mismatch, 2 if unsupported. With --dir, run every "
            "X.p4 that has an X.stf and print one line per test and a summary."
        ),
    )
    p.add_argument("program", nargs="?", help="the P4 program")
    p.add_argument("test", nargs="?", help="the STF file (default: PROGRAM.stf)")
    p.add_argument("--dir", metavar="DIR", help="run every X.p4 with an X.stf in DIR")
    p.add_argument(
        "-I", dest="include", action="append", default=[], metavar="DIR", help="include dir"
    )
    p.add_argument(
        "-D", dest="define", action="append", default=[], metavar="NAME[=VAL]", help="define"
    )
    p.add_argument("-k", dest="select", metavar="SUBSTRING", help="only tests whose name has it")
    p.add_argument("--verbose", "-v", action="store_true", help="print diffs and tracebacks")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="parallel tests")
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="per-test time limit (0: none; default 120)",
    )
    p.set_defaults(handler=cmd_stf)
    return p


def _defines(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for d in items:
        name, eq, val = d.partition("=")
        out[name] = val if eq else "1"
    return out


class _Timeout(BaseException):
    """Raised by SIGALRM; a BaseException so that run_stf's catch-all does not swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _run_one(
    p4: str, stf: str | None, include: list[str], defines: dict[str, str], timeout: float
) -> StfResult:
    """Run one test with a time limit; never raises."""
    name = Path(p4).stem
    use_alarm = (
        timeout > 0
        and hasattr(signal, "SIGALRM")
        and threading.current_thread() is threading.main_thread()
    )
    old: Any = None
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return run_stf(p4, stf, include, defines)
    except _Timeout:
        return StfResult(FAIL, f"timeout after {timeout:g} s", name=name)
    except Exception as e:  # noqa: BLE001 - belt and braces: run_stf should not raise
        import traceback

        return StfResult(
            FAIL,
            f"internal error: {type(e).__name__}: {e}",
            traceback=traceback.format_exc(),
            name=name,
        )
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _line(name: str, r: StfResult) -> str:
    if r.passed:
        return f"PASS {name}"
    if r.status == FAIL:
        return f"FAIL {name}: {r.reason}"
    return f"FAIL {name}: unsupported: {r.reason}"


def _details(r: StfResult, verbose: bool) -> str:
    parts: list[str] = []
    if r.diff:
        parts.append(r.diff)
    if r.traceback:
        parts.append(r.traceback.rstrip() if verbose else "(--verbose shows the traceback)")
    if verbose and r.warnings and not r.diff:
        parts.append("warnings:\n" + "\n".join(f"  {w}" for w in r.warnings))
    return "\n".join(parts)


def _tests(directory: Path, select: str | None) -> list[tuple[str, Path, Path]]:
    out = []
    for p4 in sorted(directory.glob("*.p4")):
        stf = p4.with_suffix(".stf")
        if stf.is_file() and (select is None or select in p4.stem):
            out.append((p4.stem, p4, stf))
    return out


def _results(
    tests: list[tuple[str, Path, Path]], args: argparse.Namespace, defines: dict[str, str]
) -> Iterator[tuple[str, StfResult]]:
    include = [str(d) for d in args.include]
    if args.jobs <= 1:
        for name, p4, stf in tests:
            yield name, _run_one(str(p4), str(stf), include, defines, args.timeout)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futs = {
            pool.submit(_run_one, str(p4), str(stf), include, defines, args.timeout): name
            for name, p4, stf in tests
        }
        for fut in as_completed(futs):
            name = futs[fut]
            try:
                r = fut.result()
            except BaseException as e:  # noqa: BLE001 - e.g. a worker process died
                r = StfResult(FAIL, f"internal error: {type(e).__name__}: {e}", name=name)
            yield name, r


def _run_dir(args: argparse.Namespace, defines: dict[str, str]) -> int:
    directory = Path(args.dir)
    if not directory.is_dir():
        print(f"softswitch stf: {directory}: not a directory", file=sys.stderr)
        return 2
    tests = _tests(directory, args.select)
    passed = failed = 0
    for name, r in _results(tests, args, defines):
        print(_line(name, r), flush=True)
        if args.verbose:
            details = _details(r, True)
            if details:
                print(details, flush=True)
        if r.passed:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


def cmd_stf(args: argparse.Namespace) -> int:
    defines = _defines(args.define)
    if args.dir:
        if args.program:
            print("softswitch stf: give either PROGRAM or --dir, not both", file=sys.stderr)
            return 2
        return _run_dir(args, defines)
    if not args.program:
        print("softswitch stf: a PROGRAM.p4 or --dir DIR is needed", file=sys.stderr)
        return 2
    r = _run_one(args.program, args.test, [str(d) for d in args.include], defines, args.timeout)
    print(_line(Path(args.program).stem, r), flush=True)
    details = _details(r, args.verbose)
    if details and not r.passed:
        print(details, flush=True)
    elif r.passed and args.verbose and r.warnings:
        print("warnings:\n" + "\n".join(f"  {w}" for w in r.warnings), flush=True)
    return r.exit_code
