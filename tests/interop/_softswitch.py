"""A `softswitch --no-p4` process for the interop tests, through the project's one launcher
(`controller.targets`): a free loopback port, ready when its PID is alive and Capabilities
answers, stopped by PID."""

from __future__ import annotations

from pathlib import Path

from controller.targets import SwitchProcess, SwitchSpec
from controller.targets import compile_program as _compile


def compile_program(source: str, workdir: Path, name: str) -> tuple[Path, Path]:
    """`softswitch compile` a P4 program: (P4Info text file, device config file)."""
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / f"{name}.p4"
    src.write_text(source)
    out = _compile(src, workdir)
    assert out.p4info.stat().st_size > 0 and out.device_config.stat().st_size > 0
    return out.p4info, out.device_config


class SoftswitchProcess(SwitchProcess):
    """Started on construction; `wait_ready()` and `stop()` as in SwitchProcess."""

    def __init__(self, workdir: Path, device_id: int = 0) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        spec = SwitchSpec(device_id=device_id, cpu_port=None, log_file=workdir / "softswitch.log")
        super().__init__(spec)
        self.start()

    @property
    def addr(self) -> str:
        return self.grpc_addr

    def log(self) -> str:
        """What the process has logged so far (stdout and stderr)."""
        return self.log_tail(lines=10_000)
