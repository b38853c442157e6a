"""controller.lb holds the one list of group-mode labels: each label is a GroupMode and
back (tests/fabricsim/test_config.py: the simulator takes every label)."""

from __future__ import annotations

import pytest

from controller.lb import MODE_ALIASES, MODE_CHOICES, MODE_LABELS, GroupMode, mode_label


def test_the_labels_and_their_aliases() -> None:
    assert MODE_LABELS == ("ecmp", "flowlet", "spray", "spray_round_robin", "adaptive")
    assert (*MODE_LABELS, "spray_random") == MODE_CHOICES
    assert GroupMode.parse("spray_round_robin") == GroupMode("spray", spray="round_robin")
    assert GroupMode.parse("spray") == GroupMode("spray", spray="random")


@pytest.mark.parametrize("label", MODE_CHOICES)
def test_a_label_is_a_group_mode_and_back(label: str) -> None:
    mode = GroupMode.parse(label, gap_us=40)
    assert mode.gap_us == 40
    assert mode_label(mode) == MODE_ALIASES.get(label, label)  # type: ignore[call-overload]
    assert GroupMode.parse(mode_label(mode), gap_us=40) == mode


def test_one_label_per_mode() -> None:
    assert len({GroupMode.parse(label) for label in MODE_LABELS}) == len(MODE_LABELS)
    assert {GroupMode.parse(label).label for label in MODE_LABELS} == {
        "ecmp",
        "flowlet",
        "spray_random",
        "spray_round_robin",
        "adaptive",
    }  # the fabric.p4 actions (use_<label>): every one has a label
