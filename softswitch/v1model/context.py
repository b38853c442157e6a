"""Per-packet state of the v1model pipeline that externs read and write.

One `PacketContext` per switch is reused for every packet (reset at the start of each
pipeline pass); it carries what BMv2 keeps in its hidden intrinsic metadata: pending clone,
resubmit and recirculate requests, truncation, digests, the unparsed payload.
"""

from __future__ import annotations

import random as _random
import sys
from typing import Any

from .checksums import verify_checksum_ok
from .hashes import hash_result

DROP_PORT = 511


class PacketContext:
    def __init__(self, seed: int = 0) -> None:
        self.rng = _random.Random(seed)
        self.std: Any = None
        self.packet_length = 0
        self.payload = b""
        self.clone_request: tuple[str, int, int | None] | None = None
        self.resubmit_request: int | None | bool = False
        self.recirculate_request: int | None | bool = False
        self.truncate_to: int | None = None
        self.digests: list[tuple[int, str, Any]] = []
        self.logs: list[str] = []
        self.log_console = False
        self.errors: list[str] = []

    def reset(self, std: Any, packet_length: int) -> None:
        self.std = std
        self.packet_length = packet_length
        self.clone_request = None
        self.resubmit_request = False
        self.recirculate_request = False
        self.truncate_to = None

    # ------------------------------------------------------------ externs
    def mark_to_drop(self, std: Any) -> None:
        """BMv2: egress_spec = 511 (the drop port) and mcast_grp = 0."""
        std.egress_spec = DROP_PORT
        std.mcast_grp = 0

    def random(self, lo: int, hi: int) -> int:
        """A value in [lo, hi]; BMv2 returns lo when hi < lo."""
        if hi <= lo:
            return lo
        return self.rng.randint(lo, hi)

    def random_hash(self, base: int, max_: int, width: int) -> int:
        return hash_result(
            "identity", base, self.rng.getrandbits(64).to_bytes(8, "big"), max_, width
        )

    def verify_checksum(
        self,
        cond: bool,
        valid: bool,
        algo: str,
        fields: Any,
        value: int,
        payload: bytes | None,
    ) -> None:
        data = [(v, w) for v, w, ok in fields if ok]
        if not verify_checksum_ok(
            algo, data, value, payload, condition=cond, target_header_valid=valid
        ):
            self.std.checksum_error = 1

    def clone(self, ctype: str, session: int, field_list: int | None) -> None:
        """Request a clone (I2E in ingress, E2E in egress); the last request wins as in BMv2."""
        self.clone_request = (ctype, session, field_list)

    def resubmit(self, field_list: int | None) -> None:
        self.resubmit_request = field_list if field_list is not None else None

    def recirculate(self, field_list: int | None) -> None:
        self.recirculate_request = field_list if field_list is not None else None

    def truncate(self, length: int) -> None:
        self.truncate_to = length

    def digest(self, receiver: int, name: str, data: Any) -> None:
        self.digests.append((receiver, name, data))

    def check(self, cond: bool, kind: str, where: str) -> None:
        if not cond:
            msg = f"{kind} failed at {where}"
            self.errors.append(msg)
            print(f"softswitch: {msg}", file=sys.stderr)

    def log_msg(self, msg: str, data: Any = ()) -> None:
        if not isinstance(data, tuple):
            data = (data,)
        parts = msg.split("{}")
        text = parts[0]
        for i, p in enumerate(parts[1:]):
            text += (str(data[i]) if i < len(data) else "{}") + p
        self.logs.append(text)
        if self.log_console:
            print(f"[log_msg] {text}", file=sys.stderr)
