"""The control endpoint and state file: requests reach the running fabric, refusals come
back as ControlError with the fabric's message, a missing fabric is named clearly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.fabric.control import (
    ControlClient,
    ControlError,
    ControlServer,
    RunState,
    SwitchState,
)


class FakeFabric:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def status(self) -> dict[str, Any]:
        return {"switches": {"leaf1": {"connected": True}}}

    def telemetry(self) -> dict[str, Any]:
        return {"links": []}

    def exposition(self) -> bytes:
        return b"sprayfabric_up 1\n"

    def set_lb(self, request: Any) -> dict[str, Any]:
        if request.get("mode") not in ("ecmp", "spray"):
            raise ValueError(f"unknown mode {request.get('mode')!r}")
        self.calls.append(("lb", dict(request)))
        return {"modified": 3}

    def set_link(self, a: str, b: str, up: bool) -> dict[str, Any]:
        if a != "leaf1":
            raise KeyError(f"no link {a} - {b}")
        self.calls.append(("link", (a, b, up)))
        return {"rewritten": 2}


def test_requests_and_refusals() -> None:
    fab = FakeFabric()
    server = ControlServer(fab).start()
    try:
        c = ControlClient(server.url)
        assert c.get("/api/status") == {"switches": {"leaf1": {"connected": True}}}
        assert c.metrics() == "sprayfabric_up 1\n"
        assert c.post("/api/lb", {"mode": "spray", "group": None}) == {"modified": 3}
        assert c.post("/api/link", {"a": "leaf1", "b": "spine1", "up": False}) == {"rewritten": 2}
        assert fab.calls == [
            ("lb", {"mode": "spray", "group": None}),
            ("link", ("leaf1", "spine1", False)),
        ]
        with pytest.raises(ControlError, match="unknown mode 'flood'"):
            c.post("/api/lb", {"mode": "flood"})
        with pytest.raises(ControlError, match="no link leaf9 - spine1"):
            c.post("/api/link", {"a": "leaf9", "b": "spine1", "up": True})
        with pytest.raises(ControlError, match="no such resource /api/nope"):
            c.get("/api/nope")
    finally:
        server.close()
    with pytest.raises(ControlError, match="does not answer"):
        ControlClient(server.url, timeout=2).get("/api/status")


def test_state_file_round_trip_and_errors(tmp_path: Path) -> None:
    st = RunState(
        "topo.yaml",
        "softswitch",
        "http://127.0.0.1:1",
        42,
        "f.p4info.txtpb",
        "f.json",
        10,
        (SwitchState("leaf1", "127.0.0.1:50001", 1, 4242),),
    )
    path = tmp_path / ".sprayfabric" / "run.json"
    st.save(path)
    assert RunState.load(path) == st
    assert st.switch("leaf1").pid == 4242
    with pytest.raises(ControlError, match=r"no switch 'spine9' .*switches: leaf1"):
        st.switch("spine9")
    with pytest.raises(ControlError, match="does not exist .*sprayfabric fabric up TOPO"):
        RunState.load(tmp_path / "nothing.json")
    path.write_text('{"topology": 1}')
    with pytest.raises(ControlError, match="not a fabric state file"):
        RunState.load(path)
