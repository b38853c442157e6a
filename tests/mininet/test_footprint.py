"""The record of what a run created, and the check that nothing of it is left."""

from __future__ import annotations

import os
import subprocess
import sys

from fabricnet.footprint import Footprint, process_start_time, root_links


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_a_live_process_is_left_until_swept() -> None:
    proc = _sleeper()
    try:
        fp = Footprint()
        fp.add_process(proc.pid, "sleeper")
        left = fp.leftovers()
        assert left.processes == ((proc.pid, "sleeper"),)
        assert bool(left) and "sleeper" in str(left)
        after = fp.sweep(grace=2.0)
        assert not after, str(after)
        assert proc.wait(timeout=5) != 0  # it was killed, not left to finish
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_exited_process_is_not_left() -> None:
    proc = _sleeper()
    fp = Footprint()
    fp.add_process(proc.pid, "sleeper")
    proc.kill()
    proc.wait()
    assert not fp.leftovers()


def test_a_reused_pid_is_not_taken_for_ours() -> None:
    fp = Footprint()
    me = os.getpid()
    started = process_start_time(me)
    assert started is not None
    # the same PID with another start time: the process we recorded has gone
    fp.processes[me] = (started - 1, "an earlier process with this pid")
    assert not fp.leftovers()
    fp.processes[me] = (started, "this process")
    assert fp.leftovers().processes == ((me, "this process"),)


def test_links_are_looked_up_by_name_in_the_root_namespace() -> None:
    assert "lo" in root_links()
    fp = Footprint()
    fp.add_link("lo")
    fp.add_link("nonexistent-x0")
    assert fp.leftovers().links == ("lo",)
