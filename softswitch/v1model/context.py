"""Per-packet state of the v1model pipeline that externs read and write.

One `PacketContext` per switch is reused for every packet (reset at the start of each
pipeline pass); it carries what BMv2 keeps in its hidden intrinsic metadata: pending clone,
resubmit and recirculate requests, truncation, digests, the unparsed payload.
"""

from __future__ import annotations

import logging
import random as _random
import sys
from collections import deque
from collections.abc import MutableMapping
from typing import Any

from .hashes import compute, hash_result

DROP_PORT = 511
DATAPLANE_LOGGER = "softswitch.dataplane"
KEPT_MESSAGES = 1024  # the latest log_msg texts and assert/assume failures a switch keeps


class DeviceLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The data path's logger: every message starts with the device name."""

    def __init__(self, device: str, console: bool = False) -> None:
        logger = logging.getLogger(DATAPLANE_LOGGER)
        super().__init__(logger, {"device": device})
        self.device = device
        if console:
            # the switch was asked to show its log: make sure something shows it
            if logger.getEffectiveLevel() > logging.INFO:
                logger.setLevel(logging.INFO)
            if not logger.hasHandlers():
                logger.addHandler(logging.StreamHandler(sys.stderr))

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, Any]:
        return f"{self.device}: {msg}", kwargs


class PacketContext:
    def __init__(self, seed: int = 0, log: DeviceLog | None = None) -> None:
        self.log = log if log is not None else DeviceLog("softswitch")
        self.rng = _random.Random(seed)
        self.std: Any = None
        self.packet_length = 0
        self.payload = b""
        self.clone_request: tuple[str, int, int | None] | None = None
        self.resubmit_request: int | None | bool = False
        self.recirculate_request: int | None | bool = False
        self.truncate_to: int | None = None
        # a request or digest was made since the last reset (most packets make none: the
        # switch then skips looking at each kind)
        self.requested = False
        # set by generated code that may leave bits in an invalid header (the switch then
        # zeroes all of the packet's headers before reusing them, not only the valid ones)
        self.dirty = False
        self.digests: list[tuple[int, str, Any]] = []
        # the latest log_msg texts and failed assert/assume calls, oldest first (a running
        # switch must not keep them all)
        self.logs: deque[str] = deque(maxlen=KEPT_MESSAGES)
        self.log_console = False
        self.errors: deque[str] = deque(maxlen=KEPT_MESSAGES)

    def reset(self, std: Any, packet_length: int) -> None:
        """A new pass (ingress or egress) of a packet begins: no request and no stray
        bits yet."""
        self.dirty = False
        self.std = std
        self.packet_length = packet_length
        if self.requested:
            self.requested = False
            self.clone_request = None
            self.resubmit_request = False
            self.recirculate_request = False
            self.truncate_to = None
            if self.digests:  # taken by the switch after ingress
                self.digests = []

    # ------------------------------------------------------------ externs
    def mark_to_drop(self, std: Any) -> None:
        """BMv2: egress_spec = 511 (the drop port) and mcast_grp = 0."""
        std.egress_spec = DROP_PORT
        std.mcast_grp = 0

    def random(self, lo: int, hi: int) -> int:
        """A value in [lo, hi]; BMv2 returns lo when hi < lo.

        The same values as `self.rng.randint(lo, hi)` (Python's own rejection sampling
        over `getrandbits`, written out here to save three calls per packet)."""
        if hi <= lo:
            return lo
        n = hi - lo + 1
        k = n.bit_length()
        getrandbits = self.rng.getrandbits
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return lo + r

    def random_hash(self, base: int, max_: int, width: int) -> int:
        return hash_result(
            "identity", base, self.rng.getrandbits(64).to_bytes(8, "big"), max_, width
        )

    def verify_checksum(self, cond: bool, valid: bool, algo: str, data: bytes) -> None:
        """verify_checksum with an algorithm BMv2 does not know: refused when it would run
        (generated code checks known algorithms itself)."""
        if valid and cond:
            compute(algo, data)  # raises UnknownHashAlgorithm

    def clone(self, ctype: str, session: int, field_list: int | None) -> None:
        """Request a clone (I2E in ingress, E2E in egress); the last request wins as in BMv2."""
        self.clone_request = (ctype, session, field_list)
        self.requested = True

    def resubmit(self, field_list: int | None) -> None:
        self.resubmit_request = field_list if field_list is not None else None
        self.requested = True

    def recirculate(self, field_list: int | None) -> None:
        self.recirculate_request = field_list if field_list is not None else None
        self.requested = True

    def truncate(self, length: int) -> None:
        self.truncate_to = length
        self.requested = True

    def digest(self, receiver: int, name: str, data: Any) -> None:
        self.digests.append((receiver, name, data))
        self.requested = True

    def check(self, cond: bool, kind: str, where: str) -> None:
        if not cond:
            msg = f"{kind} failed at {where}"
            self.errors.append(msg)
            self.log.error("%s", msg)

    def log_msg(self, msg: str, data: Any = ()) -> None:
        if not isinstance(data, tuple):
            data = (data,)
        parts = msg.split("{}")
        text = parts[0]
        for i, p in enumerate(parts[1:]):
            text += (str(data[i]) if i < len(data) else "{}") + p
        self.logs.append(text)
        if self.log_console:
            self.log.info("log_msg: %s", text)
