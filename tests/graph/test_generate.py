"""Generators: sizes, simplicity, seeding, and each kind's defining property against an independent recount."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import (breadth_first_order, connected_components, minimum_spanning_tree,
                                  shortest_path)
from scipy.spatial import Delaunay

from apportion import generate
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import KINDS, RGG_RADIUS_FACTOR, options_of, rmat_pairs

SMALL = {"delaunay": 300, "rgg": 400, "grid2d": 144, "grid3d": 125, "rmat": 256, "er": 300, "ba": 300, "road": 300}
WEIGHTED_KINDS = {"road"}


def edge_set(graph: Graph) -> set[tuple[int, int]]:
    u, v, _ = graph.edges()
    return set(zip(u.tolist(), v.tolist()))


def assert_simple(graph: Graph, weighted: bool = False) -> None:
    """Re-validate through the checking constructor: symmetric (weights too), sorted, no loops, no duplicates."""
    checked = Graph.from_csr(graph.indptr, graph.indices, edge_weights=graph.edge_weights, sort=True)
    assert np.array_equal(checked.indices, graph.indices)  # neighbour lists were already sorted
    assert (graph.edge_weights is not None) == weighted and graph.vertex_weights is None


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_simple_sized_and_named(kind):
    graph = generate(kind, SMALL[kind], seed=3)
    assert graph.n == SMALL[kind]
    assert graph.m > 0
    assert graph.name.startswith(kind)
    assert_simple(graph, weighted=kind in WEIGHTED_KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_graph(kind):
    first = generate(kind, SMALL[kind], seed=11)
    second = generate(kind, SMALL[kind], seed=11)
    assert np.array_equal(first.indptr, second.indptr)
    assert np.array_equal(first.indices, second.indices)
    assert (first.edge_weights is None and second.edge_weights is None) or \
        np.array_equal(first.edge_weights, second.edge_weights)


@pytest.mark.parametrize("kind", ["delaunay", "rgg", "rmat", "er", "ba", "road"])
def test_different_seeds_differ(kind):
    assert edge_set(generate(kind, SMALL[kind], seed=1)) != edge_set(generate(kind, SMALL[kind], seed=2))


# ------------------------------------------------------------------------------------------------ road
def road_parts(n: int, seed: int, extra: float = 0.25):
    """The road graph, the delaunay graph of the same points, the points, and the integer side lengths."""
    graph = generate("road", n, seed=seed, extra=extra)
    triangulation = generate("delaunay", n, seed=seed)
    points = np.random.default_rng(seed).random((n, 2))
    return graph, triangulation, points


@given(n=st.integers(4, 400), seed=st.integers(0, 2**16), extra=st.sampled_from([0.0, 0.25, 0.6, 1.0]))
@settings(max_examples=30, deadline=None)
def test_road_is_a_minimum_spanning_tree_plus_a_fraction_of_the_other_delaunay_sides(n, seed, extra):
    graph, triangulation, points = road_parts(n, seed, extra)
    road_edges, delaunay_edges = edge_set(graph), edge_set(triangulation)
    assert road_edges <= delaunay_edges  # only sides of the triangulation
    # every weight is the side's integer Euclidean length, at least 1
    u, v, w = graph.edges()
    lengths = np.maximum(1, np.rint(np.hypot(*(points[u] - points[v]).T) * 1000 * math.sqrt(n)))
    assert w.dtype.kind == "i" and np.array_equal(w, lengths.astype(np.int64)) and w.min() >= 1
    # connected, and its minimum spanning tree weighs what the whole triangulation's does: the tree is in it
    matrix = graph.to_scipy()
    assert connected_components(matrix, directed=False)[0] == 1
    du, dv, _ = triangulation.edges()
    tri_weights = np.maximum(1, np.rint(np.hypot(*(points[du] - points[dv]).T) * 1000 * math.sqrt(n)))
    full = Graph.from_edges(du, dv, tri_weights.astype(np.int64), n=n)
    assert minimum_spanning_tree(matrix).sum() == minimum_spanning_tree(full.to_scipy()).sum()
    # (n − 1) tree sides plus ⌊extra · the rest⌋
    assert graph.m == (n - 1) + int(extra * (triangulation.m - (n - 1)))


def test_road_with_no_extra_is_the_spanning_tree_the_quarter_is_built_on():
    tree, triangulation, points = road_parts(3000, 7, extra=0.0)
    assert tree.m == tree.n - 1
    assert connected_components(tree.to_scipy(), directed=False)[0] == 1  # n − 1 edges, connected: a spanning tree
    quarter = generate("road", 3000, seed=7)
    assert edge_set(tree) <= edge_set(quarter)  # the quarter is added to the same tree
    assert quarter.m == 2999 + (triangulation.m - 2999) // 4


def test_road_is_road_like_sparse_and_deep():
    graph = generate("road", 1 << 14, seed=0)
    assert 1.45 < graph.m / graph.n < 1.55  # average degree about 3
    levels = breadth_first_order(graph.to_scipy(), 0, directed=False)[0]
    assert levels.shape[0] == graph.n
    diameter_lower_bound = int(shortest_path(graph.to_scipy(), unweighted=True, indices=[0]).max())
    delaunay_depth = int(shortest_path(generate("delaunay", 1 << 14, seed=0).to_scipy(), unweighted=True,
                                       indices=[0]).max())
    assert diameter_lower_bound > delaunay_depth  # the tree makes it deeper than the triangulation


def test_road_spatial_order_is_a_relabelling():
    plain = generate("road", 500, seed=4)
    spatial = generate("road", 500, seed=4, order="spatial")
    assert plain.m == spatial.m and plain.total_edge_weight() == spatial.total_edge_weight()
    assert sorted(plain.degrees().tolist()) == sorted(spatial.degrees().tolist())


# ------------------------------------------------------------------------------------------------ delaunay
def triangle_edges(simplices) -> set[tuple[int, int]]:
    edges = set()
    for a, b, c in np.asarray(simplices).tolist():
        for x, y in ((a, b), (b, c), (c, a)):
            edges.add((min(x, y), max(x, y)))
    return edges


@pytest.mark.parametrize("method", ["sweep", "qhull"])
@pytest.mark.parametrize("n,seed", [(4, 0), (5, 3), (50, 1), (700, 5), (20000, 2)])
def test_delaunay_equals_scipy_triangulation_of_the_same_points(n, seed, method):
    points = np.random.default_rng(seed).random((n, 2))
    graph = generate("delaunay", n, seed=seed, method=method)
    assert edge_set(graph) == triangle_edges(Delaunay(points).simplices)
    assert graph.m <= 3 * n - 6


def test_sweep_hull_kernel_refuses_degenerate_points_and_validator_rejects_a_non_delaunay_edge():
    from apportion.graph._generate_kernels import delaunay_is_valid, sweep_hull_delaunay

    line = np.linspace(0.0, 1.0, 10)
    assert not sweep_hull_delaunay(line, 2 * line)[2]  # all collinear
    xs = np.array([0.1, 0.9, 0.5, 0.5, 0.5])
    ys = np.array([0.1, 0.2, 0.9, 0.4, 0.4])
    assert not sweep_hull_delaunay(xs, ys)[2]  # a repeated point
    # a convex quadrilateral split along its non-Delaunay diagonal
    xs = np.array([0.0, 1.0, 1.0, 0.0]) + np.array([0.0, 0.0, 0.1, 0.0])
    ys = np.array([0.0, 0.0, 1.0, 1.0])
    triangles, twin, ok = sweep_hull_delaunay(xs, ys)
    assert ok and delaunay_is_valid(xs, ys, triangles, twin)
    good_diagonal = triangle_edges(triangles) - {(0, 1), (1, 2), (2, 3), (0, 3)}
    bad = np.array([[0, 1, 3], [1, 2, 3]]) if good_diagonal == {(0, 2)} else np.array([[0, 1, 2], [0, 2, 3]])
    bad_twin = np.full(6, -1)
    # shared diagonal: half-edge 1->3 (index 1) of the first triangle and 3->1 (index 5) of the second,
    # or 0->2 / 2->0 in the other split
    bad_twin[[1, 5] if good_diagonal == {(0, 2)} else [2, 3]] = [5, 1] if good_diagonal == {(0, 2)} else [3, 2]
    assert not delaunay_is_valid(xs, ys, bad, bad_twin)


def test_delaunay_tiny_and_spatial_order():
    assert generate("delaunay", 1).m == 0
    assert generate("delaunay", 2).m == 1
    assert generate("delaunay", 3).m == 3
    plain = generate("delaunay", 400, seed=4)
    spatial = generate("delaunay", 400, seed=4, order="spatial")
    assert nx.is_isomorphic(plain.to_networkx(), spatial.to_networkx())
    assert nx.check_planarity(plain.to_networkx())[0]


# ------------------------------------------------------------------------------------------------ rgg
@pytest.mark.parametrize("method", ["grid", "kdtree"])
@pytest.mark.parametrize("n,seed,radius", [(2, 0, None), (300, 2, None), (1000, 9, None), (400, 1, 0.3),
                                           (200, 4, 1e-4), (60, 5, 1.5)])
def test_rgg_equals_brute_force_distance_recount(n, seed, radius, method):
    points = np.random.default_rng(seed).random((n, 2))
    r = RGG_RADIUS_FACTOR * math.sqrt(math.log(n) / n) if radius is None else radius
    distance = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    iu, ju = np.nonzero(np.triu(distance < r, k=1))
    graph = generate("rgg", n, seed=seed, radius=radius, method=method)
    assert edge_set(graph) == set(zip(iu.tolist(), ju.tolist()))
    assert_simple(graph)


def test_rgg_methods_agree_in_both_orders():
    for order in ("random", "spatial"):
        grid = generate("rgg", 5000, seed=3, order=order)
        kdtree = generate("rgg", 5000, seed=3, order=order, method="kdtree")
        assert np.array_equal(grid.indptr, kdtree.indptr) and np.array_equal(grid.indices, kdtree.indices)


def test_rgg_average_degree_near_its_expectation():
    n = 1 << 14
    r = RGG_RADIUS_FACTOR * math.sqrt(math.log(n) / n)
    # mean area of a radius-r disc around a uniform point, clipped to the unit square
    expected = (n - 1) * (math.pi * r * r - 8.0 * r ** 3 / 3.0 + r ** 4 / 2.0)
    observed = 2 * generate("rgg", n, seed=1).m / n
    assert abs(observed - expected) / expected < 0.03


def test_rgg_radius_option_and_order():
    assert generate("rgg", 100, radius=0).m == 0
    assert generate("rgg", 50, radius=2.0).m == 50 * 49 // 2
    plain = generate("rgg", 300, seed=2)
    spatial = generate("rgg", 300, seed=2, order="spatial")
    assert sorted(plain.degrees().tolist()) == sorted(spatial.degrees().tolist())
    assert plain.m == spatial.m


# ------------------------------------------------------------------------------------------------ grids
@given(rows=st.integers(1, 12), cols=st.integers(1, 12))
@settings(max_examples=25, deadline=None)
def test_grid2d_equals_networkx_lattice(rows, cols):
    graph = generate("grid2d", None, rows=rows, cols=cols)
    reference = nx.grid_2d_graph(rows, cols)
    expected = {tuple(sorted((a[0] * cols + a[1], b[0] * cols + b[1]))) for a, b in reference.edges()}
    assert graph.n == rows * cols
    assert edge_set(graph) == expected


def test_grid2d_degrees():
    graph = generate("grid2d", 100)
    degree = graph.degrees().reshape(10, 10)
    assert degree[1:-1, 1:-1].min() == degree[1:-1, 1:-1].max() == 4
    assert {degree[0, 0], degree[0, -1], degree[-1, 0], degree[-1, -1]} == {2}
    assert graph.m == 2 * 10 * 9
    assert generate("grid2d", 12, rows=3).n == 12


@given(dims=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)))
@settings(max_examples=20, deadline=None)
def test_grid3d_equals_networkx_lattice(dims):
    x, y, z = dims
    graph = generate("grid3d", None, dims=dims)
    reference = nx.grid_graph(dim=[z, y, x])  # nodes are (i, j, l) with i < x
    label = lambda node: (node[0] * y + node[1]) * z + node[2]  # noqa: E731
    expected = {tuple(sorted((label(a), label(b)))) for a, b in reference.edges()}
    assert edge_set(graph) == expected


def test_grid3d_cube_degrees():
    graph = generate("grid3d", 64)
    assert graph.n == 64 and graph.m == 3 * 4 * 4 * 3
    assert graph.degrees().max() == 6 and graph.degrees().min() == 3


# ------------------------------------------------------------------------------------------------ rmat
def test_rmat_raw_pairs_and_skew():
    scale = 10
    src, dst = rmat_pairs(scale, seed=4, permute=False)
    assert src.shape[0] == 16 * (1 << scale)  # edge factor 16 before loops and repeats are removed
    assert src.max() < 1 << scale and dst.max() < 1 << scale
    # top bit of the row id is 0 with probability a + b = 0.76 (binomial, 16384 draws: sd ≈ 0.0033)
    assert abs(np.mean(src >> (scale - 1) == 0) - 0.76) < 0.02
    assert abs(np.mean(dst >> (scale - 1) == 0) - 0.76) < 0.02
    graph = generate("rmat", 1 << scale, seed=4, permute=False)
    loops = int(np.count_nonzero(src == dst))
    assert graph.m <= src.shape[0] - loops
    assert len({(min(a, b), max(a, b)) for a, b in zip(src.tolist(), dst.tolist()) if a != b}) == graph.m
    degree = graph.degrees()
    assert degree.max() > 10 * degree.mean()  # heavy-tailed
    assert degree[0] == degree.max()  # vertex 0 collects quadrant a at every level


def test_rmat_scale_option_and_permutation():
    by_scale = generate("rmat", None, scale=8, seed=1)
    by_n = generate("rmat", 256, seed=1)
    assert np.array_equal(by_scale.indices, by_n.indices)
    raw = generate("rmat", 256, seed=1, permute=False)
    assert sorted(raw.degrees().tolist()) == sorted(by_n.degrees().tolist())
    assert raw.m == by_n.m


# ------------------------------------------------------------------------------------------------ er
@pytest.mark.parametrize("n,avg", [(400, 6.0), (5000, 4.0)])  # the second goes through pair sampling
def test_er_edge_count_matches_binomial_expectation(n, avg):
    p = avg / (n - 1)
    pairs = n * (n - 1) / 2
    counts = [generate("er", n, seed=s, avg_degree=avg).m for s in range(4)]
    mean, sd = pairs * p, math.sqrt(pairs * p * (1 - p) / len(counts))
    assert abs(np.mean(counts) - mean) < 5 * sd


def test_er_extremes_and_p_option():
    assert generate("er", 30, p=0.0).m == 0
    assert generate("er", 30, p=1.0).m == 30 * 29 // 2
    assert generate("er", 1).m == 0


# ------------------------------------------------------------------------------------------------ ba
@pytest.mark.parametrize("m_attach", [1, 3, 5])
def test_ba_degrees_and_edge_count(m_attach):
    n = 500
    graph = generate("ba", n, seed=2, m_attach=m_attach)
    assert graph.degrees().min() >= m_attach
    assert graph.m == (m_attach + 1) * m_attach // 2 + (n - m_attach - 1) * m_attach
    assert nx.is_connected(graph.to_networkx())
    assert graph.degrees().max() > 4 * graph.degrees().mean()  # preferential attachment makes hubs


# ------------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call,fragment", [
    (lambda: generate("tree", 10), "choose one of delaunay"),
    (lambda: generate("delaunay", 0), "at least 1"),
    (lambda: generate("rgg", -5), "at least 1"),
    (lambda: generate("er", 2.5), "integer"),
    (lambda: generate("grid2d", 10), "perfect square"),
    (lambda: generate("grid2d", 12, rows=5), "multiple"),
    (lambda: generate("grid2d", 12, rows=3, cols=5), "rows × cols"),
    (lambda: generate("grid3d", 10), "perfect cube"),
    (lambda: generate("grid3d", None, dims=(2, 2)), "three"),
    (lambda: generate("rmat", 1000), "power of two"),
    (lambda: generate("rmat", 512, scale=8), "scale"),
    (lambda: generate("rmat", 256, a=0.9, b=0.2), "exceeds 1"),
    (lambda: generate("er", 100, p=0.1, avg_degree=3), "not both"),
    (lambda: generate("er", 100, p=1.5), "[0, 1]"),
    (lambda: generate("ba", 3, m_attach=4), "m_attach + 1"),
    (lambda: generate("delaunay", 10, colour="red"), "valid options: order"),
    (lambda: generate("rgg", 10, order="sideways"), "order"),
    (lambda: generate("rgg", 10, seed=-1), "seed"),
    (lambda: generate("er", None), "required"),
    (lambda: generate("road", 100, extra=1.5), "[0, 1]"),
    (lambda: generate("road", 100, order="sideways"), "order"),
])
def test_bad_requests_raise_one_line_input_errors(call, fragment):
    with pytest.raises(InputError) as info:
        call()
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_options_of_lists_keyword_options():
    assert options_of("ba") == ("m_attach",)
    assert set(options_of("rmat")) >= {"scale", "edge_factor", "permute"}
