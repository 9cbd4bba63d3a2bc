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


def test_a_posteriori_test_adds_phases_until_the_bound_holds(monkeypatch):
    # an over-optimistic first ε (100× the usual) must be caught by the residual bound and refined in later
    # phases that continue from the ranks so far — the answer still within the tolerance
    import apportion.apps.pagerank as module

    graph = generate("delaunay", 3000, seed=3)
    monkeypatch.setattr(module, "STARTING_FACTOR", 150.0)
    result = pagerank(graph, devices=2, tolerance=1e-3)
    assert result.phases >= 2
    assert result.values.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= 1e-3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), scale=st.floats(0.0, 1.0))
def test_error_bound_bounds_the_distance_of_partial_ranks(graph, scale):
    # ranks from a truncated power series (x ≤ x*, every residual ≥ 0): the bound is never below the true L1
    from apportion.apps.pagerank import error_bound

    n = graph.n
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    base = 0.15 / n
    ranks = np.zeros(n)
    term = np.full(n, base)
    steps = int(scale * 40)
    for _ in range(steps):  # x = Σ_{k < steps} (α Pᵀ)^k b
        ranks += term
        pulled = np.zeros(n)
        np.add.at(pulled, graph.indices, np.repeat(term * share, degrees))
        term = pulled
    if ranks.sum() == 0:
        return
    bound, residuals = error_bound(graph.indptr, graph.indices, share, ranks, base, 0.85)
    assert np.all(residuals >= -1e-15)
    assert np.abs(ranks / ranks.sum() - pagerank_reference(graph)).sum() <= bound + 1e-12


def test_relabelling_is_made_once_per_placement_and_undone_in_the_result():
    from apportion.apps.pagerank import relabelled

    graph = generate("delaunay", 1500, seed=6)
    placement = apportion.place(graph, devices=2, seed=0)
    renumbered, moved, new_of_old = relabelled(graph, placement)
    assert relabelled(graph, placement)[0] is renumbered  # cached while both live
    assert np.all(np.diff(moved.owner) >= 0)  # each device's vertices are one contiguous block
    assert np.array_equal(np.sort(new_of_old), np.arange(graph.n))
    assert np.array_equal(moved.owner[new_of_old], placement.owner)
    assert renumbered.m == graph.m and np.array_equal(np.sort(np.diff(renumbered.indptr)),
                                                      np.sort(np.diff(graph.indptr)))
    result = pagerank(graph, devices=2, placement=placement)
    assert result.placement is placement
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE
