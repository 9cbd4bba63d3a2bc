"""Multi-device PageRank: ranks sum to 1 and lie within the tolerance (L1) of the exact PageRank."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps.pagerank import DEFAULT_TOLERANCE, pagerank, pagerank_reference, residual_threshold
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, tolerance=st.sampled_from([DEFAULT_TOLERANCE, 0.05, 0.3]))
def test_pagerank_is_within_its_tolerance_of_the_exact_vector(graph, options, tolerance):
    expected = pagerank_reference(graph)
    result = pagerank(graph, tolerance=tolerance, **options)
    assert result.values.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(result.values > 0)
    assert np.abs(result.values - expected).sum() <= tolerance


def test_reference_equals_networkx_with_isolated_vertices():
    graph = Graph.from_edges([0, 1, 2, 4], [1, 2, 0, 5], n=7)
    ours = pagerank_reference(graph)
    theirs = nx.pagerank(graph.to_networkx(), alpha=0.85, tol=1e-14)
    np.testing.assert_allclose(ours, [theirs[v] for v in range(7)], atol=1e-12)


def test_default_tolerance_on_a_delaunay_graph_with_four_devices():
    graph = generate("delaunay", 2000, seed=8)
    result = pagerank(graph, devices=4, routing="direct", placement="random")
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE
    assert result.messages > 4


def test_threshold_and_bad_parameters():
    assert residual_threshold(100, 0.85, 1e-3) == pytest.approx(1e-3 * 0.15**2 / 200)
    graph = Graph.from_edges([0], [1], n=2)
    assert apportion.pagerank is pagerank
    for bad in ({"alpha": 1.0}, {"alpha": 0}, {"tolerance": 0}, {"tolerance": -1}):
        with pytest.raises(InputError):
            pagerank(graph, **bad)
    with pytest.raises(InputError):
        pagerank(Graph.from_edges([], [], n=0))
