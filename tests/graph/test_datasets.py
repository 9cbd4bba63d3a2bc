"""The graphs shipped in `apportion.datasets`: each loads, is what the catalog, the docstring and NOTICE.md say,
and is the graph of the original file it was made from (for the originals kept in tests/data/graphs)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import apportion
from apportion import datasets
from apportion.errors import InputError
from apportion.graph.io import read_graph

NAMES = [entry.name for entry in datasets.DATASETS]


@pytest.mark.parametrize("name", NAMES)
def test_each_dataset_loads_as_its_catalog_says(name):
    entry = datasets.info(name)
    graph = datasets.load(name)
    assert (graph.n, graph.m) == (entry.n, entry.m)
    assert graph.name == name
    adjacency = graph.to_scipy(weighted=False)
    assert (adjacency != adjacency.T).nnz == 0  # undirected
    assert adjacency.diagonal().sum() == 0      # no self-loops
    assert adjacency.nnz == 2 * graph.m         # no duplicate edges
    weights = {"none": (False, False), "2 vertex weights": (True, False),
               "vertex and edge weights": (True, True)}[entry.weights]
    assert (graph.has_vertex_weights, graph.has_edge_weights) == weights
    if entry.weights == "2 vertex weights":
        assert graph.ncon == 2


def test_facts_the_catalog_states_in_words():
    polblogs = datasets.load("polblogs")
    assert int((polblogs.degrees() == 0).sum()) == 266 and "266 isolated" in datasets.info("polblogs").kind


def test_names_are_the_catalog_smallest_first_and_match_the_archives():
    assert sorted(datasets.names()) == sorted(NAMES) and len(set(NAMES)) == len(NAMES)
    sizes = [datasets.info(name).m for name in datasets.names()]
    assert sizes == sorted(sizes)
    archives = {path.name for path in datasets.DATA_DIR.glob("*.npz")}
    assert archives == {datasets.info(name).file for name in NAMES}
    total = sum(path.stat().st_size for path in datasets.DATA_DIR.iterdir())
    assert total < 2 * 2**20  # "a few MB at most in the wheel": the data stay well inside it


def test_docstring_and_notice_describe_every_dataset():
    """The module docstring's table gives each dataset's n and m; NOTICE.md names each archive and its origin."""
    rows = {}
    for line in datasets.__doc__.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"[\d,]+", cells[1] or "x"):
            rows[cells[0]] = (int(cells[1].replace(",", "")), int(cells[2].replace(",", "")))
    assert rows == {entry.name: (entry.n, entry.m) for entry in datasets.DATASETS}
    notice = (datasets.DATA_DIR / "NOTICE.md").read_text()
    for entry in datasets.DATASETS:
        assert f"| {entry.file} | {entry.origin.split(', ')[1].split(' ')[0]} |" in notice
        assert entry.licence and entry.credit


@pytest.mark.parametrize("name, original", [("karate", "karate.graph"), ("jazz", "jazz.graph"),
                                            ("test_mgraph", "test.mgraph"), ("wiki-Vote", "wiki-Vote.txt")])
def test_dataset_is_the_graph_of_its_original_file(name, original, real_graph_file):
    path = real_graph_file(original)
    entry = datasets.info(name)
    assert entry.source_file == original
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.source_sha256
    _assert_same_graph(datasets.load(name), read_graph(path))


def test_every_dataset_matches_the_shared_original_when_that_folder_is_present():
    """A maintainer's check (the optional ../shared/graphs folder): every archive is its original's graph."""
    folder = datasets.shared_graphs_dir()
    if folder is None or not all((folder / e.source_file).is_file() for e in datasets.DATASETS):
        pytest.skip("the optional shared graphs folder is not here (tests/data/graphs covers four datasets)")
    for entry in datasets.DATASETS:
        path = folder / entry.source_file
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.source_sha256, entry.name
        _assert_same_graph(datasets.load(entry.name), read_graph(path))


def _assert_same_graph(ours, theirs):
    assert np.array_equal(ours.indptr, theirs.indptr) and np.array_equal(ours.indices, theirs.indices)
    for a, b in ((ours.vertex_weights, theirs.vertex_weights), (ours.edge_weights, theirs.edge_weights)):
        assert (a is None) == (b is None) and (a is None or np.array_equal(a, b))


def test_unknown_names_are_input_errors_listing_the_known_ones():
    with pytest.raises(InputError) as error:
        datasets.load("4ELT-missing")
    message = str(error.value)
    assert "4ELT-missing" in message and all(name in message for name in NAMES) and "\n" not in message
    assert datasets.load("KARATE").name == "karate"  # case is forgiven when the match is unique
    with pytest.raises(InputError, match="needs a dataset name"):
        datasets.from_argument("dataset:")


def test_command_line_arguments():
    assert datasets.from_argument("karate.graph") is None  # a file path: the caller reads it
    assert datasets.from_argument("dataset:jazz").m == 2742
    assert datasets.is_argument("dataset:x") and not datasets.is_argument("data/x.graph")


def test_read_graph_takes_a_dataset_name_as_the_command_line_does():
    graph = read_graph("dataset:karate")
    assert graph.name == "karate" and np.array_equal(graph.indices, datasets.load("karate").indices)
    with pytest.raises(InputError, match="unknown dataset 'nope'"):
        read_graph("dataset:nope")


def test_top_level_access_and_a_light_catalog():
    """`apportion.datasets` is reachable from the top level, and listing the catalog imports neither Numba nor
    the graph readers (so `import apportion` and `apportion datasets` stay fast)."""
    assert apportion.datasets is datasets
    code = "import sys, apportion.datasets as d; d.names(); print(sorted(m for m in ('numba', " \
           "'apportion.graph.io') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_shared_folder_lookup_honours_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("APPORTION_GRAPHS", str(tmp_path / "absent"))
    assert datasets.shared_graphs_dir() is None
    monkeypatch.setenv("APPORTION_GRAPHS", str(tmp_path))
    assert datasets.shared_graphs_dir() == tmp_path
    with pytest.raises(FileNotFoundError, match="APPORTION_GRAPHS"):
        datasets.shared_graph("nothing.graph")


def test_the_package_data_is_declared_for_the_wheel():
    text = (datasets.DATA_DIR.parents[3] / "pyproject.toml").read_text() if \
        (datasets.DATA_DIR.parents[3] / "pyproject.toml").is_file() else None
    if text is None:
        pytest.skip("an installed copy: no pyproject.toml beside the sources")
    assert '"datasets/data/*.npz"' in text and '"datasets/data/*.md"' in text
    assert os.path.isfile(datasets.DATA_DIR / "LICENSE-Apache-2.0.txt")
