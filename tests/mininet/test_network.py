"""The Mininet side on its own (root, Mininet installed): hosts in namespaces, a softswitch
process on the switch's veths, link rates, pcaps, the prompt's commands, and a clean exit.

One switch runs a cross-connect program (port 1 <-> port 2), so no controller is needed:
these tests are about the network the runner builds and removes, not about routing."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabricnet.mn import mininet_missing_reason

from ._tags import unique_tag

REASON = mininet_missing_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"Mininet test: {REASON}")

ROOT = Path(__file__).resolve().parents[2]
CROSS = ROOT / "bench" / "programs" / "cross_connect.p4"
TAG = unique_tag("zq")  # interface prefix of the first test (each test has its own)


def _topology():  # type: ignore[no-untyped-def]
    from controller.topology import HostNode, SwitchNode, Topology

    return Topology(
        "one-switch",
        switches=(SwitchNode("s1", "leaf", 7, subnets=("10.9.0.0/24",)),),
        hosts=tuple(
            HostNode(f"h{i}", f"10.9.0.{i}", f"06:00:0a:09:00:0{i}", "s1", i, rate_bps=10**7)
            for i in (1, 2)
        ),
    )


def _named_netns_inodes() -> set[int]:
    """Inodes of the namespaces `ip netns` lists (other tests may add their own)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        path = Path("/var/run/netns") / line.split()[0]
        try:
            found.add(path.stat().st_ino)
        except OSError:
            pass
    return found


