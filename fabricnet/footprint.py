"""What a Mininet run created, by name and PID, and whether any of it is left.

Mininet's hosts live in unnamed network namespaces, each held by the host's shell process
(and by anything started in it); its links are veth pairs named after the nodes; switch
processes, captures and traffic generators are processes the runner started. The runner
records each of them when it is created (`Footprint`), and after the network is stopped
asks what still exists: an interface of that name in the root namespace, a process with
that PID and the same start time (so a reused PID is not mistaken for ours), or any
process still inside one of the recorded namespaces. `sweep()` removes what is left,
again only by those names and PIDs: nothing else on the machine is touched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CleanupError", "Footprint", "Leftovers", "netns_inode", "process_start_time"]

_PROC = Path("/proc")


def process_start_time(pid: int) -> int | None:
    """The start time of `pid` in clock ticks since boot (field 22 of /proc/PID/stat), or
    None if there is no such process or it has exited (a zombie waiting to be reaped)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: split after the last ')'
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def netns_inode(pid: int) -> int | None:
    """The inode of the network namespace `pid` is in, or None if it is gone."""
    try:
        return os.stat(_PROC / str(pid) / "ns" / "net").st_ino
    except OSError:
        return None


def root_links() -> set[str]:
    """Interface names in the root network namespace (`ip -o link show`)."""
    out = subprocess.run(
        ["ip", "-o", "link", "show"], capture_output=True, text=True, check=True
    ).stdout
    names = set()
    for line in out.splitlines():
        # "12: leaf1-eth1@if11: <BROADCAST,...": the name ends at '@' or ':'
        name = line.split(":", 2)[1].strip().split("@", 1)[0]
        names.add(name)
    return names


def pids_in_netns(inodes: set[int]) -> dict[int, int]:
    """PID -> namespace inode of every process whose network namespace is in `inodes`."""
    found: dict[int, int] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        ino = netns_inode(int(entry.name))
        if ino is not None and ino in inodes:
            found[int(entry.name)] = ino
    return found


@dataclass(frozen=True, slots=True)
class Leftovers:
    """What a run created and still exists."""

    links: tuple[str, ...]
    processes: tuple[tuple[int, str], ...]  # (pid, what)
    namespaces: tuple[tuple[str, tuple[int, ...]], ...]  # (host, pids still inside)

    def __bool__(self) -> bool:
        return bool(self.links or self.processes or self.namespaces)

    def __str__(self) -> str:
        parts = []
        if self.links:
            parts.append("links " + ", ".join(self.links))
        if self.processes:
            parts.append("processes " + ", ".join(f"{p} ({w})" for p, w in self.processes))
        if self.namespaces:
            parts.append(
                "namespaces "
                + ", ".join(f"{h} (pids {', '.join(map(str, ps))})" for h, ps in self.namespaces)
            )
        return "; ".join(parts) if parts else "nothing"


class CleanupError(RuntimeError):
    """Something the run created could not be removed."""

    def __init__(self, left: Leftovers) -> None:
        self.left = left
        super().__init__(f"left behind after stopping the network: {left}")


@dataclass(slots=True)
class Footprint:
    """Names and PIDs of everything a run created (recorded as it is created)."""

    links: set[str] = field(default_factory=set)  # interface names in the root namespace
    processes: dict[int, tuple[int | None, str]] = field(default_factory=dict)
    namespaces: dict[str, int] = field(default_factory=dict)  # host -> netns inode

    def add_link(self, name: str) -> None:
        self.links.add(name)

    def add_process(self, pid: int, what: str) -> None:
        self.processes[pid] = (process_start_time(pid), what)

    def add_namespace(self, host: str, pid: int) -> None:
        ino = netns_inode(pid)
        if ino is not None:
            self.namespaces[host] = ino

    def _alive(self, pid: int, started: int | None) -> bool:
        now = process_start_time(pid)
        return now is not None and (started is None or now == started)

    def leftovers(self) -> Leftovers:
        links = tuple(sorted(self.links & root_links()))
        procs = tuple(
            (pid, what)
            for pid, (started, what) in sorted(self.processes.items())
            if self._alive(pid, started)
        )
        inside = pids_in_netns(set(self.namespaces.values()))
        spaces = []
        for host, ino in sorted(self.namespaces.items()):
            pids = tuple(sorted(p for p, i in inside.items() if i == ino))
            if pids:
                spaces.append((host, pids))
        return Leftovers(links, procs, tuple(spaces))

    def sweep(self, grace: float = 3.0) -> Leftovers:
        """Remove what is left: SIGTERM then SIGKILL our processes and every process in our
        namespaces, delete our links. Returns what could not be removed."""
        left = self.leftovers()
        targets = {pid for pid, _ in left.processes}
        for _, pids in left.namespaces:
            targets.update(pids)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in targets:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and any(
                process_start_time(p) is not None for p in targets
            ):
                time.sleep(0.05)
        for name in left.links:
            subprocess.run(["ip", "link", "del", name], capture_output=True)
        return self.leftovers()
