"""What a Tofino fabric is given and what it leaves behind: the switches file, the
bf-p4c output (checked against the P4Info and the chip), and the fabric record.

The switches file (`sprayfabric fabric up --target tofino --switches FILE`), JSON or YAML,
maps every switch of the topology to its P4Runtime server, which runs on the box
(Stratum, or bf_switchd with its P4Runtime server), not here:

    leaf1:  {address: "10.0.0.11:9559", device_id: 1}
    spine1: {address: "10.0.0.21:9559", device_id: 1}

Without it, the topology's own `grpc` addresses and `device_id`s are used.

The fabric record (`.sprayfabric/tofino.json`) says which switches a Tofino fabric
programmed, with what P4Info and device config; it outlives `up` (the switches keep
forwarding with what was written), `status` reads the switches back with it and `down`
forgets it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from p4rt_proto import p4info_pb2

from ..p4info import load_p4info
from ..targets.tofino import BfPipeline, load_bf_output, pack_device_config

__all__ = [
    "RECORD_NAME",
    "BfProgram",
    "SwitchAddress",
    "TofinoRecord",
    "load_bf_program",
    "load_switches",
]

RECORD_NAME = "tofino.json"
_BINARY = {"tofino": "tofino.bin", "tofino2": "tofino2.bin"}


class TofinoSetupError(ValueError):
    """A Tofino fabric's inputs are wrong (a file missing, a name unknown, a mismatch)."""


@dataclass(frozen=True, slots=True)
class SwitchAddress:
    """Where one switch's P4Runtime server is."""

    name: str
    address: str
    device_id: int


def load_switches(path: Path | None, topo: Any) -> dict[str, SwitchAddress]:
    """Every switch of `topo` with its P4Runtime address: from the switches file at `path`
    (every switch of the topology must be in it, and nothing else), or from the topology's
    `grpc` and `device_id` when `path` is None."""
    names = [s.name for s in topo.switches]
    if path is None:
        missing = [s.name for s in topo.switches if not s.grpc_addr]
        if missing:
            raise TofinoSetupError(
                f"switches {', '.join(missing)} have no grpc address in the topology: "
                "give their P4Runtime addresses with --switches FILE"
            )
        return {s.name: SwitchAddress(s.name, s.grpc_addr, s.device_id) for s in topo.switches}
    try:
        data = yaml.safe_load(path.read_text())  # JSON is YAML too
    except (OSError, yaml.YAMLError) as e:
        raise TofinoSetupError(f"{path}: {e}") from None
    if not isinstance(data, Mapping):
        raise TofinoSetupError(f"{path}: a mapping of switch name -> {{address, device_id}}")
    unknown = sorted(set(map(str, data)) - set(names))
    missing = [n for n in names if n not in data]
    if unknown or missing:
        what = [f"not in the topology: {', '.join(unknown)}"] if unknown else []
        what += [f"missing: {', '.join(missing)}"] if missing else []
        raise TofinoSetupError(f"{path}: switches {'; '.join(what)}")
    out: dict[str, SwitchAddress] = {}
    for name in names:
        entry = data[name]
        if (
            not isinstance(entry, Mapping)
            or not isinstance(entry.get("address"), str)
            or not isinstance(entry.get("device_id"), int)
            or isinstance(entry.get("device_id"), bool)
        ):
            raise TofinoSetupError(
                f"{path}: switch {name}: needs address (host:port) and device_id (an integer)"
            )
        out[name] = SwitchAddress(name, entry["address"], entry["device_id"])
    return out


@dataclass(frozen=True, slots=True)
class BfProgram:
    """fabric_tna as bf-p4c built it: the P4Info and the files bf_switchd loads."""

    p4info: p4info_pb2.P4Info
    p4info_path: Path
    pipeline: BfPipeline

    @property
    def device_config(self) -> bytes:
        """The `p4_device_config` Stratum expects (`controller.targets.tofino`)."""
        return pack_device_config(self.pipeline)


