"""The CSR-building kernels shared by the readers and the generators, against NumPy/SciPy references."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.graph.io import _parse_kernels as K


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 40), max_size=300), st.integers(0, 3), st.integers(0, 3))
def test_sort_row_sorts_a_slice_in_place_and_weights_follow(values, before, after):
    keys = np.array([99] * before + values + [-99] * after, dtype=np.int64)
    weights = np.arange(keys.shape[0], dtype=np.int64) * 7 + 1
    original = list(zip(keys[before:before + len(values)].tolist(), weights[before:before + len(values)].tolist()))
    k, w = keys.copy(), weights.copy()
    K.sort_row(k, w, True, before, before + len(values))
    assert np.array_equal(k[before:before + len(values)], np.sort(keys[before:before + len(values)]))
    assert sorted(zip(k[before:before + len(values)].tolist(), w[before:before + len(values)].tolist())) == \
        sorted(original)
    assert np.array_equal(k[:before], keys[:before]) and np.array_equal(k[before + len(values):], keys[before + len(values):])


def _reference(src, dst, weights, n):
    """Simple graph of the pairs by SciPy: max weight per unordered pair, loops dropped."""
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    keep = lo != hi
    lo, hi, w = lo[keep], hi[keep], weights[keep]
    best = {}
    for a, b, x in zip(lo.tolist(), hi.tolist(), w.tolist()):
        best[(a, b)] = max(best.get((a, b), 0), x)
    if not best:
        return sp.csr_matrix((n, n), dtype=np.int64)
    pairs = np.array(list(best.keys()), dtype=np.int64)
    values = np.array(list(best.values()), dtype=np.int64)
    m = sp.coo_matrix((values, (pairs[:, 0], pairs[:, 1])), shape=(n, n)).tocsr()
    m = (m + m.T).tocsr()
    m.sort_indices()
    return m


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.data())
def test_pair_builders_match_scipy(n, data):
    count = data.draw(st.integers(0, 200))
    src = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count)), dtype=np.int64)
    dst = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count)), dtype=np.int64)
    weights = np.array(data.draw(st.lists(st.integers(1, 9), min_size=count, max_size=count)), dtype=np.int64)
    reference = _reference(src, dst, weights, n)
    indptr, adjacency, ew = K.pairs_to_csr(src, dst, weights, n)
    assert np.array_equal(indptr, reference.indptr)
    assert np.array_equal(adjacency, reference.indices)
    assert np.array_equal(ew, reference.data)
    indptr, adjacency = K.simple_graph_csr(src, dst, n, np.int32)
    assert adjacency.dtype == np.int32
    assert np.array_equal(indptr, reference.indptr)
    assert np.array_equal(adjacency, reference.indices)
    # the generators' form: the keys written over src (consumed), the same graph
    frozen = src.copy()
    frozen.setflags(write=False)
    for pairs in (src.copy(), frozen):  # a read-only src is never written
        indptr, adjacency = K.simple_graph_csr(pairs, dst, n, np.int32, overwrite_src=True)
        assert np.array_equal(indptr, reference.indptr)
        assert np.array_equal(adjacency, reference.indices)
    assert np.array_equal(frozen, src)


def test_row_order_fault_and_transpose():
    indptr = np.array([0, 2, 4, 6], dtype=np.int64)
    assert tuple(K.row_order_fault(indptr, np.array([1, 2, 0, 2, 0, 1]))) == (0, -1, -1)
    assert tuple(K.row_order_fault(indptr, np.array([1, 2, 2, 0, 1, 1]))) == (2, 1, -1)
    assert tuple(K.row_order_fault(indptr, np.array([1, 2, 0, 0, 0, 1]))) == (1, 1, 0)
    adjacency = np.array([2, 1, 2, 0, 1, 0], dtype=np.int64)
    weights = np.array([5, 6, 7, 6, 7, 5], dtype=np.int64)
    t_indptr, t_adj, t_w = K.transpose_csr(indptr, adjacency, weights)
    matrix = sp.csr_matrix((weights, adjacency, indptr), shape=(3, 3)).T.tocsr()
    matrix.sort_indices()
    assert np.array_equal(t_indptr, matrix.indptr) and np.array_equal(t_adj, matrix.indices)
    assert np.array_equal(t_w, matrix.data)
    assert K.is_symmetric(t_indptr, t_adj, t_w)
    assert not K.is_symmetric(t_indptr, t_adj, t_w + np.arange(6))


def test_metis_rows_out_of_order_are_sorted_and_duplicates_found(tmp_path):
    import pytest

    from apportion.errors import InputError
    from apportion.graph.io import read_graph

    path = tmp_path / "g.graph"
    path.write_text("3 3 1\n3 4 2 5\n1 5 3 6\n2 6 1 4\n")
    graph = read_graph(path)
    assert graph.indices.tolist() == [1, 2, 0, 2, 0, 1]
    assert graph.edge_weights.tolist() == [5, 4, 5, 6, 4, 6]
    path.write_text("3 4\n3 2 3 2\n1 3\n2 1\n")  # unsorted row: the smallest repeat is named
    with pytest.raises(InputError, match="vertex 1 lists neighbour 2 more than once"):
        read_graph(path)


def test_tokenizer_pieces_on_threads_give_the_same_graph_and_error_lines(tmp_path, monkeypatch):
    import pytest

    import apportion
    from apportion.errors import InputError
    from apportion.graph.io import _text, read_graph, write_graph

    graph = apportion.generate("delaunay", 300, seed=2)
    paths = [tmp_path / f"g{suffix}" for suffix in (".graph", ".mtx", ".txt")]
    for path in paths:
        write_graph(graph, path)
    serial = [read_graph(path) for path in paths]
    monkeypatch.setattr(_text, "PARALLEL_BYTES", 16)  # every chunk is cut into pieces
    monkeypatch.setattr(_text.os, "cpu_count", lambda: 5)
    for path, expected in zip(paths, serial):
        got = read_graph(path)
        assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
    lines = paths[1].read_text().splitlines()
    lines[200] = lines[200] + "x"  # a bad token deep in the file: its physical line is reported
    lines.insert(100, "% a comment between entries")
    paths[1].write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"g\.mtx:202: expected an integer"):
        read_graph(paths[1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 25), st.data())
def test_unweighted_symmetry_check_matches_the_transpose(n, data):
    # random sorted duplicate-free rows without self-loops, symmetric or not
    rows = [sorted(data.draw(st.sets(st.integers(0, n - 1).filter(lambda u, v=v: u != v), max_size=6)))
            for v in range(n)]
    if data.draw(st.booleans()):  # make it symmetric
        pairs = {(min(v, u), max(v, u)) for v in range(n) for u in rows[v]}
        rows = [sorted({b for a, b in pairs if a == v} | {a for a, b in pairs if b == v}) for v in range(n)]
    indptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    adjacency = np.array([u for r in rows for u in r], dtype=np.int64)
    matrix = sp.csr_matrix((np.ones(adjacency.shape[0]), adjacency, indptr), shape=(n, n))
    expected = (matrix != matrix.T).nnz == 0
    assert K.unweighted_is_symmetric(indptr, adjacency) == expected
    assert K.is_symmetric(indptr, adjacency, np.empty(0, np.int64)) == expected
