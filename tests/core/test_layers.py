"""The package's layers hold: no import cycle between modules, no import that runs up a layer, imports at the top
of a module (docs/architecture.md, "Layers").

Imports are read from the source with `ast` — module-level and function-level alike (a function-level import
is an edge of the graph too: it runs, only later) — and every module is also imported for real. A
function-level import of an apportion module is allowed only where the rules below say why.
"""

from __future__ import annotations

import ast
import importlib
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import apportion

# Lowest first. A module may import modules of its own layer and of lower layers, never of a higher one. A module
# belongs to the layer of the longest prefix below that matches its name. Keep this table and the one in
# docs/architecture.md the same.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # cross-cutting helpers every layer may use; they import only each other
    ("base", ("apportion.errors", "apportion.ui", "apportion._chunked", "apportion._atomic", "apportion._arrays",
              "apportion._registry", "apportion._pictures", "apportion._memory", "apportion.checks",
              "apportion._children", "apportion._kernels")),
    # datasets hands out Graphs (issue 12: `apportion.datasets.load`), so it sits with the graph layer
    ("graph", ("apportion.graph", "apportion.datasets")),
    ("platform", ("apportion.platform",)),
    ("perfmodel", ("apportion.perfmodel",)),
    ("partitioning", ("apportion.partitioning",)),
    ("schedule", ("apportion.schedule",)),
    ("runtime", ("apportion.runtime",)),
    ("apps", ("apportion.apps",)),
    # the top-level package's lazy exports reach up to apps (`apportion.mst`), so importing the package itself
    # (`import apportion`, `from apportion import partition`) is for the demo and the CLI only
    ("demo", ("apportion.demo", "apportion")),
    ("cli", ("apportion.cli",)),
)

# Optional heavy dependencies: a module that imports one of these at its top is itself loaded lazily.
HEAVY_OPTIONAL = ("ray", "cupy", "matplotlib", "mtkahypar", "pymetis")

# Edges of a known cycle that another change removes; the cycle check ignores exactly these.
ALLOWED_CYCLE_EDGES: set[tuple[str, str]] = set()

# Function-level imports of apportion modules that no rule below covers, each with its reason.
_FORMAT_ON_DEMAND = ("a format's reader/writer and its Numba kernels load only when a file of that format is read "
                     "or written, so `import apportion.graph.io` (and the CLI's start) stays free of them")
ALLOWED_LAZY: dict[tuple[str, str], str] = {
    ("apportion.datasets", "apportion.graph.io.npz"): "the catalogue (names(), info()) stays free of Numba; "
                                                      "only load() needs the reader",
    ("apportion.graph.io", "apportion.datasets"): "read_graph('dataset:NAME') loads a shipped graph, as the "
                                                  "command line does; the catalogue imports the readers lazily",
    ("apportion.graph.io.partfile", "apportion.graph.io._text"): _FORMAT_ON_DEMAND,
    ("apportion.graph.io", "apportion.graph.io.metis"): _FORMAT_ON_DEMAND,
    ("apportion.graph.io", "apportion.graph.io.mtx"): _FORMAT_ON_DEMAND,
    ("apportion.graph.io", "apportion.graph.io.edgelist"): _FORMAT_ON_DEMAND,
    ("apportion.graph.io", "apportion.graph.io.npz"): _FORMAT_ON_DEMAND,
}


@dataclass(frozen=True)
class Edge:
    importer: str
    target: str
    line: int
    lazy: bool  # inside a function (runs when the function runs)