def find_p4info(bf_out: Path) -> Path:
    """The P4Info file bf-p4c (or p4test) wrote into `bf_out`: the one file whose name
    holds `p4info`."""
    found = sorted(p for p in bf_out.iterdir() if "p4info" in p.name and p.is_file())
    if len(found) != 1:
        listed = ", ".join(p.name for p in found) or "none"
        raise TofinoSetupError(
            f"{bf_out}: expected one P4Info file (a name with 'p4info'), found {listed}; "
            "name it with --p4info FILE"
        )
    return found[0]


def load_bf_program(
    bf_out: Path, target: str, p4info: Path | None = None, pipe: str = "pipe"
) -> BfProgram:
    """Read and check bf-p4c's output directory for `target` (tofino or tofino2): its
    `<pipe>/tofino.bin` (`tofino2.bin`) and `<pipe>/context.json`, and the P4Info (`p4info`,
    else the one P4Info file in `bf_out`). TofinoSetupError when a file is missing, the
    binary is for the other chip, or the P4Info names tables context.json does not have."""
    if target not in _BINARY:
        raise TofinoSetupError(f"target {target}: one of {', '.join(_BINARY)}")
    if not bf_out.is_dir():
        raise TofinoSetupError(f"--bf-out {bf_out}: no such directory (bf-p4c's -o)")
    pipe_dir = bf_out / pipe
    want = _BINARY[target]
    other = next(b for t, b in _BINARY.items() if t != target)
    if not (pipe_dir / want).is_file():
        hint = (
            f" (it holds {other}: built for the other chip?)"
            if (pipe_dir / other).is_file()
            else ""
        )
        raise TofinoSetupError(f"{pipe_dir}: no {want} for target {target}{hint}")
    if not (pipe_dir / "context.json").is_file():
        raise TofinoSetupError(f"{pipe_dir}: no context.json")
    try:
        pipeline = load_bf_output(bf_out, pipe=pipe)
    except (FileNotFoundError, OSError) as e:
        raise TofinoSetupError(str(e)) from None
    info_path = p4info if p4info is not None else find_p4info(bf_out)
    try:
        info = load_p4info(info_path)
    except (OSError, ValueError) as e:  # text_format.ParseError is a ValueError
        raise TofinoSetupError(f"P4Info {info_path}: {e}") from None
    if not info.tables:
        raise TofinoSetupError(f"P4Info {info_path}: no tables")
    _check_context(info, info_path, pipeline.context_json, pipe_dir / "context.json")
    return BfProgram(info, info_path, pipeline)


def _check_context(info: p4info_pb2.P4Info, info_path: Path, context: bytes, where: Path) -> None:
    """Every P4Info table must be a table of context.json (named as in P4Info, or with a
    prefix such as the pipe's): a P4Info from another program or another build is refused.
    A context.json without a `tables` list is not checked."""
    try:
        data = json.loads(context)
    except ValueError as e:
        raise TofinoSetupError(f"{where}: not JSON: {e}") from None
    tables = data.get("tables") if isinstance(data, dict) else None
    if not isinstance(tables, list):
        return
    names = {t["name"] for t in tables if isinstance(t, dict) and isinstance(t.get("name"), str)}

    def known(p4_name: str) -> bool:
        return any(n == p4_name or n.endswith("." + p4_name) for n in names)

    missing = [t.preamble.name for t in info.tables if not known(t.preamble.name)]
    if missing:
        raise TofinoSetupError(
            f"P4Info mismatch: {info_path} names tables {where} does not have: "
            f"{', '.join(missing)} (the P4Info and the binary must come from one bf-p4c run)"
        )


@dataclass(frozen=True, slots=True)
class TofinoRecord:
    """A Tofino fabric this directory programmed (see the module docstring)."""

    topology: str
    target: str
    p4info: str
    device_config: str  # the packed p4_device_config, as written to the switches
    election_id: int
    switches: tuple[SwitchAddress, ...]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> TofinoRecord:
        try:
            data = json.loads(path.read_text())
            switches = tuple(SwitchAddress(**s) for s in data.pop("switches"))
            return cls(**data, switches=switches)
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise TofinoSetupError(f"{path}: cannot read the Tofino fabric record: {e}") from None
