"""Client arbitration: which StreamChannel is the primary of the device.

Follows the P4Runtime specification, "Client Arbitration and Controller Replication",
"Rules for Handling `MasterArbitrationUpdate` Messages Received from Controllers" and
"Client Arbitration Notifications":

* a stream joins with its first `MasterArbitrationUpdate`: a device id that is not the
  server's -> NOT_FOUND; an election id already used by another live client ->
  INVALID_ARGUMENT; too many clients -> RESOURCE_EXHAUSTED (the stream is terminated);
* later updates on the same stream: another device id or role -> FAILED_PRECONDITION, a
  duplicate election id -> INVALID_ARGUMENT;
* only the default role (no role name, no role config) exists: a named role ->
  UNIMPLEMENTED, a role config -> INVALID_ARGUMENT (no role scheme is agreed upon);
* an unset election id is lower than any other and never makes a primary;
* every notification carries the current primary's election id (or, without a primary,
  the highest one ever seen; unset if none) and the status OK for the primary,
  ALREADY_EXISTS for backups, NOT_FOUND for everyone when there is no primary. All
  clients are told when the primary changes, a primary downgrades itself or leaves; a
  backup that (re)arbitrates without changing the primary is answered alone.

What happens when the primary's stream breaks depends on `policy`:

* "bmv2" (default): as BMv2's PI server, the primary is the live client with the highest
  election id, so the next highest is promoted at once (this is also P4Runtime 1.0);
* "spec": as the specification since 1.1, the primary is the live client whose election id
  equals the highest ever seen; after the primary leaves there is none until a client
  arbitrates with an election id at least that high.

The arbiter only decides and sends notifications; the caller serialises arbitration with
`Write` (see `server.py`), so that in-flight writes finish before a primary changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc
from google.rpc import code_pb2

from p4rt_proto import p4runtime_pb2

from .errors import P4RuntimeError

__all__ = ["Arbiter", "Client", "Policy", "election_id"]

Policy = Literal["bmv2", "spec"]
MAX_CLIENTS = 16  # as BMv2's PI server


def election_id(msg: Any) -> int | None:
    """The election id a message carries (`election_id` field), None if unset."""
    if not msg.HasField("election_id"):
        return None
    return (msg.election_id.high << 64) | msg.election_id.low


def _set_election_id(msg: Any, value: int) -> None:
    msg.election_id.high = value >> 64
    msg.election_id.low = value & 0xFFFFFFFFFFFFFFFF


@dataclass(eq=False)
class Client:
    """One StreamChannel after its first accepted `MasterArbitrationUpdate`.

    `send(response, droppable)` queues a `StreamMessageResponse` on the stream; it returns
    False if the message was dropped (a full queue only drops `droppable` messages).
    """

    send: Callable[[Any, bool], bool]
    device_id: int
    role: str = ""
    election_id: int | None = None
    name: str = field(default="")


class Arbiter:
    """The live clients of one device (default role) and its primary."""

    def __init__(
        self,
        device_id: int,
        policy: Policy = "bmv2",
        max_clients: int = MAX_CLIENTS,
        on_primary_change: Callable[[], None] | None = None,
    ) -> None:
        if policy not in ("bmv2", "spec"):
            raise ValueError(f"unknown arbitration policy {policy!r}")
        self.device_id = device_id
        self.policy = policy
        self.max_clients = max_clients
        self._lock = threading.Lock()
        self._clients: list[Client] = []
        self._highest: int | None = None  # highest election id ever seen (election_id_past)
        self._primary: Client | None = None
        self._on_primary_change = on_primary_change

    # ------------------------------------------------------------ queries
    @property
    def clients(self) -> list[Client]:
        with self._lock:
            return list(self._clients)

    @property
    def primary(self) -> Client | None:
        with self._lock:
            return self._primary

    def may_write(self, eid: int | None, role: str = "") -> bool:
        """May a request with election id `eid` change the device (Write, Set...Config)?

        Only the primary may. Under the "bmv2" policy, as in BMv2, a request without an
        election id is also accepted while no client has a stream open (handy for tools)."""
        with self._lock:
            if role:
                return False
            if self.policy == "bmv2" and not self._clients and eid is None:
                return True
            p = self._primary
            return p is not None and p.election_id is not None and p.election_id == eid

    def send_to_primary(self, response: Any, droppable: bool = True) -> bool:
        """Queue a stream message for the primary; False if there is none (or it dropped)."""
        with self._lock:
            p = self._primary
        return p.send(response, droppable) if p is not None else False

    # ------------------------------------------------------------ arbitration updates
    def join(self, send: Callable[[Any, bool], bool], update: Any, name: str = "") -> Client:
        """The first `MasterArbitrationUpdate` of a stream; raises P4RuntimeError."""
        if update.device_id != self.device_id:
            raise P4RuntimeError(
                grpc.StatusCode.NOT_FOUND,
                f"unknown device id {update.device_id} (this server has device {self.device_id})",
            )
        self._check_role(update)
        eid = election_id(update)
        with self._lock:
            self._check_unique(eid, None)
            if len(self._clients) >= self.max_clients:
                raise P4RuntimeError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"too many controllers for device {self.device_id} (at most {self.max_clients})",
                )
            client = Client(send, update.device_id, "", eid, name)
            before = self._primary
            self._clients.append(client)
            self._send(self._arbitrate(client, before))
            after = self._primary
        self._changed(before, after)
        return client

    def update(self, client: Client, update: Any) -> None:
        """A later `MasterArbitrationUpdate` on the stream of `client`; raises P4RuntimeError."""
        if update.device_id != client.device_id:
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"this stream is for device {client.device_id}, not {update.device_id}",
            )
        if _role_name(update) != client.role:
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "a stream cannot change its role (open a new stream for another role)",
            )
        self._check_role(update)
        eid = election_id(update)
        with self._lock:
            self._check_unique(eid, client)
            before = self._primary
            client.election_id = eid
            self._send(self._arbitrate(client, before))
            after = self._primary
        self._changed(before, after)

    def leave(self, client: Client) -> None:
        """The stream of `client` ended; if it was the primary, everyone else is told."""
        with self._lock:
            if client not in self._clients:
                return
            self._clients.remove(client)
            before = self._primary
            if before is not client:
                return
            self._primary = after = self._elect()
            self._send(self._notices_for_all())
        self._changed(before, after)

    # ------------------------------------------------------------ internals (lock held)
    def _check_role(self, update: Any) -> None:
        if not update.HasField("role"):
            return
        role = update.role
        if role.name or role.id:
            raise P4RuntimeError(
                grpc.StatusCode.UNIMPLEMENTED,
                f"role {role.name or role.id!r}: softswitch supports only the default role",
            )
        if role.HasField("config"):
            raise P4RuntimeError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "role.config is not supported (softswitch knows no role configuration scheme)",
            )

    def _check_unique(self, eid: int | None, me: Client | None) -> None:
        if eid is None:
            return
        for c in self._clients:
            if c is not me and c.election_id == eid:
                raise P4RuntimeError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"election id {eid} is already used by another controller of device "
                    f"{self.device_id}",
                )

    def _elect(self) -> Client | None:
        """The primary under the policy (the lock is held)."""
        ranked = [c for c in self._clients if c.election_id is not None]
        if not ranked:
            return None
        best = max(ranked, key=lambda c: c.election_id or 0)
        if self.policy == "bmv2":
            return best
        return best if best.election_id == self._highest else None

    def _arbitrate(self, sender: Client, before: Client | None) -> list[tuple[Client, Any]]:
        eid = sender.election_id
        if eid is not None and (self._highest is None or eid >= self._highest):
            self._highest = eid
        self._primary = self._elect()
        if self._primary is sender or before is sender or self._primary is not before:
            return self._notices_for_all()
        return [(sender, self._notice(sender))]

    def _notices_for_all(self) -> list[tuple[Client, Any]]:
        """Backups first, the primary last (as the specification orders them)."""
        ordered = [c for c in self._clients if c is not self._primary]
        if self._primary is not None:
            ordered.append(self._primary)
        return [(c, self._notice(c)) for c in ordered]

    def _notice(self, client: Client) -> Any:
        msg = p4runtime_pb2.StreamMessageResponse()
        arb = msg.arbitration
        arb.device_id = self.device_id
        p = self._primary
        shown = p.election_id if p is not None else self._highest
        if shown is not None:
            _set_election_id(arb, shown)
        if p is None:
            arb.status.code = code_pb2.NOT_FOUND
            arb.status.message = "no primary controller"
        elif p is client:
            arb.status.code = code_pb2.OK
            arb.status.message = "is primary"
        else:
            arb.status.code = code_pb2.ALREADY_EXISTS
            arb.status.message = "is backup"
        return msg

    @staticmethod
    def _send(notices: list[tuple[Client, Any]]) -> None:
        """Queue the notifications (under the lock, so that they keep their order)."""
        for client, msg in notices:
            client.send(msg, False)

    def _changed(self, before: Client | None, after: Client | None) -> None:
        if after is not before and self._on_primary_change is not None:
            self._on_primary_change()


def _role_name(update: Any) -> str:
    if not update.HasField("role"):
        return ""
    return update.role.name or (str(update.role.id) if update.role.id else "")
