"""simple_switch_CLI queue commands in softswitch: parsing, applying them per port and
priority to a runtime (kept across program loads), and the `--queue-command` option."""

from __future__ import annotations

import pytest

from softswitch.cli import _apply_queue_commands, build_run_parser, main
from softswitch.queue_commands import QueueCommand, QueueCommandError, parse_queue_command
from softswitch.runtime import SwitchRuntime

from .programs import compiled


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("set_queue_rate 1000", QueueCommand("rate", 1000)),
        ("set_queue_rate 0 3", QueueCommand("rate", 0, 3)),
        ("set_queue_rate 250 3 2", QueueCommand("rate", 250, 3, 2)),
        ("set_queue_depth 16 0x10 1", QueueCommand("depth", 16, 16, 1)),
        ("  set_queue_depth   8 ", QueueCommand("depth", 8)),
    ],
)
def test_parse(line: str, want: QueueCommand) -> None:
    assert parse_queue_command(line) == want


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("", "empty"),
        ("set_queue_speed 10", "unknown queue command 'set_queue_speed'"),
        ("set_queue_rate", r"usage: set_queue_rate <rate_pps> \[<egress_port> \[<priority>\]\]"),
        ("set_queue_depth 1 2 3 4", "usage: set_queue_depth"),
        ("set_queue_rate fast", "rate 'fast' is not an integer"),
        ("set_queue_rate 10 -1", "egress port -1 is negative"),
        ("set_queue_depth 0", "at least 1 packet"),
    ],
)
def test_parse_errors(line: str, error: str) -> None:
    with pytest.raises(QueueCommandError, match=error):
        parse_queue_command(line)


def test_commands_set_one_queue_and_survive_a_reload() -> None:
    rt = SwitchRuntime(priority_queues=4)
    rt.load(compiled())
    _apply_queue_commands(
        rt,
        [
            parse_queue_command(c)
            for c in (
                "set_queue_rate 500",  # every port, every priority
                "set_queue_rate 2000 2 3",  # port 2, priority 3
                "set_queue_rate 0 2 1",  # port 2, priority 1: no limit
                "set_queue_depth 9 2",  # port 2, every priority
                "set_queue_depth 3 2 0",  # port 2, priority 0
            )
        ],
    )
    for sw in (rt.switch, rt.load(compiled())):
        assert sw is not None
        port2 = sw.tm.port(2).configs
        assert [c.rate_pps for c in port2] == [500, None, 500, 2000]
        assert [c.depth for c in port2] == [3, 9, 9, 9]
        other = sw.tm.port(5).configs
        assert [c.rate_pps for c in other] == [500] * 4
        assert [c.depth for c in other] == [64] * 4


def test_a_priority_the_switch_lacks_is_refused_and_not_kept() -> None:
    rt = SwitchRuntime(priority_queues=2)
    rt.load(compiled())
    with pytest.raises(ValueError, match=r"priority 2 out of range: this switch has 2 queue"):
        rt.set_queue_rate(1, pps=10, priority=2)
    with pytest.raises(ValueError, match="at least 1 packet"):
        rt.set_queue_depth(0, 1)
    sw = rt.load(compiled())
    assert not sw.tm.configured  # nothing was recorded for the next load


def test_cli_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_run_parser().parse_args(
        [
            "--no-p4",
            "--queue-command",
            "set_queue_rate 10 1 0",
            "--queue-command",
            "set_queue_depth 4",
        ]
    )
    assert args.queue_command == [QueueCommand("rate", 10, 1, 0), QueueCommand("depth", 4)]
    with pytest.raises(SystemExit):
        main(["--no-p4", "--queue-command", "set_queue_rate ten"])
    assert "rate 'ten' is not an integer" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--no-p4", "--priority-queues", "2", "--queue-command", "set_queue_rate 10 1 2"])
    assert "priority 2 out of range: 2 queue(s) per port" in capsys.readouterr().err


def test_changing_a_rate_often_keeps_one_record_per_queue() -> None:
    rt = SwitchRuntime(priority_queues=2)
    rt.load(compiled())
    for r in range(1, 200):
        rt.set_queue_rate(pps=1000 + r)
        rt.set_queue_rate(3, pps=r, priority=1)
        rt.set_queue_depth(5 + r % 2, 3)
    assert len(rt._queue_settings) == 3
    assert rt.switch is not None
    live = [(c.rate_pps, c.depth) for c in rt.switch.tm.port(3).configs]
    assert live == [(1199, 6), (199, 6)]
    sw = rt.load(compiled())
    assert [(c.rate_pps, c.depth) for c in sw.tm.port(3).configs] == live


def test_runtime_and_cli_choose_bmv2_queueing() -> None:
    rt = SwitchRuntime(priority_queues=2, queueing="bmv2")
    assert rt.load(compiled()).tm.bmv2_queueing
    assert not SwitchRuntime().load(compiled()).tm.bmv2_queueing
    with pytest.raises(ValueError, match="shared or bmv2"):
        SwitchRuntime(queueing="fifo")
    assert build_run_parser().parse_args(["--no-p4", "--queueing", "bmv2"]).queueing == "bmv2"
    assert build_run_parser().parse_args(["--no-p4"]).queueing == "shared"
