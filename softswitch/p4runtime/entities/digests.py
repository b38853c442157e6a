"""`DigestEntry`: how the server batches digests of one `digest<T>` instance.

Spec section "DigestEntry": INSERT enables `DigestList` generation with the given
configuration (ALREADY_EXISTS if enabled), MODIFY changes it (NOT_FOUND unless enabled),
DELETE disables it (NOT_FOUND unless enabled). INSERT and MODIFY need a `config`
(INVALID_ARGUMENT), with no negative value. The server reads the configuration with
`EntityStore.digest_config(digest_id)`; nothing is sent for a digest without one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from p4rt_proto import p4runtime_pb2

from .codec import Code, fail

INSERT, MODIFY, DELETE = (
    p4runtime_pb2.Update.INSERT,
    p4runtime_pb2.Update.MODIFY,
    p4runtime_pb2.Update.DELETE,
)

__all__ = ["Digests"]


class Digests:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.index = store.index
        self.configs: dict[int, Any] = {}  # digest id -> DigestEntry.Config

    def write(self, utype: int, msg: Any) -> None:
        did = msg.digest_id
        if did == 0:
            raise fail(Code.INVALID_ARGUMENT, "digest entry: digest id missing")
        info = self.index.digests.get(did)
        if info is None:
            raise fail(Code.INVALID_ARGUMENT, f"digest entry: unknown digest id {did}")
        enabled = did in self.configs
        if utype == DELETE:
            if not enabled:
                raise fail(Code.NOT_FOUND, f"digest {info.name} is not enabled")
            del self.configs[did]
            return
        if utype == INSERT and enabled:
            raise fail(Code.ALREADY_EXISTS, f"digest {info.name} is already enabled")
        if utype == MODIFY and not enabled:
            raise fail(Code.NOT_FOUND, f"digest {info.name} is not enabled")
        if utype not in (INSERT, MODIFY):
            raise fail(Code.INVALID_ARGUMENT, f"digest {info.name}: unknown update type {utype}")
        if not msg.HasField("config"):
            raise fail(Code.INVALID_ARGUMENT, f"digest {info.name}: config missing")
        cfg = msg.config
        if cfg.max_timeout_ns < 0 or cfg.max_list_size < 0 or cfg.ack_timeout_ns < 0:
            raise fail(Code.INVALID_ARGUMENT, f"digest {info.name}: negative config value")
        self.configs[did] = p4runtime_pb2.DigestEntry.Config()
        self.configs[did].CopyFrom(cfg)

    def read(self, msg: Any) -> Iterator[Any]:
        if msg.digest_id and msg.digest_id not in self.index.digests:
            raise fail(Code.INVALID_ARGUMENT, f"digest read: unknown digest id {msg.digest_id}")
        ids = [msg.digest_id] if msg.digest_id else sorted(self.configs)
        for did in ids:
            cfg = self.configs.get(did)
            if cfg is not None:
                out = p4runtime_pb2.DigestEntry(digest_id=did)
                out.config.CopyFrom(cfg)
                yield out

    def config(self, digest_id: int) -> Any:
        """The DigestEntry.Config of an enabled digest, or None."""
        return self.configs.get(digest_id)

    def reconcile_into(self, new: Any) -> None:
        targets = new.index.by_name("digests")
        for did, cfg in self.configs.items():
            target = targets.get(self.index.digests[did].name)
            if target is not None:
                out = p4runtime_pb2.DigestEntry(digest_id=target.id)
                out.config.CopyFrom(cfg)
                new.try_write(INSERT, "digest_entry", out)
