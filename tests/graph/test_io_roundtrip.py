"""Round trips through every writer and reader, including weights, ncon > 1 and isolated vertices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.graph.io import read_graph, write_graph
from apportion.graph.io._common import GraphFileWarning

ALL = ["g.graph", "g.mtx", "g.txt", "g.npz"]


def _same_structure(a: Graph, b: Graph) -> bool:
    return (a.n == b.n and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices))


def _random_graph(rng, n, density, edge_weights=False, ncon=0):
    if n < 2:
        src = dst = np.empty(0, np.int64)
    else:
        count = int(density * n)
        top = n - 3 if n > 6 else n  # the last vertices stay isolated
        src = rng.integers(0, top, count)
        dst = rng.integers(0, top, count)
    w = rng.integers(1, 9, src.shape[0]) if edge_weights else None
    vw = None
    if ncon == 1:
        vw = rng.integers(0, 5, n)
    elif ncon > 1:
        vw = rng.integers(0, 5, (n, ncon))
    return Graph.from_edges(src, dst, w, n=n, vertex_weights=vw)


def _check_round_trip(graph, path, keeps_vertex_weights):
    write_graph(graph, path)
    back = read_graph(path)
    assert _same_structure(graph, back)
    if graph.m == 0 and str(path).endswith(".txt"):
        # an edge list without edges cannot say whether its edges would carry weights
        assert back.edge_weights is None or back.edge_weights.size == 0
    elif graph.edge_weights is None:
        assert back.edge_weights is None
    else:
        assert np.array_equal(graph.edge_weights, back.edge_weights)
    if keeps_vertex_weights:
        if graph.vertex_weights is None:
            assert back.vertex_weights is None
        else:
            assert np.array_equal(graph.vertex_weights, back.vertex_weights)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("edge_weights", [False, True])
@pytest.mark.parametrize("ncon", [0, 1, 3])
def test_round_trip_every_format(name, edge_weights, ncon, tmp_path):
    rng = np.random.default_rng(ncon * 2 + edge_weights)
    graph = _random_graph(rng, 60, 2.0, edge_weights, ncon)  # sparse: some isolated vertices
    assert (graph.degrees() == 0).any()
    keeps = name.endswith((".graph", ".npz"))
    if ncon and not keeps:
        with pytest.warns(GraphFileWarning, match="vertex weights"):
            write_graph(graph, tmp_path / name)
        back = read_graph(tmp_path / name)
        assert _same_structure(graph, back)
    else:
        _check_round_trip(graph, tmp_path / name, keeps)


@pytest.mark.parametrize("name", ALL)
def test_round_trip_empty_and_edgeless(name, tmp_path):
    for graph in (Graph.from_edges([], [], n=0), Graph.from_edges([], [], n=5)):
        _check_round_trip(graph, tmp_path / name, True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 40), density=st.floats(0.0, 4.0), edge_weights=st.booleans(),
       ncon=st.integers(0, 3), seed=st.integers(0, 2**31), fmt=st.sampled_from(ALL))
def test_hypothesis_round_trip(n, density, edge_weights, ncon, seed, fmt, tmp_path):
    graph = _random_graph(np.random.default_rng(seed), n, density, edge_weights, 0 if fmt in ("g.mtx", "g.txt")
                          else ncon)
    _check_round_trip(graph, tmp_path / fmt, True)


def test_metis_writer_header_codes(tmp_path):
    rng = np.random.default_rng(1)
    cases = {(False, 0): "", (True, 0): " 1", (False, 1): " 10", (True, 1): " 11", (True, 2): " 11 2"}
    for (ew, ncon), suffix in cases.items():
        graph = _random_graph(rng, 20, 3.0, ew, ncon)
        write_graph(graph, tmp_path / "h.graph")
        header = (tmp_path / "h.graph").read_text().splitlines()[0]
        assert header == f"{graph.n} {graph.m}{suffix}"


def test_write_is_atomic_on_failure(tmp_path, monkeypatch):
    """A writer that fails half-way leaves the previous file untouched and no temporary file behind."""
    from apportion.graph.io import _parse_kernels

    target = tmp_path / "keep.graph"
    target.write_text("old content\n")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(_parse_kernels, "join_int_lines", broken)
    with pytest.raises(RuntimeError):
        write_graph(Graph.from_edges([0], [1]), target)
    assert target.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.graph"]


@pytest.mark.parametrize("edge_weights", [False, True])
@pytest.mark.parametrize("ncon", [0, 1, 3])
def test_metis_writer_slices_give_the_same_file(edge_weights, ncon, tmp_path, monkeypatch):
    # the vertex lines are formatted a slice of arcs at a time: slices of 3 arcs (a hub row longer than a slice,
    # isolated vertices' empty lines at the end) must give the bytes of one slice holding everything
    import apportion.graph.io.metis as metis

    rng = np.random.default_rng(7)
    graph = _random_graph(rng, 30, 2.5, edge_weights, ncon)
    hub = Graph.from_edges(np.zeros(12, np.int64), np.arange(1, 13), None, n=16)
    for g in (graph, hub):
        whole, sliced = tmp_path / "whole.graph", tmp_path / "sliced.graph"
        monkeypatch.setattr(metis, "WRITE_SLICE_ARCS", 1 << 30)
        write_graph(g, whole)
        monkeypatch.setattr(metis, "WRITE_SLICE_ARCS", 3)
        assert len(metis.row_slices(g.indptr, 3)) > 3
        write_graph(g, sliced)
        assert sliced.read_bytes() == whole.read_bytes()
        assert _same_structure(read_graph(sliced), g)


def test_write_takes_what_the_library_takes_and_names_anything_else(tmp_path):
    import scipy.sparse as sp

    from apportion.errors import InputError

    path = tmp_path / "p.graph"
    write_graph(sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])), path)  # a SciPy path graph
    assert read_graph(path).m == 2
    with pytest.raises(InputError, match="got NoneType"):
        write_graph(None, tmp_path / "none.graph")
    assert not (tmp_path / "none.graph").exists()


@pytest.mark.parametrize("name", ["line1\r\n3 3 3\nx", "bad\udcffname", "tab\there", "x" * 5000])
def test_a_graph_name_the_mtx_comment_cannot_hold_still_reads_back(name, tmp_path):
    """The name goes into a `%` comment line: a line break in it made the file unreadable, a file name's
    undecodable byte made the write fail."""
    graph = Graph.from_edges([0, 1], [1, 2], n=3)
    graph = Graph._trusted(graph.indptr, graph.indices, None, None, name)
    path = tmp_path / "named.mtx"
    write_graph(graph, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("% written by apportion") and len(lines[1]) < 300
    again = read_graph(path)
    assert (again.n, again.m) == (3, 2) and np.array_equal(again.indices, graph.indices)


@pytest.mark.parametrize("path", [None, b"g.graph", 3, ["g.graph"]])
def test_a_path_that_is_not_a_path_is_one_line_naming_its_type(path, tmp_path, monkeypatch):
    from apportion.errors import InputError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "None").write_text("2 1\n2\n1\n")  # str(None) opened this file before
    with pytest.raises(InputError, match=f"read_graph: the path must be a str or a pathlib.Path, got "
                                         f"{type(path).__name__}"):
        read_graph(path, format="metis")
    with pytest.raises(InputError, match="write_graph: the path must be"):
        write_graph(Graph.from_edges([0], [1], n=2), path, format="metis")
    with open(tmp_path / "None", "rb") as handle:  # an open file is not a path either
        with pytest.raises(InputError, match="got BufferedReader"):
            read_graph(handle)
