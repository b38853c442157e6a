"""What the BMv2 simple_switch back end of p4c (`p4c-bm2-ss`) defines for every program it
preprocesses: softswitch defines the same, so `#ifdef __TARGET_BMV2__` picks the same code.
Kept apart from the compiler so that preprocessing (a `.p4` given to the `softswitch`
command, looked up in the program cache) does not load the compiler."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["TARGET_DEFINES", "with_target_defines"]

TARGET_DEFINES = {"__TARGET_BMV2__": "1"}


def with_target_defines(defines: Mapping[str, str] | None) -> dict[str, str]:
    """The target's defines, overridden and extended by `defines`."""
    return {**TARGET_DEFINES, **(defines or {})}
