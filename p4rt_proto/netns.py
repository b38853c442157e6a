"""`in_netns`: one call inside a Linux network namespace, for softswitch's AF_PACKET ports
(`softswitch.ports.afpacket`) and for the controller's switch processes started in one
(`controller.targets`). Not P4Runtime: it is here because this package is the floor both
import. Standard library only; not loaded by the package's start-up import.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["in_netns"]

T = TypeVar("T")
CLONE_NEWNET = 0x40000000  # setns(2): the file names a network namespace


def in_netns(netns: str | None, fn: Callable[[], T]) -> T:
    """Call `fn` inside network namespace `netns` (a name under /var/run/netns, as
    `ip netns add` makes) and return its result; `netns=None` calls it here. Sockets made
    there stay in that namespace. Runs on a short-lived thread, so the caller's own
    namespace never changes; an exception `fn` raises (or `OSError` from entering the
    namespace) is raised to the caller."""
    if netns is None:
        return fn()
    outcome: list[tuple[bool, object]] = []

    import ctypes  # only here: most callers never enter a namespace

    def body() -> None:
        try:
            fd = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns {netns}: {os.strerror(err)}")
            finally:
                os.close(fd)
            outcome.append((True, fn()))
        except BaseException as e:  # handed to the caller
            outcome.append((False, e))

    t = threading.Thread(target=body, name=f"netns-{netns}")
    t.start()
    t.join()
    ok, value = outcome[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]
