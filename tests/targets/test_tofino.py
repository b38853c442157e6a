"""The Tofino device config: the packing Stratum's Barefoot target reads."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from controller.targets.tofino import (
    BfPipeline,
    load_bf_output,
    pack_device_config,
    unpack_device_config,
)

PIPE = BfPipeline("fabric_tna", b"\x00\x01binary\xff", b'{"tables": []}')


def test_pack_is_three_little_endian_length_prefixed_fields() -> None:
    blob = pack_device_config(PIPE)
    name, binary, context = b"fabric_tna", PIPE.tofino_bin, PIPE.context_json
    assert blob[:4] == struct.pack("<I", len(name))
    assert blob[4 : 4 + len(name)] == name
    at = 4 + len(name)
    assert blob[at : at + 4] == struct.pack("<I", len(binary))
    at += 4 + len(binary)
    assert blob[at : at + 4] == struct.pack("<I", len(context))
    assert blob[at + 4 :] == context


def test_unpack_inverts_pack() -> None:
    assert unpack_device_config(pack_device_config(PIPE)) == PIPE


@pytest.mark.parametrize("cut", [2, 7, 20])
def test_truncated_blob_is_refused(cut: int) -> None:
    with pytest.raises(ValueError, match="truncated"):
        unpack_device_config(pack_device_config(PIPE)[:cut])


def test_trailing_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="trailing"):
        unpack_device_config(pack_device_config(PIPE) + b"x")


def test_load_bf_output_reads_the_pipe_directory(tmp_path: Path) -> None:
    pipe = tmp_path / "fabric_tna" / "pipe"
    pipe.mkdir(parents=True)
    (pipe / "tofino2.bin").write_bytes(b"t2")
    (pipe / "context.json").write_bytes(b"{}")
    assert load_bf_output(tmp_path / "fabric_tna") == BfPipeline("fabric_tna", b"t2", b"{}")


def test_load_bf_output_without_binary_fails(tmp_path: Path) -> None:
    (tmp_path / "pipe").mkdir()
    with pytest.raises(FileNotFoundError, match="tofino.bin"):
        load_bf_output(tmp_path)
