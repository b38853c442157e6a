"""Policy YAML -> `Policy`. docs/policy.md describes the format; an error names the file,
the key (dotted path) and what is wrong:

    policy.yaml: load_balancing.mode: 'sprey' is not one of ecmp, flowlet, spray, adaptive
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from .policy import (
    Cnp,
    EcnRed,
    EcnStep,
    GroupMode,
    IntCollector,
    IntPolicy,
    IntWatch,
    Policy,
    Trim,
    instruction_bitmap,
)

__all__ = ["PolicyError", "check_policy", "load_policy", "parse_policy"]

if TYPE_CHECKING:
    from .encode import FabricEncoder

T = TypeVar("T")


class PolicyError(ValueError):
    """A policy file that cannot be used: `file: key: what is wrong`."""

    def __init__(self, source: str, key: str, message: str) -> None:
        self.source = source
        self.key = key
        self.message = message
        where = f"{source}: {key}: " if key else f"{source}: "
        super().__init__(where + message)


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> PolicyError:
        return PolicyError(self.source, key, message)

    def mapping(self, value: Any, key: str, known: tuple[str, ...]) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(key, f"expected a mapping, got {_kind(value)}")
        for k in value:
            if k not in known:
                raise self.fail(_join(key, str(k)), f"unknown key (known here: {', '.join(known)})")
        return value

    def integer(self, m: Mapping[str, Any], key: str, name: str, default: int | None = None) -> int:
        v = m.get(name, default)
        full = _join(key, name)
        if v is None:
            raise self.fail(full, "missing (an integer)")
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(full, f"expected an integer, got {_kind(v)} {v!r}")
        if v < 0:
            raise self.fail(full, f"{v} is negative")
        return v

    def opt_int(self, m: Mapping[str, Any], key: str, name: str) -> int | None:
        return None if m.get(name) is None else self.integer(m, key, name)

    def string(self, m: Mapping[str, Any], key: str, name: str, default: str | None = None) -> str:
        v = m.get(name, default)
        full = _join(key, name)
        if v is None:
            raise self.fail(full, "missing (a string)")
        if not isinstance(v, str):
            raise self.fail(full, f"expected a string, got {_kind(v)} {v!r}")
        return v

    def opt_str(self, m: Mapping[str, Any], key: str, name: str) -> str | None:
        return None if m.get(name) is None else self.string(m, key, name)

    def build(self, key: str, make: Callable[[], T]) -> T:
        """Run a constructor; its ValueError becomes an error at `key`."""
        try:
            return make()
        except PolicyError:
            raise
        except ValueError as e:
            raise self.fail(key, str(e)) from None


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _kind(v: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(v), type(v).__name__
    )


_MODE_KEYS = ("mode", "spray", "flowlet_gap_us")


def _mode(r: _Reader, m: Mapping[str, Any], key: str, base: GroupMode | None) -> GroupMode:
    default = base or GroupMode()
    label = r.string(m, key, "mode", default.label)
    gap = r.integer(m, key, "flowlet_gap_us", default.gap_us)
    mode = r.build(_join(key, "mode"), lambda: GroupMode.parse(label, gap))
    if "spray" in m:
        kind = r.string(m, key, "spray")
        mode = r.build(
            _join(key, "spray"),
            lambda: GroupMode(mode.mode, mode.gap_us, kind),  # type: ignore[arg-type]
        )
    return mode


def _lb(r: _Reader, raw: Any) -> tuple[GroupMode, dict[int, GroupMode]]:
    key = "load_balancing"
    m = r.mapping(raw, key, (*_MODE_KEYS, "groups"))
    mode = _mode(r, m, key, None)
    groups: dict[int, GroupMode] = {}
    gk = _join(key, "groups")
    graw = m.get("groups") or {}
    if not isinstance(graw, Mapping):
        raise r.fail(gk, f"expected a mapping of group id to mode, got {_kind(graw)}")
    for gid, spec in graw.items():
        k = _join(gk, str(gid))
        if isinstance(gid, bool) or not isinstance(gid, int) or gid < 0:
            raise r.fail(k, "a group id is a non-negative integer")
        if isinstance(spec, str):
            spec = {"mode": spec}
        groups[gid] = _mode(r, r.mapping(spec, k, _MODE_KEYS), k, mode)
    return mode, groups


def _ecn(r: _Reader, raw: Any) -> EcnStep | EcnRed | None:
    key = "ecn"
    m = r.mapping(raw, key, ("step", "red"))
    if len(m) > 1:
        raise r.fail(key, "give one of step, red")
    if "step" in m:
        k = _join(key, "step")
        s = r.mapping(m["step"], k, ("threshold",))
        return r.build(k, lambda: EcnStep(r.integer(s, k, "threshold")))
    if "red" in m:
        k = _join(key, "red")
        s = r.mapping(m["red"], k, ("min_threshold", "max_threshold", "max_probability"))
        return r.build(
            k,
            lambda: EcnRed(
                r.integer(s, k, "min_threshold"),
                r.integer(s, k, "max_threshold"),
                r.integer(s, k, "max_probability"),
            ),
        )
    return None


def _trim(r: _Reader, raw: Any) -> Trim:
    k = "trim"
    m = r.mapping(raw, k, ("queue_threshold", "dscp", "priority"))
    return r.build(
        k,
        lambda: Trim(
            r.integer(m, k, "queue_threshold"),
            r.integer(m, k, "dscp", 46),
            r.integer(m, k, "priority", 1),
        ),
    )


def _cnp(r: _Reader, raw: Any) -> Cnp:
    k = "cnp"
    m = r.mapping(raw, k, ("queue_threshold", "interval_us", "dscp"))
    return r.build(
        k,
        lambda: Cnp(
            r.integer(m, k, "queue_threshold"),
            r.integer(m, k, "interval_us", 50),
            r.integer(m, k, "dscp", 48),
        ),
    )


_WATCH_KEYS = ("ip_src", "ip_dst", "ip_proto", "l4_sport", "l4_dport", "priority")
_COLLECTOR_KEYS = (
    "ip",
    "mac",
    "udp_port",
    "switch",
    "port",
    "src_port",
    "truncate_bytes",
    "drop_report_gap_us",
    "queue_report_threshold",
    "queue_report_gap_us",
)


def _watch(r: _Reader, item: Any, k: str) -> IntWatch:
    w = r.mapping(item, k, _WATCH_KEYS)
    return r.build(
        k,
        lambda: IntWatch(
            ip_src=r.opt_str(w, k, "ip_src"),
            ip_dst=r.opt_str(w, k, "ip_dst"),
            ip_proto=r.opt_int(w, k, "ip_proto"),
            l4_sport=r.opt_int(w, k, "l4_sport"),
            l4_dport=r.opt_int(w, k, "l4_dport"),
            priority=r.integer(w, k, "priority", 10),
        ),
    )


def _int(r: _Reader, raw: Any) -> IntPolicy:
    key = "int"
    m = r.mapping(raw, key, ("max_hops", "instructions", "watchlist", "collector"))
    default = IntPolicy()
    ins_raw = m.get("instructions")
    ik = _join(key, "instructions")
    if ins_raw is None:
        instructions = default.instructions
    elif isinstance(ins_raw, int) and not isinstance(ins_raw, bool):
        instructions = r.integer(m, key, "instructions")
    elif isinstance(ins_raw, list) and all(isinstance(x, str) for x in ins_raw):
        instructions = r.build(ik, lambda: instruction_bitmap(tuple(ins_raw)))
    else:
        raise r.fail(ik, "expected a list of instruction names or a 16-bit bitmap")
    wl = m.get("watchlist") or []
    wk = _join(key, "watchlist")
    if not isinstance(wl, list):
        raise r.fail(wk, f"expected a list, got {_kind(wl)}")
    watch = [_watch(r, item, f"{wk}[{i}]") for i, item in enumerate(wl)]
    collector = None
    if m.get("collector") is not None:
        ck = _join(key, "collector")
        c = r.mapping(m["collector"], ck, _COLLECTOR_KEYS)
        collector = r.build(
            ck,
            lambda: IntCollector(
                ip=r.string(c, ck, "ip"),
                mac=r.string(c, ck, "mac"),
                udp_port=r.integer(c, ck, "udp_port", 32766),
                switch=r.opt_str(c, ck, "switch"),
                port=r.opt_int(c, ck, "port"),
                src_port=r.integer(c, ck, "src_port", 32766),
                truncate_bytes=r.integer(c, ck, "truncate_bytes", 0),
                drop_report_gap_us=r.integer(c, ck, "drop_report_gap_us", 0),
                queue_report_threshold=r.integer(c, ck, "queue_report_threshold", 0),
                queue_report_gap_us=r.integer(c, ck, "queue_report_gap_us", 1000),
            ),
        )
    return r.build(
        key,
        lambda: IntPolicy(
            tuple(watch), r.integer(m, key, "max_hops", default.max_hops), instructions, collector
        ),
    )


def _mtu(r: _Reader, raw: Any) -> tuple[int, dict[int, int]]:
    key = "mtu"
    if isinstance(raw, int) and not isinstance(raw, bool):
        return r.integer({"mtu": raw}, "", "mtu"), {}
    m = r.mapping(raw, key, ("default", "ports"))
    default = r.integer(m, key, "default", 1500)
    ports: dict[int, int] = {}
    pk = _join(key, "ports")
    praw = m.get("ports") or {}
    if not isinstance(praw, Mapping):
        raise r.fail(pk, f"expected a mapping of port to MTU, got {_kind(praw)}")
    for port in praw:
        if isinstance(port, bool) or not isinstance(port, int) or port < 0:
            raise r.fail(_join(pk, str(port)), "a port is a non-negative integer")
        ports[port] = r.integer(praw, pk, port)  # type: ignore[arg-type]
    return default, ports


_TOP = ("load_balancing", "ecn", "trim", "cnp", "int", "mtu")


def parse_policy(data: Any, source: str = "<policy>") -> Policy:
    """A `Policy` from already-parsed YAML (`source` names it in errors)."""
    r = _Reader(source)
    top = r.mapping(data, "", _TOP)
    mode, groups = _lb(r, top.get("load_balancing"))
    mtu, port_mtu = _mtu(r, top["mtu"]) if "mtu" in top else (1500, {})
    return Policy(
        mode=mode,
        groups=groups,
        ecn=_ecn(r, top.get("ecn")),
        trim=_trim(r, top["trim"]) if top.get("trim") is not None else None,
        cnp=_cnp(r, top["cnp"]) if top.get("cnp") is not None else None,
        int_md=_int(r, top["int"]) if top.get("int") is not None else None,
        mtu=mtu,
        port_mtu=port_mtu,
    )


def load_policy(path: str | Path) -> Policy:
    """Read a policy YAML file; PolicyError (file, key, what) on any problem."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise PolicyError(str(path), "", e.strerror or str(e)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise PolicyError(
            str(path), "", f"{where}not valid YAML ({getattr(e, 'problem', e)})"
        ) from None
    return parse_policy(data, str(path))