def _source_root() -> Path:
    return Path(apportion.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> file (a package is its __init__.py)."""
    root = _source_root()
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str:
    """The module `name` denotes: itself, else its longest prefix that is a module (`pkg.mod.attr` -> `pkg.mod`)."""
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def _edges(modules: dict[str, Path]) -> list[Edge]:
    edges = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

        def visit(node: ast.AST, lazy: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        if alias.name.split(".")[0] == "apportion":
                            edges.append(Edge(name, _resolve(alias.name, modules), child.lineno, lazy))
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = package.split(".")[:len(package.split(".")) - child.level + 1]
                        source = ".".join(base + ([child.module] if child.module else []))
                    else:
                        source = child.module or ""
                    if source.split(".")[0] != "apportion":
                        continue
                    for alias in child.names:  # `from pkg import submodule` imports the submodule
                        edges.append(Edge(name, _resolve(f"{source}.{alias.name}", modules), child.lineno, lazy))
                visit(child, lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(tree, False)
    return [e for e in edges if e.target != e.importer]


def _imports_heavy_at_top(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        if any(n.split(".")[0] in HEAVY_OPTIONAL for n in names):
            return True
    return False


def layer_of(module: str) -> int:
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def _lazy_reason(edge: Edge, modules: dict[str, Path]) -> str | None:
    """Why a function-level import may stay there, or None (then it belongs at the top of the module)."""
    if edge.importer.startswith("apportion.cli."):
        return ("the CLI imports every command module to build its parser; a command loads the library only "
                "when it runs, so `apportion --help` and argument errors stay fast")
    if edge.importer.startswith("apportion.demo."):
        return ("every demo section is imported to discover the sections (in the driver and each warm-up "
                "worker); a section loads its subsystem when it runs")
    if edge.target.rpartition(".")[2].endswith("_kernels"):
        return "loading Numba and the kernels' cache waits until a kernel runs (a size-only run never does)"
    if _imports_heavy_at_top(modules[edge.target]):
        return "the target loads an optional heavy dependency (Ray, CuPy, matplotlib, Mt-KaHyPar, pymetis)"
    return ALLOWED_LAZY.get((edge.importer, edge.target))


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    return modules, _edges(modules)


def test_every_module_is_in_a_layer(graph):
    modules, _ = graph
    for name in modules:
        layer_of(name)


def test_no_import_runs_up_a_layer(graph):
    _, edges = graph
    upward = [f"{e.importer}:{e.line} ({LAYERS[layer_of(e.importer)][0]}) imports {e.target} "
              f"({LAYERS[layer_of(e.target)][0]})"
              for e in edges if layer_of(e.target) > layer_of(e.importer)]
    assert not upward, "imports that run up a layer:\n" + "\n".join(upward)


def _cycles(nodes, edges) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    successors: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        successors[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def test_cycle_finder_finds_a_cycle():
    """The checker itself: a planted cycle is found, an acyclic graph passes."""
    assert _cycles(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "a")]) == [["a", "b", "c"]]
    assert _cycles(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")]) == []


def test_no_import_cycle(graph):
    modules, edges = graph
    pairs = {(e.importer, e.target) for e in edges} - ALLOWED_CYCLE_EDGES
    cycles = _cycles(sorted(modules), sorted(pairs))
    described = []
    for component in cycles:
        members = set(component)
        inner = sorted(f"{e.importer}:{e.line} -> {e.target}" for e in edges
                       if e.importer in members and e.target in members
                       and (e.importer, e.target) not in ALLOWED_CYCLE_EDGES)
        described.append("  " + "\n  ".join(inner))
    assert not cycles, "import cycles:\n" + "\n\n".join(described)


def test_allowances_are_still_needed(graph):
    """An allowance whose import is gone must be deleted, so the lists only shrink."""
    _, edges = graph
    pairs = {(e.importer, e.target) for e in edges}
    stale = sorted((set(ALLOWED_LAZY) | ALLOWED_CYCLE_EDGES) - pairs)
    assert not stale, f"allowances for imports that no longer exist (delete them): {stale}"


def test_function_level_imports_have_a_reason(graph):
    modules, edges = graph
    unexplained = sorted(f"{e.importer}:{e.line} imports {e.target} inside a function"
                         for e in edges if e.lazy and _lazy_reason(e, modules) is None)
    assert not unexplained, ("imports belong at the top of the module (lazy only for optional heavy dependencies, "
                             "see tests/core/test_layers.py):\n" + "\n".join(unexplained))


def test_layer_checks_catch_planted_mistakes():
    """The checks can fail: an upward edge and a function-level import without a reason are both caught."""
    modules = _modules()
    planted_up = Edge("apportion.schedule.api", "apportion.apps.matmul", 1, False)
    assert layer_of(planted_up.target) > layer_of(planted_up.importer)
    planted_lazy = Edge("apportion.schedule.api", "apportion.schedule.pool", 1, True)
    assert _lazy_reason(planted_lazy, modules) is None


def test_every_module_imports():
    """Import every module for real (a cycle that Python cannot resolve, or a missing name, fails here)."""
    failures = []
    for name in _modules():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - collect every failure, then report them together
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not failures, "modules that do not import:\n" + "\n".join(failures)
