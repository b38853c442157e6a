"""A record of the switch processes a run started, kept in a JSON file of its state
directory, so that the processes a run killed outright (SIGKILL) left behind can be
stopped by the next run: by PID, and only a process that is still the one recorded.

    ledger = ProcessLedger(workdir / "switches.json")
    stopped = ledger.claim()        # stop what a dead run recorded; then the file is ours
    ledger.add("leaf1", sw.pid, sw.command())    # right after each start
    ledger.discard(sw.pid)          # after each stop
    ledger.close()                  # the run ended cleanly: the file goes

A process is known by what the kernel gives it once: its PID, its start time (clock ticks
since boot, field 22 of /proc/PID/stat) and the boot it ran in (`boot_id`). A PID that now
belongs to another process (a later start time, or another boot) is never signalled, nor
one whose command line no longer ends with the recorded arguments. The signal goes through
a pidfd opened before the identity is checked, so a PID reused in between is not hit.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = [
    "LedgerBusy",
    "ProcessId",
    "ProcessLedger",
    "RecordedProcess",
    "process_id",
    "stop_recorded",
]

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class LedgerBusy(RuntimeError):
    """The run that owns the record is still running."""


@dataclass(slots=True, frozen=True)
class ProcessId:
    """What tells one process from any other that had or will have the same PID."""

    pid: int
    start_ticks: int
    boot_id: str


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text().strip()
    except OSError:
        return ""


def _stat(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in ticks) of `pid`, None if there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    # the command name (field 2) is in parentheses and may hold spaces or ')'
    rest = text[text.rindex(")") + 2 :].split()
    return rest[0], int(rest[19])  # fields 3 and 22


def process_id(pid: int) -> ProcessId | None:
    """The identity of the running process `pid` (None: none, or a zombie)."""
    st = _stat(pid)
    if st is None or st[0] in "ZX":
        return None
    return ProcessId(pid, st[1], _boot_id())


def _cmdline(pid: int) -> tuple[str, ...]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ()
    return tuple(a.decode(errors="replace") for a in raw.split(b"\0")[:-1])


@dataclass(slots=True, frozen=True)
class RecordedProcess:
    """One switch process as recorded when it started: its identity and its argv."""

    name: str
    pid: int
    start_ticks: int
    boot_id: str
    argv: tuple[str, ...]

    def matches(self) -> bool:
        """Still the same process: same PID, start time and boot, and a command line that
        ends with the recorded arguments (a console script runs as `python script ARGS`,
        so the program itself may read differently)."""
        now = process_id(self.pid)
        if now is None or now != ProcessId(self.pid, self.start_ticks, self.boot_id):
            return False
        args = self.argv[1:]
        cmd = _cmdline(self.pid)
        return len(cmd) >= len(args) and cmd[len(cmd) - len(args) :] == args

    def describe(self) -> str:
        return f"{self.name} (pid {self.pid}, {' '.join(self.argv[:1])})"


def _wait_gone(fd: int | None, pid: int, timeout: float) -> bool:
    """Wait up to `timeout` s for the process to end; True if it did."""
    if fd is not None:  # a pidfd is readable once the process has ended
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(int(timeout * 1000)))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process_id(pid) is None:
            return True
        time.sleep(0.05)  # not our child: nothing to wait on
    return process_id(pid) is None


def _signal(fd: int | None, pid: int, sig: int) -> None:
    try:
        if fd is not None:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def stop_recorded(rec: RecordedProcess, timeout: float = 10.0) -> bool:
    """SIGTERM, then SIGKILL after `timeout` s, to the process `rec` names if it still is
    that process; True if it was (and is now stopped), False if it was left alone."""
    fd: int | None = None
    try:
        fd = os.pidfd_open(rec.pid)
    except ProcessLookupError:
        return False
    except (OSError, AttributeError):  # no pidfds here: check, then signal by PID
        fd = None
    try:
        if not rec.matches():  # checked after the pidfd pinned the process
            return False
        _signal(fd, rec.pid, signal.SIGTERM)
        if not _wait_gone(fd, rec.pid, timeout):
            _signal(fd, rec.pid, signal.SIGKILL)
            _wait_gone(fd, rec.pid, timeout)
        return True
    finally:
        if fd is not None:
            os.close(fd)


def _record(p: dict[str, object], name: str = "") -> RecordedProcess:
    argv = p.get("argv", ())
    return RecordedProcess(
        str(p.get("name", name)),
        int(p["pid"]),  # type: ignore[call-overload]
        int(p["start_ticks"]),  # type: ignore[call-overload]
        str(p["boot_id"]),
        tuple(str(a) for a in argv),  # type: ignore[attr-defined]
    )


class ProcessLedger:
    """The record file of one run's switch processes (module docstring). Thread-safe.
    The file also names its owner, the process that wrote it (identity and argv)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        me = process_id(os.getpid())
        self.owner = (
            RecordedProcess("owner", me.pid, me.start_ticks, me.boot_id, tuple(sys.argv))
            if me is not None
            else None
        )
        self.processes: dict[int, RecordedProcess] = {}
        self._lock = threading.Lock()

    def _save(self) -> None:
        data = {
            "owner": asdict(self.owner) if self.owner else None,
            "processes": [asdict(p) for p in self.processes.values()],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, self.path)

    def read(self) -> tuple[RecordedProcess | None, list[RecordedProcess]]:
        """(the owner if it still runs, the recorded processes); (None, []) if there is no
        file or it is unreadable."""
        try:
            data = json.loads(self.path.read_text())
            owner = _record(data["owner"], "owner") if data.get("owner") else None
            recs = [_record(p) for p in data.get("processes", ())]
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None, []
        return (owner if owner is not None and owner.matches() else None), recs

    def leftovers(self) -> list[RecordedProcess]:
        """What the file records; LedgerBusy if the run that wrote it still runs (this very
        process included: a run of ours that has not stopped)."""
        owner, recs = self.read()
        if owner is not None:
            raise LedgerBusy(
                f"{self.path}: the fabric of process {owner.pid} still runs here; stop it first"
            )
        return recs

    def stop_leftovers(self, timeout: float = 10.0) -> list[RecordedProcess]:
        """Stop every recorded process that is still the one recorded (the file stays);
        the processes stopped. LedgerBusy if the recording run still runs."""
        return [r for r in self.leftovers() if stop_recorded(r, timeout)]

    def claim(self, timeout: float = 10.0) -> list[RecordedProcess]:
        """`stop_leftovers`, then own the file (empty); the processes stopped."""
        stopped = self.stop_leftovers(timeout)
        with self._lock:
            self.processes.clear()
            self._save()
        return stopped

    def add(self, name: str, pid: int, argv: Sequence[str]) -> None:
        """Record process `pid` (just started with `argv`); nothing if it already ended."""
        ident = process_id(pid)
        if ident is None:
            return
        with self._lock:
            self.processes[pid] = RecordedProcess(
                name, pid, ident.start_ticks, ident.boot_id, tuple(argv)
            )
            self._save()

    def discard(self, pid: int) -> None:
        with self._lock:
            if self.processes.pop(pid, None) is not None:
                self._save()

    def close(self) -> None:
        """Every recorded process was stopped: remove the file."""
        with self._lock:
            self.processes.clear()
            self.path.unlink(missing_ok=True)
