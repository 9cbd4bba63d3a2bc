"""Graph building, metrics and generators against values derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.graph.metrics import edge_partition_metrics


def test_repeated_edges_sum_their_weights():
    # (0, 1) three times (2 + 3 + 4, once reversed) and (1, 2) once
    g = Graph.from_edges([0, 1, 0, 1], [1, 0, 1, 2], [2, 3, 4, 6])
    assert g.indptr.tolist() == [0, 1, 3, 4]
    assert g.indices.tolist() == [1, 0, 2, 1]
    assert g.edge_weights.tolist() == [9, 9, 6, 6]


def test_edge_metrics_by_hand_with_an_isolated_vertex():
    # path 0-1-2-3 plus isolated vertex 4; edges (0,1) -> 0, (1,2) -> 1, (2,3) -> 1: vertex 1 is in two parts
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=5)
    metrics = edge_partition_metrics(g, [0, 1, 1], k=2)
    assert metrics.vertex_copies == 1                      # Σ (p_v − 1) over the 4 non-isolated vertices
    assert metrics.replication_factor == pytest.approx(5 / 4)
    assert metrics.edges_per_part.tolist() == [1, 2]
    assert metrics.edge_imbalance == pytest.approx(2 / (3 / 2) - 1)


def test_edge_imbalance_divides_by_the_average():
    # m = 7, k = 3: the average is 7/3, not 2
    g = Graph.from_edges(np.arange(7), np.arange(1, 8))
    metrics = edge_partition_metrics(g, [0, 0, 0, 1, 1, 2, 2], k=3)
    assert metrics.edge_imbalance == pytest.approx(3 / (7 / 3) - 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_barabasi_albert_grows_hubs(seed):
    """Preferential attachment on 2000 vertices, m_attach = 3: the largest degree grows like √n (106-152 on
    these seeds); attaching uniformly it grows like log n (about 28)."""
    g = generate("ba", 2000, seed=seed, m_attach=3)
    assert g.degrees().max() > 70


@pytest.mark.parametrize("n", [9, 12])
def test_er_with_average_degree_n_minus_one_is_complete(n):
    # avg_degree = n − 1 means p = (n − 1)/(n − 1) = 1: every pair is an edge
    g = generate("er", n, seed=3, avg_degree=n - 1)
    assert g.m == n * (n - 1) // 2
