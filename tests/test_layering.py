"""The house's packages depend on each other one way only.

The top-level packages stand in floors: the `sprayfabric` command on top; the simulator
(`fabricsim`) and the Mininet runner (`fabricnet`) beside each other below it; the control
plane (`controller`) below them; the P4 target (`softswitch`) below that; the P4Runtime
protobuf loader (`p4rt_proto`) under everything. A package imports only floors below its
own, nothing imports `sprayfabric`, and there is no cycle; read from the sources with
`ast`, imports inside functions and type-checking-only imports included.

Inside softswitch: the code generator knows no architecture (the compiler hands it one),
the engine and the front end know neither, and nothing below the P4Runtime server imports
it. Inside the code generator, the typed IR of expressions imports neither their checker
nor their emitter, and neither of those reaches the other. Two checks: the package-level
import graph has no cycle, nor has the module-level graph inside the code generator, and
importing a low layer alone in a fresh interpreter loads none of the layers above it.

`python -m tests.test_layering` prints the graphs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HOUSE = Path(__file__).resolve().parent.parent
ROOT = HOUSE / "softswitch"


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


def module_graph(package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (its `__init__` left out: it
    re-exports the package's API)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).glob("*.py")):
        if path.name == "__init__.py":
            continue
        src = _module_name(path)[0]
        prefix = f"softswitch.{package}."
        graph[src] = {m for m in _imports(path) if m.startswith(prefix) and m != src}
    return graph


def test_code_generator_modules_import_one_way() -> None:
    graph = module_graph("codegen")
    assert "softswitch.codegen.exprs" in graph  # the modules were found
    cycle = _cycle(graph)
    assert cycle is None, "import cycle inside codegen: " + " -> ".join(cycle or ())


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules `start` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for m in graph.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


CG = "softswitch.codegen."
# (module, the modules it must not reach): the typed IR of expressions holds data only;
# the checker makes it and the emitter reads it, neither through the other
EXPR_LAYERS = [
    ("ir", ("exprcheck", "expremit", "exprs")),
    ("expremit", ("exprcheck", "exprs")),
    ("exprcheck", ("expremit", "exprs")),
]


@pytest.mark.parametrize(("module", "forbidden"), EXPR_LAYERS)
def test_expression_ir_checker_and_emitter_import_one_way(
    module: str, forbidden: tuple[str, ...]
) -> None:
    graph = module_graph("codegen")
    assert CG + module in graph
    assert graph[CG + "exprs"] >= {CG + "exprcheck", CG + "expremit"}  # the scan sees them
    reached = _reach(graph, CG + module)
    assert not reached & {CG + f for f in forbidden}, sorted(reached & {CG + f for f in forbidden})


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


# ---------------------------------------------------------------- the house
# top-level package -> the packages it may import: the floors below its own
FLOORS = {
    "sprayfabric": {"fabricsim", "fabricnet", "controller", "softswitch", "p4rt_proto"},
    "fabricsim": {"controller", "softswitch", "p4rt_proto"},
    "fabricnet": {"controller", "softswitch", "p4rt_proto"},
    "controller": {"softswitch", "p4rt_proto"},
    "softswitch": {"p4rt_proto"},
    "p4rt_proto": set(),
}


def _absolute_imports(path: Path) -> set[str]:
    """The modules one file imports by absolute name: `import X`, `from X import ...` and
    `importlib.import_module("X")`, wherever they are (functions, `if TYPE_CHECKING`);
    relative imports stay inside the file's own package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not node.args[0].value.startswith(".")
        ):
            found.add(node.args[0].value)
    return found


def house_imports() -> dict[tuple[str, str], set[str]]:
    """(package, package it imports) -> the files of the first that import the second."""
    found: dict[tuple[str, str], set[str]] = {}
    for top in FLOORS:
        for path in sorted((HOUSE / top).rglob("*.py")):
            for module in _absolute_imports(path):
                other = module.split(".")[0]
                if other in FLOORS and other != top:
                    found.setdefault((top, other), set()).add(str(path.relative_to(HOUSE)))
    return found


def house_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {top: set() for top in FLOORS}
    for a, b in house_imports():
        graph[a].add(b)
    return graph


def test_the_house_has_no_cycle() -> None:
    cycle = _cycle(house_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_packages_import_only_the_floors_below(package: str) -> None:
    upward = {
        (a, b): sorted(files)
        for (a, b), files in house_imports().items()
        if a == package and b not in FLOORS[package]
    }
    assert not upward, upward


def test_nothing_imports_the_command() -> None:
    users = {a: sorted(f) for (a, b), f in house_imports().items() if b == "sprayfabric"}
    assert not users, users
    assert all("sprayfabric" not in may for may in FLOORS.values())


def test_the_scan_sees_lazy_imports() -> None:
    """A function-level import counts: the command imports fabricsim only inside its
    handlers (sprayfabric/sim.py), and the scan finds it."""
    imports = house_imports()
    assert "sprayfabric/sim.py" in imports["sprayfabric", "fabricsim"]
    assert ("sprayfabric", "fabricnet") in imports and ("fabricsim", "controller") in imports


# (module imported alone, top-level packages it must not load)
HOUSE_ISOLATION = [
    ("controller.fabric.up", ("sprayfabric", "fabricsim", "fabricnet")),
    ("controller.lb", ("sprayfabric", "fabricsim", "fabricnet")),
    ("fabricsim.run", ("sprayfabric", "fabricnet")),
    ("fabricnet.report", ("sprayfabric", "fabricsim")),  # without Mininet installed
]


@pytest.mark.parametrize(("module", "forbidden"), HOUSE_ISOLATION)
def test_a_floor_imports_alone(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}\nprint('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert module in out
    for bad in forbidden:
        assert not any(m == bad or m.startswith(bad + ".") for m in out), (module, bad)


if __name__ == "__main__":
    for (top, other), files in sorted(house_imports().items()):
        print(f"{top} -> {other} ({len(files)} files)")
    for graph in (package_graph(), module_graph("codegen")):
        print()
        for unit, deps in sorted(graph.items()):
            for d in sorted(deps):
                print(f"{unit} -> {d}")
