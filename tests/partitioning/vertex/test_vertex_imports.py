"""The vertex partitioner's modules import each other without cycles, and only at module top."""

from __future__ import annotations

import ast
from pathlib import Path

import apportion.partitioning.vertex as vertex_package

PACKAGE = "apportion.partitioning.vertex"


def _modules() -> dict[str, ast.Module]:
    folder = Path(vertex_package.__file__).parent
    return {path.stem: ast.parse(path.read_text()) for path in sorted(folder.glob("*.py"))}


def _imported(node) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE + "."):
        return [node.module.split(".")[3]]
    if isinstance(node, ast.Import):
        return [a.name.split(".")[3] for a in node.names if a.name.startswith(PACKAGE + ".")]
    return []


def test_no_import_inside_a_function():
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
                assert not inner, f"{name}.{node.name} imports inside the function (line {inner[0].lineno})"


def test_no_import_cycle():
    # every import counts, a lazy one inside a function too: a cycle hidden that way is still a cycle
    graph = {name: {m for node in ast.walk(tree) for m in _imported(node)} for name, tree in _modules().items()}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph.get(name, ())):
            assert state.get(other) != 1, "import cycle: " + " -> ".join(path + [name, other])
            if other not in state:
                visit(other, path + [name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    assert graph["refine"] & {"flow"}  # the check really sees the imports
