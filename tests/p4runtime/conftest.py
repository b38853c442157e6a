"""Fixtures of the P4Runtime server tests (a server on 127.0.0.1:0, clients, programs)."""

from ._server_support import (  # noqa: F401 - fixtures used by the test modules
    channel,
    committed,
    policy,
    primary,
    programs,
    runtime,
    server,
    store_factory,
    streams,
    stub,
)
