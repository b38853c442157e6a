"""The grammar analysis is cached on disk: a later process loads it instead of redoing it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from softswitch.frontend import parse

SOURCE = "header h_t { bit<8> a; } struct s_t { h_t h; } const bit<8> K = 3;"


@pytest.fixture
def cache_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SOFTSWITCH_CACHE_DIR", str(tmp_path))
    parse._parser.cache_clear()
    yield tmp_path
    parse._parser.cache_clear()


def _names(program: object) -> list[str]:
    return [type(d).__name__ + ":" + getattr(d, "name", "") for d in program.decls]  # type: ignore[attr-defined]


def test_first_parser_writes_the_cache_and_the_next_loads_it(cache_in: Path) -> None:
    built = parse.parse_text(SOURCE)
    (cached,) = cache_in.glob("p4_16-*.lark")
    stamp = cached.stat().st_mtime_ns
    parse._parser.cache_clear()
    loaded = parse.parse_text(SOURCE)
    assert (
        _names(loaded)
        == _names(built)
        == ["StructLikeDecl:h_t", "StructLikeDecl:s_t", "ConstantDecl:K"]
    )
    assert cached.stat().st_mtime_ns == stamp  # read, not rewritten
    assert not list(cache_in.glob("*.tmp"))


def test_a_damaged_cache_is_rebuilt(cache_in: Path, caplog: pytest.LogCaptureFixture) -> None:
    parse.parse_text(SOURCE)
    (cached,) = cache_in.glob("p4_16-*.lark")
    cached.write_bytes(b"not a pickle")
    parse._parser.cache_clear()
    with caplog.at_level(logging.WARNING, logger="softswitch.frontend"):
        assert _names(parse.parse_text(SOURCE))[-1] == "ConstantDecl:K"
    assert "unreadable" in caplog.text
    assert cached.read_bytes() != b"not a pickle"


def test_an_unwritable_cache_directory_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("SOFTSWITCH_CACHE_DIR", str(blocker / "sub"))
    parse._parser.cache_clear()
    try:
        assert _names(parse.parse_text(SOURCE))[0] == "StructLikeDecl:h_t"
    finally:
        parse._parser.cache_clear()
