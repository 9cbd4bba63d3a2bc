"""Every file in the shared graphs folder loads and matches the counts its README table lists.

The counts come from parsing README.md at test time (a row may name two files: `jazz.graph, karate.graph` with
`198 / 34`). For directed SNAP files the README gives the number of directed lines ("103,689 directed"); for
plain edge lists the number of lines ("251,252 lines"): the test checks those against the files' data lines
and the undirected m against an independent count of distinct unordered pairs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from apportion.datasets import shared_graphs_dir
from apportion.graph.io import EXTENSIONS, read_graph


def _number(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


def readme_counts(folder: Path) -> dict[str, tuple[int, int, str]]:
    """file name -> (vertices, edges, qualifier of the edge count such as 'directed' or 'lines' or '')."""
    rows = {}
    for line in (folder / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.search(r"\d", cells[1]) or cells[0] in ("file",):
            continue
        names = [c.strip() for c in cells[0].split(",")]
        vertices = [c.strip() for c in cells[1].split("/")]
        edges = [c.strip() for c in cells[2].split("/")]
        for name, v, e in zip(names, vertices, edges):
            qualifier = re.sub(r"[\d,\s]", "", e)
            rows[name] = (_number(v), _number(e.split()[0]), qualifier)
    return rows


def test_readme_table_covers_every_graph_file(graphs_dir):
    rows = readme_counts(graphs_dir)
    files = {p.name for p in graphs_dir.iterdir()
             if p.suffix.lower() in EXTENSIONS and p.name != "README.md" and "README" not in p.name}
    assert files and files == set(rows)


def _data_lines(path: Path) -> np.ndarray:
    pairs = [line.split()[:2] for line in path.read_text().splitlines()
             if line.strip() and not line.lstrip().startswith(("#", "%"))]
    return np.array(pairs, dtype=np.int64)


_FOLDER = shared_graphs_dir()


@pytest.mark.parametrize("name", sorted(readme_counts(_FOLDER)) if _FOLDER is not None else [])
def test_shared_graph_matches_readme(name, graphs_dir):
    vertices, edges, qualifier = readme_counts(graphs_dir)[name]
    graph = read_graph(graphs_dir / name)
    assert graph.n == vertices
    if qualifier in ("directed", "lines"):
        pairs = _data_lines(graphs_dir / name)
        assert pairs.shape[0] == edges
        undirected = {(min(a, b), max(a, b)) for a, b in pairs.tolist() if a != b}
        assert graph.m == len(undirected)
    else:
        assert graph.m == edges
    # independent check of the CSR invariants
    adjacency = graph.to_scipy(weighted=False)
    assert (adjacency != adjacency.T).nnz == 0
    assert adjacency.diagonal().sum() == 0
