"""Switch processes for Mininet nodes, started by the project's one switch launcher
(`controller.targets.SwitchProcess`): `softswitch` or `simple_switch_grpc`, started with
no program (`--no-p4`: the controller pushes the pipeline), ready when its PID is alive and
its gRPC port answers, stopped by PID."""

from __future__ import annotations

from controller.targets import SwitchProcess, SwitchSpec, Target

from .switch import LaunchRequest, SwitchLaunch

__all__ = ["launcher"]


def launcher(target: Target) -> SwitchLaunch:
    """A `P4Switch` launch function for `target`."""

    def launch(req: LaunchRequest) -> SwitchProcess:
        spec = SwitchSpec(
            target=target,
            config=None,
            ports=tuple(sorted(req.interfaces.items())),
            grpc_addr=req.grpc_address,
            device_id=req.device_id,
            cpu_port=req.cpu_port,
            log_file=req.log_path,
        )
        return SwitchProcess(spec).start()

    return launch
