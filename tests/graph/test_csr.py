"""Invariants of the CSR Graph and its constructors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion import Graph, InputError


def _is_simple_symmetric(g: Graph) -> bool:
    a = g.to_scipy()
    return (a != a.T).nnz == 0 and a.diagonal().sum() == 0


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(1, 9)), max_size=120))
@settings(max_examples=60, deadline=None)
def test_from_edges_is_simple_symmetric_and_merges(triples):
    src = np.array([t[0] for t in triples], dtype=np.int64)
    dst = np.array([t[1] for t in triples], dtype=np.int64)
    w = np.array([t[2] for t in triples], dtype=np.int64)
    g = Graph.from_edges(src, dst, w, n=31)
    assert g.n == 31
    assert _is_simple_symmetric(g)
    # independent recount with a dict: weights of {u, v} summed over both orientations
    expected: dict[tuple[int, int], int] = {}
    for u, v, wt in triples:
        if u != v:
            key = (min(u, v), max(u, v))
            expected[key] = expected.get(key, 0) + wt
    u, v, ew = g.edges()
    got = {(int(a), int(b)): int(c) for a, b, c in zip(u, v, ew)}
    assert got == expected
    assert g.m == len(expected)
    # neighbour lists are sorted
    for x in range(g.n):
        nb = g.neighbors(x)
        assert np.all(np.diff(nb) > 0)


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=150), st.booleans())
@settings(max_examples=40, deadline=None)
def test_edges_are_the_upper_triangle_in_csr_order_and_kept(pairs, weighted):
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    weights = (src * 7 + dst * 3 + 1) if weighted else None
    g = Graph.from_edges(src, dst, weights, n=41)
    u, v, w = g.edges()
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))  # the NumPy way, independently
    upper = g.indices > rows
    assert np.array_equal(u, rows[upper]) and np.array_equal(v, g.indices[upper])
    assert (w is None) == (not weighted)
    if weighted:
        assert np.array_equal(w, g.edge_weights[upper])
    assert u.dtype == g.indices.dtype and v.dtype == g.indices.dtype
    again = g.edges()
    assert again[0] is u and again[1] is v  # made once per graph
    with pytest.raises(ValueError):
        u[:1] = 0
    # rows in another order (a relabelled graph's are not sorted): the same edges, in that row order
    backwards = np.concatenate([g.indices[g.indptr[x]:g.indptr[x + 1]][::-1] for x in range(g.n)] + [g.indices[:0]])
    shuffled = Graph._trusted(g.indptr, backwards)
    bu, bv, _ = shuffled.edges()
    upper = backwards > rows
    assert np.array_equal(bu, rows[upper]) and np.array_equal(bv, backwards[upper])


def test_dtypes_and_immutability():
    g = Graph.from_edges([0, 1], [1, 2])
    assert g.indptr.dtype == np.int64 and g.indices.dtype == np.int32
    with pytest.raises(ValueError):
        g.indices[0] = 2


def test_from_edges_rejects_self_loops_when_asked():
    with pytest.raises(InputError, match="self-loop at vertex 1"):
        Graph.from_edges([0, 1], [1, 1], drop_self_loops=False)
    assert Graph.from_edges([0, 1], [1, 1]).m == 1


def test_unsymmetrized_input_must_be_symmetric():
    with pytest.raises(InputError, match=r"asymmetric adjacency: edge \(0, 2\)"):
        Graph.from_edges([0, 1, 0], [1, 0, 2], symmetrize=False)
    g = Graph.from_edges([0, 1], [1, 0], symmetrize=False)
    assert g.m == 1


def test_duplicates_rejected_when_not_merging():
    with pytest.raises(InputError, match="duplicate edge"):
        Graph.from_edges([0, 0], [1, 1], merge_duplicates=False)


def test_negative_weights_and_ids_rejected():
    with pytest.raises(InputError, match="edge weights must be positive"):
        Graph.from_edges([0], [1], [-3])
    with pytest.raises(InputError, match="non-negative"):
        Graph.from_edges([-1], [1])
    with pytest.raises(InputError, match="vertex weights must be non-negative"):
        Graph.from_edges([0], [1], vertex_weights=[1, -1])


def test_from_scipy_symmetric_keeps_values_and_general_symmetrizes():
    a = sp.csr_array(np.array([[0, 2, 0], [2, 0, 5], [0, 5, 0]]))
    g = Graph.from_scipy(a)
    assert g.m == 2 and g.total_edge_weight() == 7
    directed = sp.csr_array(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]]))
    g2 = Graph.from_scipy(directed)
    assert g2.m == 3 and not g2.has_edge_weights
    with pytest.raises(InputError, match="square"):
        Graph.from_scipy(sp.csr_array(np.ones((2, 3))))


def test_from_networkx_round_trip():
    nxg = nx.karate_club_graph()
    g = Graph.from_networkx(nxg)
    assert (g.n, g.m) == (34, 78)
    back = g.to_networkx()
    assert nx.utils.graphs_equal(nx.Graph(nx.to_scipy_sparse_array(back, weight=None)),
                                 nx.Graph(nx.to_scipy_sparse_array(nxg, weight=None)))


def test_from_csr_validates():
    with pytest.raises(InputError, match="out of range"):
        Graph.from_csr([0, 1, 2], [1, 5])
    with pytest.raises(InputError, match="asymmetric"):
        Graph.from_csr([0, 1, 1], [1])
    with pytest.raises(InputError, match="asymmetric edge weights"):
        Graph.from_csr([0, 1, 2], [1, 0], edge_weights=[3, 4])
    g = Graph.from_csr([0, 2, 3, 4], [2, 1, 0, 0])
    assert g.m == 2 and list(g.neighbors(0)) == [1, 2]


def test_multi_constraint_vertex_weights():
    vw = np.array([[1, 2], [3, 4], [5, 6]])
    g = Graph.from_edges([0, 1], [1, 2], vertex_weights=vw)
    assert g.ncon == 2
    assert list(g.total_vertex_weight()) == [9, 12]


def test_subgraph():
    g = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])
    sub, ids = g.subgraph([0, 1, 2])
    assert sub.n == 3 and sub.m == 2 and list(ids) == [0, 1, 2]
