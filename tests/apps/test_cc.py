"""Multi-device connected components equal SciPy's (relabelled by least id) on every configuration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps.cc import cc_reference, connected_components
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, priority=st.sampled_from(["off", 1, 4.5]))
def test_components_equal_scipy(graph, options, priority):
    expected = cc_reference(graph)
    result = connected_components(graph, priority_delta=priority, **options)
    np.testing.assert_array_equal(result.values, expected)
    assert result.work_items >= graph.n  # every vertex starts as an item


def test_reference_labels_by_least_id():
    graph = Graph.from_edges([3, 1, 5], [4, 3, 6], n=8)
    assert cc_reference(graph).tolist() == [0, 1, 2, 1, 1, 5, 5, 7]


@pytest.mark.parametrize("devices", [1, 2, 4])
def test_components_on_a_graph_of_isolated_vertices(devices):
    graph = Graph.from_edges([], [], n=5)
    assert connected_components(graph, devices=devices).values.tolist() == [0, 1, 2, 3, 4]


def test_least_label_first_labels_a_connected_graph_with_n_work_items():
    graph = generate("delaunay", 1500, seed=2)
    result = connected_components(graph, devices=4, placement="random", priority_delta=1, batch=9)
    assert result.values.tolist() == [0] * graph.n
    assert result.work_items == graph.n and result.priority_raises == 0


def test_exported_and_checked():
    assert apportion.connected_components is connected_components
    with pytest.raises(InputError):
        connected_components("graph")
    with pytest.raises(InputError):
        connected_components(Graph.from_edges([0], [1], n=2), devices=0)
    with pytest.raises(InputError):
        connected_components(Graph.from_edges([0], [1], n=2), priority_delta="auto")
