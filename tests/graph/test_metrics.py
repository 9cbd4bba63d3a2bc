"""Partition metrics against a plain-Python recount over a NetworkX copy of the graph."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apportion import generate
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.metrics import (EdgePartitionMetrics, VertexPartitionMetrics, edge_partition_metrics,
                                     vertex_partition_metrics)


@st.composite
def weighted_graphs(draw, max_n=24):
    """A random simple graph with optional edge weights and 0..3 vertex-weight constraints."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    pairs = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    weights = None
    if draw(st.booleans()) and pairs:
        weights = np.array(draw(st.lists(st.integers(1, 9), min_size=len(pairs), max_size=len(pairs))))
    ncon = draw(st.integers(0, 3))
    vertex_weights = None
    if ncon:
        flat = draw(st.lists(st.integers(0, 7), min_size=n * ncon, max_size=n * ncon))
        vertex_weights = np.array(flat, dtype=np.int64).reshape(n, ncon)
        if ncon == 1:
            vertex_weights = vertex_weights[:, 0]
    return Graph.from_edges(u, v, weights, n=n, vertex_weights=vertex_weights)


def reference_vertex_metrics(graph: Graph, block: list[int], k: int, targets) -> dict:
    """The definitions, counted one vertex and one edge at a time on a NetworkX graph."""
    g = graph.to_networkx()
    weights = graph.vertex_weight_matrix().tolist()
    ncon = len(weights[0]) if weights else graph.ncon
    cut = sum(d.get("weight", 1) for a, b, d in g.edges(data=True) if block[a] != block[b])
    volume = 0
    boundary = 0
    neighbours_of_block = [set() for _ in range(k)]
    for v in g.nodes:
        foreign = {block[w] for w in g.neighbors(v)} - {block[v]}
        volume += len(foreign)
        boundary += bool(foreign)
        neighbours_of_block[block[v]] |= foreign
    block_weights = [[0] * ncon for _ in range(k)]
    for v in range(graph.n):
        for c in range(ncon):
            block_weights[block[v]][c] += weights[v][c]
    totals = [sum(weights[v][c] for v in range(graph.n)) for c in range(ncon)]
    shares = [1.0] * k if targets is None else list(targets)
    target_weights = [[shares[b] / sum(shares) * totals[c] for c in range(ncon)] for b in range(k)]
    imbalance = -math.inf
    for b in range(k):
        for c in range(ncon):
            t = math.ceil(target_weights[b][c] - 1e-9)  # against the target rounded up to a whole weight
            if t > 0:
                ratio = block_weights[b][c] / t - 1
            else:
                ratio = math.inf if block_weights[b][c] > 0 else 0.0
            imbalance = max(imbalance, ratio)
    return {"cut": cut, "communication_volume": volume, "boundary_vertices": boundary,
            "block_connectivity": [len(s) for s in neighbours_of_block], "block_weights": block_weights,
            "target_weights": target_weights, "imbalance": imbalance,
            "empty_blocks": sum(1 for b in range(k) if b not in set(block))}


@given(data=st.data(), graph=weighted_graphs())
@settings(max_examples=80, deadline=None)
def test_vertex_metrics_equal_the_plain_recount(data, graph):
    k = data.draw(st.integers(1, 6))
    block = data.draw(st.lists(st.integers(0, k - 1), min_size=graph.n, max_size=graph.n))
    targets = data.draw(st.one_of(st.none(), st.lists(st.floats(0.1, 5.0), min_size=k, max_size=k)))
    result = vertex_partition_metrics(graph, np.array(block), k=k, targets=targets)
    expected = reference_vertex_metrics(graph, block, k, targets)
    assert isinstance(result, VertexPartitionMetrics)
    assert result.k == k
    for key in ("cut", "communication_volume", "boundary_vertices", "empty_blocks"):
        assert getattr(result, key) == expected[key], key
    assert result.block_connectivity.tolist() == expected["block_connectivity"]
    block_weights = np.array(expected["block_weights"])
    target_weights = np.array(expected["target_weights"])
    if graph.ncon == 1:
        block_weights, target_weights = block_weights[:, 0], target_weights[:, 0]
    assert result.block_weights.tolist() == block_weights.tolist()
    assert np.allclose(result.target_weights, target_weights)
    if math.isinf(expected["imbalance"]):
        assert math.isinf(result.imbalance)
    else:
        assert result.imbalance == pytest.approx(expected["imbalance"], abs=1e-12)


def test_vertex_metrics_on_a_generated_graph_match_networkx_cut_size():
    graph = generate("delaunay", 2000, seed=1)
    block = np.random.default_rng(0).integers(0, 5, graph.n)
    result = vertex_partition_metrics(graph, block)
    g = graph.to_networkx()
    expected_cut = sum(nx.cut_size(g, np.flatnonzero(block == b).tolist()) for b in range(5)) // 2
    assert result.cut == expected_cut
    assert result.k == 5 and result.block_weights.sum() == graph.n


def test_multi_constraint_with_unequal_targets():
    graph = Graph.from_edges([0, 1, 2], [1, 2, 3], vertex_weights=[[1, 4], [1, 0], [2, 2], [0, 2]])
    result = vertex_partition_metrics(graph, [0, 0, 1, 1], targets=[1, 3])
    assert result.block_weights.tolist() == [[2, 4], [2, 4]]
    assert result.target_weights.tolist() == [[1.0, 2.0], [3.0, 6.0]]
    assert result.imbalance == pytest.approx(1.0)  # block 0 holds 2 where 1 was its share
    assert result.cut == 1 and result.communication_volume == 2 and result.boundary_vertices == 2
    assert result.block_connectivity.tolist() == [1, 1]


