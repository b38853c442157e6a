"""softswitch.program_cache: a device config compiled once is loaded from disk afterwards,
in this process and in a `softswitch` process, and behaves as the freshly compiled one."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from softswitch.device_config import DeviceConfigError, make_device_config
from softswitch.frontend.errors import P4Error
from softswitch.program_cache import ProgramCache
from softswitch.v1model.switch import Switch

from .programs import DST_FWD

FRAME = bytes([2, 0xD1, 0x77]) + bytes(61)  # to port 2, with a digest of 0x77


@pytest.fixture
def config(tmp_path: Path) -> bytes:
    src = tmp_path / "fwd.p4"
    src.write_text(DST_FWD)
    return make_device_config(src)


def run(compiled: object) -> tuple[list[tuple[int, bytes]], list[tuple[int, int, int]]]:
    """What one frame makes: (port, frame) outputs and (receiver, val, port) digests."""
    sw = Switch(compiled)  # type: ignore[arg-type]
    outs = list(sw.process(1, FRAME))
    return outs, [(d.receiver, d.data.val, d.data.port) for d in sw.digests]


def test_second_load_comes_from_the_cache_and_forwards_the_same(
    tmp_path: Path, config: bytes
) -> None:
    cache = ProgramCache(tmp_path / "cache")
    first = cache.load(config)
    assert (cache.hits, cache.misses) == (0, 1)
    assert len(list((tmp_path / "cache").glob("program-*.pickle"))) == 1
    again = ProgramCache(tmp_path / "cache")  # another process, as far as the cache knows
    second = again.load(config)
    assert (again.hits, again.misses) == (1, 0)
    assert second is not first
    assert second.source == first.source and second.name == first.name == "fwd"
    assert list(second.info.tables) == list(first.info.tables)
    assert run(second) == run(first) == ([(2, FRAME)], [(1, 0x77, 1)])


def test_trace_and_content_are_part_of_the_key(tmp_path: Path, config: bytes) -> None:
    cache = ProgramCache(tmp_path)
    assert cache.path_for(config, False) != cache.path_for(config, True)
    assert cache.path_for(config, False) != cache.path_for(config + b" ", False)
    cache.load(config, trace=True)
    cache.load(config, trace=False)
    assert (cache.hits, cache.misses) == (0, 2)


def test_a_damaged_entry_is_compiled_again(
    tmp_path: Path, config: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    cache = ProgramCache(tmp_path)
    cache.load(config)
    path = cache.path_for(config, False)
    path.write_bytes(b"not a pickle")
    with caplog.at_level(logging.WARNING, logger="softswitch.cache"):
        compiled = cache.load(config)
    assert "unreadable" in caplog.text
    assert cache.misses == 2
    assert run(compiled)[0] == [(2, FRAME)]
    assert ProgramCache(tmp_path).load(config).source == compiled.source  # rewritten


def test_bad_configs_raise_and_are_not_cached(tmp_path: Path) -> None:
    cache = ProgramCache(tmp_path)
    with pytest.raises(DeviceConfigError):
        cache.load(b"{}")
    broken = make_device_config_text(tmp_path, DST_FWD.replace("apply {}", "apply { x }", 1))
    for _ in range(2):
        with pytest.raises(P4Error):
            cache.load(broken)
    assert list(tmp_path.glob("program-*")) == []
    assert cache.misses == 3


def make_device_config_text(tmp_path: Path, source: str) -> bytes:
    src = tmp_path / "broken.p4"
    src.write_text(source)
    return make_device_config(src)


def test_an_unwritable_directory_only_costs_the_saving(tmp_path: Path, config: bytes) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = ProgramCache(blocker / "sub")
    assert run(cache.load(config))[0] == [(2, FRAME)]
    assert run(cache.load(config))[0] == [(2, FRAME)]
    assert cache.misses == 2


def test_keeps_the_most_recently_used_entries(tmp_path: Path) -> None:
    cache = ProgramCache(tmp_path, keep=2)
    configs = [
        make_device_config_text(tmp_path, DST_FWD.replace("0xD1", hex(0xD1 + i))) for i in range(3)
    ]
    for c in configs:
        cache.load(c)
    kept = {p.name for p in tmp_path.glob("program-*.pickle")}
    assert kept == {cache.path_for(c, False).name for c in configs[1:]}


def test_a_switch_process_loads_without_the_compiler(tmp_path: Path, config: bytes) -> None:
    """What a `softswitch prog.json` start imports once the program is cached: not the
    parser, the code generator or lark."""
    ProgramCache(tmp_path / "cache").load(config)
    path = tmp_path / "fwd.json"
    path.write_bytes(config)
    probe = (
        "import sys\n"
        "from softswitch.program_cache import ProgramCache\n"
        "import softswitch.cli, softswitch.runtime, softswitch.p4runtime.server\n"
        f"c = ProgramCache({str(tmp_path / 'cache')!r})\n"
        f"p = c.load(open({str(path)!r}, 'rb').read())\n"
        "heavy = [m for m in sys.modules if m.startswith(('lark', 'softswitch.codegen',"
        " 'softswitch.frontend.ast', 'softswitch.frontend.parse'))]\n"
        "print(c.hits, heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "1 []"


def test_the_switch_command_compiles_once_and_replays_the_same(
    tmp_path: Path, config: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`softswitch prog.json` keeps the program in $SOFTSWITCH_CACHE_DIR; the next start
    loads it from there and forwards the same."""
    from softswitch.ports import PcapWriter, read_pcap

    from .programs import SwitchProcess

    monkeypatch.setenv("SOFTSWITCH_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "fwd.json").write_bytes(config)
    w = PcapWriter(tmp_path / "p1_in.pcap")
    w.write(FRAME)
    w.write(bytes([3, 0, 1]))
    w.close()
    args = ["fwd.json", "-i", "1@p1", "-i", "2@p2", "-i", "3@p3", "--use-files", "0"]
    for run_no in range(2):
        with SwitchProcess([*args, "--", "--grpc-server-addr", "127.0.0.1:0"], cwd=tmp_path) as sp:
            assert sp.wait_line("Replayed ", 60).startswith("Replayed 2 packets")
            assert sp.terminate() == 0, sp.read_stderr()
        outs = [[r.data for r in read_pcap(tmp_path / f"p{n}_out.pcap")] for n in (2, 3)]
        assert outs == [[FRAME], [bytes([3, 0, 1])]], run_no
        assert len(list((tmp_path / "cache").glob("program-*.pickle"))) == 1


def test_a_p4_source_given_to_the_switch_is_cached_by_its_preprocessed_text(
    tmp_path: Path,
) -> None:
    """`softswitch prog.p4` compiles the program once: the next process finds it in the
    cache without loading the compiler. The key is the preprocessed program, so editing
    a file the program includes compiles it again (and the new program forwards)."""
    (tmp_path / "port.p4").write_text("#define OUT_PORT 2\n")
    src = tmp_path / "fwd.p4"
    src.write_text(
        DST_FWD.replace(
            "#include <v1model.p4>\n", '#include <v1model.p4>\n#include "port.p4"\n'
        ).replace("sm.egress_spec = (bit<9>)hdr.h.dst;", "sm.egress_spec = OUT_PORT;")
    )
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from softswitch.cli import _load_program\n"
        "from softswitch.program_cache import ProgramCache\n"
        "from softswitch.v1model.switch import Switch\n"
        f"c = ProgramCache({str(tmp_path / 'cache')!r})\n"
        f"p = _load_program(Path({str(src)!r}), False, c)\n"
        "heavy = [m for m in sys.modules if m.startswith(('lark', 'softswitch.codegen',"
        " 'softswitch.compiler', 'softswitch.frontend.parse'))]\n"
        "out = Switch(p).process(1, bytes(3))\n"
        "print(c.hits, c.misses, bool(heavy), out[0][0])\n"
    )

    def start() -> str:
        r = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
        )
        return r.stdout.strip()

    assert start() == "0 1 True 2"  # compiled
    assert start() == "1 0 False 2"  # loaded, the compiler never imported
    (tmp_path / "port.p4").write_text("#define OUT_PORT 3\n")
    assert start() == "0 1 True 3"
    assert start() == "1 0 False 3"
