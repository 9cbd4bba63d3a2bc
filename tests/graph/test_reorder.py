"""Breadth-first renumbering (graph/reorder.py): the order against an independent BFS, the renumbered graph
against the original edge by edge, and the locality measure on numberings it must tell apart."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import breadth_first_order

from apportion import generate
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.reorder import bfs_order, locality_spread, renumber, renumber_breadth_first


def random_graph(n: int, density: float, seed: int, weighted: bool, ncon: int = 0) -> Graph:
    rng = np.random.default_rng(seed)
    count = int(density * n)
    u, v = rng.integers(0, n, count), rng.integers(0, n, count)
    keep = u != v
    weights = rng.integers(1, 50, int(keep.sum())) if weighted else None
    vertex_weights = rng.integers(0, 9, (n, ncon)) if ncon else None
    return Graph.from_edges(u[keep], v[keep], weights, n=n, vertex_weights=vertex_weights, merge_duplicates=True)


def reference_order(graph: Graph) -> np.ndarray:
    """BFS from the least unvisited id of each component, neighbours in row order (SciPy per component)."""
    matrix = graph.to_scipy(weighted=False).tocsr()
    seen = np.zeros(graph.n, dtype=bool)
    parts = []
    for root in range(graph.n):
        if not seen[root]:
            part = breadth_first_order(matrix, root, directed=False, return_predecessors=False)
            seen[part] = True
            parts.append(part)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), density=st.floats(0.0, 4.0), seed=st.integers(0, 2**31))
def test_bfs_order_is_scipys_breadth_first_order_per_component(n, density, seed):
    graph = random_graph(n, density, seed, weighted=False)
    order = bfs_order(graph)
    assert order.dtype == graph.indices.dtype
    assert np.array_equal(order, reference_order(graph))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), density=st.floats(0.0, 5.0), seed=st.integers(0, 2**31), weighted=st.booleans(),
       ncon=st.integers(0, 2))
def test_renumbered_graph_is_the_same_graph_under_the_permutation(n, density, seed, weighted, ncon):
    graph = random_graph(n, density, seed, weighted, ncon)
    order = np.random.default_rng(seed).permutation(n)  # any order, not only breadth-first
    renumbered, new_of_old = renumber(graph, order)
    assert np.array_equal(new_of_old[order], np.arange(n))
    # edge by edge, weights included: new (new_of_old[u], new_of_old[v]) for every old (u, v)
    before = graph.to_scipy(weighted=weighted).toarray()
    after = renumbered.to_scipy(weighted=weighted).toarray()
    assert np.array_equal(after[np.ix_(new_of_old, new_of_old)], before)
    if ncon:
        assert np.array_equal(renumbered.vertex_weights, graph.vertex_weights[order])
    else:
        assert renumbered.vertex_weights is None
    # the Graph invariants, checked by the validating constructor (sorted rows, symmetric weights)
    checked = Graph.from_csr(renumbered.indptr, renumbered.indices, edge_weights=renumbered.edge_weights)
    assert np.array_equal(checked.indices, renumbered.indices)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 120), density=st.floats(0.0, 4.0), seed=st.integers(0, 10**6), weighted=st.booleans(),
       ncon=st.integers(0, 2))
def test_breadth_first_renumbering_is_renumber_by_the_bfs_order(n, density, seed, weighted, ncon):
    # renumber_breadth_first makes the order and the rows in one walk; renumber(graph, bfs_order(graph)) in two
    graph = random_graph(n, density, seed=seed, weighted=weighted, ncon=ncon)
    made, new_of_old = renumber_breadth_first(graph)
    checked, checked_new_of_old = renumber(graph, bfs_order(graph))
    assert np.array_equal(new_of_old, checked_new_of_old) and new_of_old.dtype == checked_new_of_old.dtype
    assert np.array_equal(made.indptr, checked.indptr) and np.array_equal(made.indices, checked.indices)
    assert made.indices.dtype == graph.indices.dtype
    if weighted and graph.edge_weights is not None:
        assert np.array_equal(made.edge_weights, checked.edge_weights)
    else:
        assert made.edge_weights is None
    if ncon:
        assert np.array_equal(made.vertex_weights, checked.vertex_weights)
    else:
        assert made.vertex_weights is None


def test_locality_spread_tells_scattered_ids_from_ordered_ones():
    grid = generate("grid2d", 64 * 64, seed=0)  # row-major ids: neighbours 1 or 64 apart
    mesh = generate("delaunay", 1 << 12, seed=0)  # ids of random points
    assert locality_spread(grid) < 0.02
    assert locality_spread(mesh) > 0.2
    renumbered, _ = renumber(mesh, bfs_order(mesh))
    assert locality_spread(renumbered) < 0.05
    assert locality_spread(generate("delaunay", 1 << 12, seed=0)) == locality_spread(mesh)  # seeded sample
    assert locality_spread(Graph.from_edges([], [], n=5)) == 0.0


@pytest.mark.parametrize("order", [[0, 1, 2], [0, 1, 2, 2], [0, 1, 2, 4], [-1, 0, 1, 2], [0.0, 1.0, 2.0, 3.0]])
def test_renumber_refuses_an_order_that_is_not_a_permutation(order):
    graph = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4)
    with pytest.raises(InputError, match="each of the 4 vertex ids once"):
        renumber(graph, np.array(order))
