"""softswitch's packages depend on each other one way only.

The code generator knows no architecture (the compiler hands it one), the engine and the
front end know neither, and nothing below the P4Runtime server imports it. Two checks: the
package-level import graph (read from the sources with `ast`) has no cycle, and importing a
low layer alone in a fresh interpreter loads none of the layers above it.

`python -m tests.test_layering` prints the graph.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "softswitch"


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _unit(module: str) -> str:
    """The unit a module belongs to: `softswitch.X` (a subpackage or a top-level module)."""
    return ".".join(module.split(".")[:2])


def _exists(module: str) -> bool:
    p = ROOT.parent.joinpath(*module.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    """softswitch modules imported by one file, type-checking-only imports included."""
    module, is_package = _module_name(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{a.name}" for a in node.names if _exists(f"{target}.{a.name}")]
            found.update(subs or [target])
    return {m for m in found if m.startswith("softswitch.")}


def package_graph() -> dict[str, set[str]]:
    """unit -> units it imports (units are softswitch's subpackages and top-level modules)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        src = _unit(_module_name(path)[0])
        if src == "softswitch":  # the package's __init__ re-exports the public API
            continue
        deps = graph.setdefault(src, set())
        deps.update(_unit(m) for m in _imports(path) if _unit(m) != src)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m) :] + [m]
            if m not in state and (found := visit(m)) is not None:
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)) is not None:
            return found
    return None


def test_package_graph_has_no_cycle() -> None:
    cycle = _cycle(package_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_code_generator_knows_no_architecture() -> None:
    graph = package_graph()
    assert "softswitch.v1model" not in graph["softswitch.codegen"]
    assert "softswitch.codegen" in graph["softswitch.v1model"]
    v1model = {m for f in (ROOT / "v1model").rglob("*.py") for m in _imports(f)}
    assert {m for m in v1model if m.startswith("softswitch.codegen")} == {
        "softswitch.codegen.arch_api"
    }  # the one module architectures see


# what each low layer may import (docs/softswitch.md, "The packages and who may import whom")
MAY_IMPORT = {
    "softswitch.frontend": set(),
    "softswitch.engine": {"softswitch.program_info"},
    "softswitch.program_info": {"softswitch.frontend"},  # types only
    "softswitch.codegen": {"softswitch.frontend", "softswitch.engine", "softswitch.program_info"},
    "softswitch.v1model": {
        "softswitch.codegen",
        "softswitch.engine",
        "softswitch.frontend",
        "softswitch.program_info",
        "softswitch.clock",
    },
    "softswitch.compiler": {
        "softswitch.codegen",
        "softswitch.frontend",
        "softswitch.program_info",
        "softswitch.v1model",
    },
}


@pytest.mark.parametrize("unit", sorted(MAY_IMPORT))
def test_layers_import_only_what_the_documentation_allows(unit: str) -> None:
    graph = package_graph()
    assert unit in graph
    assert graph[unit] <= MAY_IMPORT[unit], sorted(graph[unit] - MAY_IMPORT[unit])


# (package imported alone, packages it must not load)
ISOLATION = [
    ("softswitch.frontend", ("softswitch.codegen", "softswitch.v1model", "softswitch.engine")),
    ("softswitch.engine", ("softswitch.codegen", "softswitch.v1model", "softswitch.p4runtime")),
    ("softswitch.codegen", ("softswitch.v1model", "softswitch.p4runtime", "softswitch.p4info")),
    ("softswitch.v1model.switch", ("softswitch.codegen", "softswitch.p4runtime")),
    ("softswitch.p4info", ("softswitch.p4runtime", "softswitch.codegen")),
]


@pytest.mark.parametrize(("package", "forbidden"), ISOLATION)
def test_package_imports_alone(package: str, forbidden: tuple[str, ...]) -> None:
    code = (
        f"import sys, {package}\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('softswitch.'))\n"
        "print('\\n'.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert package in out  # the import ran and its modules were listed
    for bad in forbidden:
        assert not any(m == bad or m.startswith(bad + ".") for m in out), (package, bad)


if __name__ == "__main__":
    for unit, deps in sorted(package_graph().items()):
        for d in sorted(deps):
            print(f"{unit} -> {d}")
