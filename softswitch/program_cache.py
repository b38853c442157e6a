"""Compiled programs kept on disk, so a switch process that loads a program it (or another
process) compiled before skips parsing, checking and code generation.

    cache = ProgramCache()                   # in cache_dir()
    compiled = cache.load(device_config)     # the bytes `softswitch compile -o` writes

An entry is keyed by the SHA-256 of the device config, the trace flag and the build that
compiled it: the Python version and the size and modification time of every source file of
softswitch and of lark. Editing the compiler, the P4 include files or upgrading lark
therefore misses the old entries instead of loading code an older compiler generated.
An entry holds the `CompiledProgram` (pickled) and its generated module's code object
(marshalled). A missing, stale or unreadable entry is compiled again and rewritten; a
directory that cannot be written only costs the saving. Entries are written atomically
(readers see the old file or the whole new one), and the directory keeps the `keep` most
recently used programs.

Programs that fail to compile are not cached: their errors are raised again each time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import marshal
import os
import pickle
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .frontend.cachedir import cache_dir

if TYPE_CHECKING:
    from .program_info import CompiledProgram

__all__ = ["ProgramCache", "SharedPrograms", "build_fingerprint", "cache_dir"]

log = logging.getLogger("softswitch.cache")
_FORMAT = b"softswitch-program-cache-1"
_SUFFIXES = (".py", ".lark", ".p4")
_PREFIX = "program-"


def _stat_tree(root: str, h: hashlib._Hash) -> None:
    """Feed `h` the relative path, size and modification time of every source file under
    `root` (in a stable order)."""
    stack = [root]
    found: list[tuple[str, int, int]] = []
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        stack.append(e.path)
                elif e.name.endswith(_SUFFIXES):
                    st = e.stat()
                    found.append((os.path.relpath(e.path, root), st.st_size, st.st_mtime_ns))
    for rel, size, mtime in sorted(found):
        h.update(f"{rel}\0{size}\0{mtime}\n".encode())


@cache
def build_fingerprint() -> bytes:
    """What identifies the compiler this process runs: Python's version and the size and
    modification time of every source file of softswitch and lark (once per process)."""
    h = hashlib.sha256(_FORMAT)
    h.update(sys.version.encode())
    _stat_tree(str(Path(__file__).parent), h)
    for entry in sys.path:  # lark as the import system finds it (without importing it)
        lark = os.path.join(entry or ".", "lark")
        if os.path.isfile(os.path.join(lark, "__init__.py")):
            _stat_tree(lark, h)
            break
    return h.digest()


class ProgramCache:
    """Device configs -> CompiledPrograms, compiled once per build and program."""

    def __init__(self, directory: str | Path | None = None, keep: int = 32) -> None:
        self.directory = Path(directory) if directory is not None else cache_dir()
        self.keep = keep
        self.hits = 0
        self.misses = 0

    def path_for(self, data: bytes, trace: bool) -> Path:
        h = hashlib.sha256(build_fingerprint())
        h.update(b"trace" if trace else b"plain")
        h.update(data)
        return self.directory / f"{_PREFIX}{h.hexdigest()[:32]}.pickle"

    def load(self, data: bytes | str, trace: bool = False) -> CompiledProgram:
        """The program of a device config (DeviceConfigError, P4Error as
        `device_config.load_device_config` raises them)."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        path = self.path_for(raw, trace)
        compiled = self._read(path)
        if compiled is not None:
            self.hits += 1
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: kept by _prune
            return compiled
        self.misses += 1
        from .device_config import load_device_config

        compiled = load_device_config(raw, trace=trace)
        self._write(path, compiled)
        return compiled

    def _read(self, path: Path) -> CompiledProgram | None:
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        try:
            fmt, compiled, code = pickle.loads(blob)
            if fmt != _FORMAT:
                raise ValueError(f"format {fmt!r}")
            compiled._code = marshal.loads(code)
        except Exception as e:  # noqa: BLE001 - any damage: compile again
            log.warning("program cache %s unreadable (%s): compiling again", path, e)
            return None
        return compiled  # type: ignore[no-any-return]

    def _write(self, path: Path, compiled: CompiledProgram) -> None:
        code = marshal.dumps(compiled.code())  # beside the program, not pickled in it
        bare = dataclasses.replace(compiled, _code=None, _module=None, spare_structs=[])
        try:
            blob = pickle.dumps((_FORMAT, bare, code), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as e:
            log.debug("program cache: %s cannot be saved: %s", compiled.name, e)
            return
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(blob)
            os.replace(tmp, path)
        except OSError as e:
            log.debug("program cache %s not written: %s", path, e)
            with contextlib.suppress(OSError):
                tmp.unlink()
            return
        self._prune()

    def _prune(self) -> None:
        """Keep the `keep` most recently used entries."""
        try:
            entries = [
                (e.stat().st_mtime_ns, e.path)
                for e in os.scandir(self.directory)
                if e.name.startswith(_PREFIX) and e.name.endswith(".pickle")
            ]
        except OSError:
            return
        entries.sort(reverse=True)
        for _mtime, p in entries[self.keep :]:
            with contextlib.suppress(OSError):
                os.unlink(p)


class SharedPrograms:
    """`load` of a `ProgramCache` that keeps each program in memory too, so the devices of
    a chassis that push the same device config share one `CompiledProgram` (compiled or
    read from disk once; each `Switch` built from it still has tables of its own)."""

    def __init__(self, cache: ProgramCache) -> None:
        import threading

        self.cache = cache
        self._programs: dict[tuple[bytes, bool], CompiledProgram] = {}
        self._lock = threading.Lock()

    def load(self, data: bytes | str, trace: bool = False) -> CompiledProgram:
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        key = (hashlib.sha256(raw).digest(), trace)
        with self._lock:  # devices pushing at once wait for the first one's load
            got = self._programs.get(key)
            if got is None:
                got = self._programs[key] = self.cache.load(raw, trace=trace)
            return got