def test_zero_target_and_empty_blocks():
    graph = generate("grid2d", 9)
    result = vertex_partition_metrics(graph, [0] * 9, k=3, targets=[1, 0, 1])
    assert result.empty_blocks == 2
    assert result.imbalance == pytest.approx(0.8)  # 9 vertices in block 0, whose target 4.5 rounds up to 5
    overloaded = vertex_partition_metrics(graph, [1] * 9, k=3, targets=[1, 0, 1])
    assert math.isinf(overloaded.imbalance)
    assert overloaded.to_dict()["imbalance"] == math.inf


def test_to_dict_is_plain_python():
    result = vertex_partition_metrics(generate("grid2d", 16), [0, 1] * 8)
    plain = result.to_dict()
    assert set(plain) == {"k", "cut", "block_weights", "target_weights", "imbalance", "communication_volume",
                          "boundary_vertices", "block_connectivity", "empty_blocks"}
    assert all(isinstance(x, int) for x in plain["block_weights"])
    assert isinstance(plain["imbalance"], float)


def test_k_defaults_to_targets_length_then_max_id():
    graph = generate("grid2d", 16)
    assert vertex_partition_metrics(graph, [0] * 16, targets=[1, 1, 2]).k == 3
    assert vertex_partition_metrics(graph, [0, 3] * 8).k == 4
    assert vertex_partition_metrics(Graph.from_edges([], [], n=0), []).k == 1


@pytest.mark.parametrize("assignment,kwargs,fragment", [
    ([0] * 15, {}, "16 vertices"),
    ([0] * 15 + [4], {"k": 4}, "outside [0, 4)"),
    ([0] * 15 + [-1], {}, "negative"),
    ([0.5] * 16, {}, "integer"),
    ([0] * 16, {"k": 0}, "at least 1"),
    ([0] * 16, {"k": 2, "targets": [1, 2, 3]}, "k = 2"),
    ([0] * 16, {"k": 2, "targets": [1, -1]}, "non-negative"),
    ([0] * 16, {"k": 2, "targets": [0, 0]}, "all be zero"),
    ([0] * 16, {"k": 2, "targets": [1, float("nan")]}, "finite"),
    ([[0] * 16], {}, "1-D"),
])
def test_vertex_metrics_reject_bad_input(assignment, kwargs, fragment):
    with pytest.raises(InputError) as info:
        vertex_partition_metrics(generate("grid2d", 16), assignment, **kwargs)
    assert fragment in str(info.value)


# ------------------------------------------------------------------------------------------------ edge partitions
def reference_edge_metrics(graph: Graph, part: list[int], k: int) -> dict:
    u, v, _ = graph.edges()
    parts_at = {}
    for a, b, p in zip(u.tolist(), v.tolist(), part):
        parts_at.setdefault(a, set()).add(p)
        parts_at.setdefault(b, set()).add(p)
    counts = [part.count(i) for i in range(k)]
    total = sum(len(s) for s in parts_at.values())
    return {"edges_per_part": counts, "vertex_copies": total - len(parts_at),
            "replication_factor": total / len(parts_at) if parts_at else 1.0,
            "edge_imbalance": max(counts) / (graph.m / k) - 1 if graph.m else 0.0}


@given(data=st.data(), graph=weighted_graphs())
@settings(max_examples=80, deadline=None)
def test_edge_metrics_equal_the_plain_recount(data, graph):
    k = data.draw(st.integers(1, 5))
    part = data.draw(st.lists(st.integers(0, k - 1), min_size=graph.m, max_size=graph.m))
    result = edge_partition_metrics(graph, np.array(part, dtype=np.int64), k=k)
    expected = reference_edge_metrics(graph, part, k)
    assert isinstance(result, EdgePartitionMetrics)
    assert result.edges_per_part.tolist() == expected["edges_per_part"]
    assert result.vertex_copies == expected["vertex_copies"]
    assert result.replication_factor == pytest.approx(expected["replication_factor"])
    assert result.edge_imbalance == pytest.approx(expected["edge_imbalance"])


def test_edge_metrics_follow_canonical_edge_order():
    # star 0-1, 0-2, 0-3 plus 2-3: parts in canonical order (0,1) (0,2) (0,3) (2,3)
    graph = Graph.from_edges([3, 0, 2, 0], [2, 1, 0, 3])
    result = edge_partition_metrics(graph, [0, 1, 1, 2])
    # p: vertex 0 in {0, 1}, 1 in {0}, 2 in {1, 2}, 3 in {1, 2}
    assert result.vertex_copies == 3
    assert result.replication_factor == pytest.approx(7 / 4)
    assert result.edges_per_part.tolist() == [1, 2, 1]
    assert result.edge_imbalance == pytest.approx(2 / (4 / 3) - 1)


def test_edge_metrics_ignore_isolated_vertices():
    graph = Graph.from_edges([0], [1], n=5)
    result = edge_partition_metrics(graph, [0], k=2)
    assert result.replication_factor == 1.0 and result.vertex_copies == 0
    assert result.edge_imbalance == pytest.approx(1.0)


@pytest.mark.parametrize("assignment,kwargs,fragment", [
    ([0] * 23, {}, "24 edges"),
    ([0] * 23 + [2], {"k": 2}, "outside [0, 2)"),
    ([0] * 24, {"k": -1}, "at least 1"),
])
def test_edge_metrics_reject_bad_input(assignment, kwargs, fragment):
    with pytest.raises(InputError) as info:
        edge_partition_metrics(generate("grid2d", 16), assignment, **kwargs)
    assert fragment in str(info.value)