def check_policy(policy: Policy, encoder: FabricEncoder, source: str = "<policy>") -> None:
    """Build every entry the policy asks for once, against the program's P4Info, so a value
    the data plane cannot hold (a threshold wider than its field, a mode the program lacks)
    is a PolicyError naming the key, not an error from the first switch written."""

    def attempt(key: str, build: Callable[[], object]) -> None:
        try:
            build()
        except (ValueError, KeyError) as e:
            raise PolicyError(source, key, str(e).strip("'\"")) from None

    attempt("load_balancing", lambda: encoder.group(1, policy.mode, 1))
    for gid, mode in policy.groups.items():
        attempt(f"load_balancing.groups.{gid}", partial(encoder.group, gid, mode, 1))
    if policy.ecn is not None:
        ecn = policy.ecn
        attempt("ecn", lambda: encoder.ecn(1, ecn))
    if policy.trim is not None:
        trim = policy.trim
        attempt("trim", lambda: encoder.trim(1, trim))
    if policy.cnp is not None:
        cnp = policy.cnp
        attempt("cnp", lambda: encoder.cnp(1, cnp))
    attempt("mtu", lambda: encoder.int_port(1, 0, policy.mtu))
    for port, mtu in policy.port_mtu.items():
        attempt(f"mtu.ports.{port}", partial(encoder.int_port, port, 0, mtu))
    im = policy.int_md
    if im is not None:
        for i, w in enumerate(im.watchlist):
            attempt(
                f"int.watchlist[{i}]", partial(encoder.int_watch, w, im.max_hops, im.instructions)
            )
        attempt("int", lambda: encoder.int_watch(IntWatch(), im.max_hops, im.instructions))
        if im.collector is not None:
            col = im.collector
            attempt(
                "int.collector",
                lambda: encoder.int_report(
                    col.port or 1, "00:00:00:00:00:00", col.mac, "0.0.0.0", col
                ),
            )