class FakeControl:
    """Records what the prompt asked of the controller."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def set_lb(self, mode: str, group: int | None = None) -> str:
        self.calls.append(("set_lb", mode, group))
        return f"mode {mode}"

    def link_down(self, a: str, b: str) -> str:
        self.calls.append(("link_down", a, b))
        return ""

    def link_up(self, a: str, b: str) -> str:
        self.calls.append(("link_up", a, b))
        return ""

    def counters(self) -> str:
        self.calls.append(("counters",))
        raise RuntimeError("no switch answered")  # the prompt must survive this


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from controller.targets import compile_program

    out = tmp_path_factory.mktemp("cross")
    return compile_program(CROSS, out).device_config


def _network(workdir: Path, program: Path, tag: str, pcap: bool = False):  # type: ignore[no-untyped-def]
    from controller.targets import SwitchProcess, SwitchSpec
    from fabricnet.net import FabricNet

    def launch(req):  # type: ignore[no-untyped-def]
        spec = SwitchSpec(
            config=program,
            ports=tuple(sorted(req.interfaces.items())),
            grpc_addr=req.grpc_address,
            device_id=req.device_id,
            log_file=req.log_path,
        )
        return SwitchProcess(spec).start()

    return FabricNet(_topology(), launch=launch, workdir=workdir, pcap=pcap, tag=tag)


def test_hosts_ping_through_the_switch_process_and_nothing_is_left(
    tmp_path: Path, program: Path
) -> None:
    from fabricnet.hosts import offloads_of
    from fabricnet.traffic import Flow, run_flows

    fnet = _network(tmp_path, program, TAG, pcap=True)
    with fnet:
        fnet.start()
        h1, h2 = fnet.host("h1"), fnet.host("h2")
        out = h1.cmd("ping -c 3 -i 0.2 -W 2 10.9.0.2")
        assert " 0% packet loss" in out, out
        # hosts: the file's address and MAC, offloads off, no IPv6
        assert "10.9.0.2/24" in h2.cmd("ip -o -4 addr show dev", f"{TAG}h2-eth0")
        assert "06:00:0a:09:00:02" in h2.cmd("ip -o link show dev", f"{TAG}h2-eth0")
        offloads = offloads_of(h1, f"{TAG}h1-eth0")
        assert offloads and set(offloads.values()) == {"off"}, offloads
        switch_side = offloads_of(fnet.net["s1"], f"{TAG}s1-eth1")
        assert switch_side and set(switch_side.values()) == {"off"}, switch_side
        assert h1.cmd("sysctl -n net.ipv6.conf.all.disable_ipv6").strip() == "1"
        # the link's rate is an htb class on both ends
        classes = subprocess.run(
            ["tc", "class", "show", "dev", f"{TAG}s1-eth1"], capture_output=True, text=True
        ).stdout
        assert "htb" in classes and "rate 10Mbit" in classes, classes
        # iperf3 directly (not net.iperf()): the flow gets through, at most at the link rate
        flows = run_flows(
            fnet.host, lambda h: fnet.host(h).IP(), [Flow("h1", "h2")], 2, track=fnet.track
        )
        assert flows[0].error is None, flows[0].error
        assert 0 < flows[0].mbps <= 10.5, flows[0]
        iperf_pids = [p for p, (_, what) in fnet.footprint.processes.items() if "iperf3" in what]
        assert len(iperf_pids) == 2  # server and client, recorded with the network
        pids = [p for p in fnet.footprint.processes]
        sw = fnet.net["s1"]
        assert sw.process is not None and sw.process.pid in pids
        log = sw.log_path
    # everything the run created is gone
    assert not fnet.footprint.leftovers(), str(fnet.footprint.leftovers())
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f"{TAG}s1-eth" not in links and f"{TAG}h1-eth" not in links
    # the hosts' namespaces are gone: no process holds them, no name refers to them
    assert len(fnet.footprint.namespaces) == 2
    assert not set(fnet.footprint.namespaces.values()) & _named_netns_inodes()
    for pid in pids:
        assert not Path(f"/proc/{pid}/cmdline").exists() or (
            Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
        ), f"process {pid} still running"
    # what it leaves on purpose: the switch log and a pcap per switch port
    assert "ready" in log.read_text()
    for port in (1, 2):
        pcap = tmp_path / "pcap" / f"{TAG}s1-eth{port}.pcap"
        # pcap header (24 bytes) + at least the 3 echo requests and replies
        assert pcap.stat().st_size > 24 + 6 * (16 + 98), pcap.stat().st_size


def test_an_exception_inside_the_run_leaves_nothing(tmp_path: Path, program: Path) -> None:
    fnet = _network(tmp_path, program, unique_tag("zr"))
    with pytest.raises(RuntimeError, match="test failure"), fnet:
        fnet.start()
        assert fnet.footprint.leftovers().processes  # running now
        raise RuntimeError("test failure")
    assert not fnet.footprint.leftovers(), str(fnet.footprint.leftovers())


def test_the_prompt_passes_fabric_commands_to_the_controller(tmp_path: Path, program: Path) -> None:
    from sprayfabric.mininet_prompt import FabricCLI

    script = tmp_path / "commands"
    script.write_text("set-lb spray\nset-lb ecmp 3\ncounters\nlink down h1 s1\nlink s1 h1 up\n")
    control = FakeControl()
    tag = unique_tag("zp")
    fnet = _network(tmp_path, program, tag)
    with fnet:
        fnet.start()
        states = []
        original = fnet.net.configLinkStatus

        def record(a: str, b: str, state: str) -> None:
            original(a, b, state)
            states.append(
                (
                    state,
                    fnet.host("h1").cmd("cat", f"/sys/class/net/{tag}h1-eth0/operstate").strip(),
                )
            )

        fnet.net.configLinkStatus = record
        with open("/dev/null") as devnull:  # pytest's stdin has no file descriptor
            FabricCLI(fnet.net, control, stdin=devnull, script=str(script))
    assert control.calls == [
        ("set_lb", "spray", None),
        ("set_lb", "ecmp", 3),
        ("counters",),
        ("link_down", "h1", "s1"),
        ("link_up", "s1", "h1"),
    ]
    assert states == [("down", "down"), ("up", "up")]


def test_the_prompt_takes_lb_set_as_set_lb(tmp_path: Path) -> None:
    """`lb set MODE [GROUP]` (the command's noun verb spelling) is `set-lb MODE [GROUP]`."""
    from sprayfabric.mininet_prompt import FabricCLI

    script = tmp_path / "commands"
    script.write_text("lb set spray\nlb set ecmp 3\nlb get\n")
    control = FakeControl()
    with open("/dev/null") as devnull:  # no network: `lb` does not touch it
        FabricCLI(object(), control, stdin=devnull, script=str(script))
    assert control.calls == [("set_lb", "spray", None), ("set_lb", "ecmp", 3)]


_PROMPT_CHILD = """
import sys
from pathlib import Path
from sprayfabric.mininet_prompt import FabricCLI
from fabricnet.signals import Terminated, interrupt_on_termination
from tests.mininet.test_network import FakeControl, _network

interrupt_on_termination()
fnet = _network(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
try:
    with fnet:
        fnet.start()
        print("prompt up", flush=True)
        FabricCLI(fnet.net, FakeControl())  # reads the parent's pipe, which stays silent
except Terminated as e:
    print("terminated by", e, flush=True)
print("left:", fnet.footprint.leftovers(), flush=True)
"""


def test_sigterm_at_the_prompt_ends_the_run_and_leaves_nothing(
    tmp_path: Path, program: Path
) -> None:
    # Mininet's prompt survives Ctrl-C (KeyboardInterrupt); a SIGTERM must end the run
    tag = unique_tag("zt")
    proc = subprocess.Popen(
        [sys.executable, "-c", _PROMPT_CHILD, str(tmp_path), str(program), tag],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("prompt up"):
                break
        assert lines and lines[-1].startswith("prompt up"), "".join(lines)
        time.sleep(0.5)  # into the prompt's read
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "terminated by signal SIGTERM" in out, out
    assert "left: nothing" in out, out
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f"{tag}s1-eth" not in links and f"{tag}h1-eth" not in links
