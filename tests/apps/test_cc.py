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
from apportion.platform.cpu import CPUDevice
from apportion.platform.faulty import FaultyDevice

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, priority=st.sampled_from(["off", 1, 4.5]))
def test_worklist_components_equal_scipy(graph, options, priority):
    expected = cc_reference(graph)
    result = connected_components(graph, method="worklist", priority_delta=priority, **options)
    np.testing.assert_array_equal(result.values, expected)
    assert result.work_items >= graph.n  # every vertex starts as an item


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), devices=st.sampled_from([1, 2, 4]), segment=st.sampled_from([1, 3, 1 << 16]))
def test_topology_components_equal_scipy(graph, devices, segment):
    result = connected_components(graph, devices=devices, segment=segment)
    np.testing.assert_array_equal(result.values, cc_reference(graph))
    assert result.work_items == graph.m  # every edge hooked once
    assert result.messages == -(-graph.m // segment)


@pytest.mark.parametrize("fail_on_call", [1, 2, 4])
def test_topology_components_survive_a_dead_device(fail_on_call):
    graph = generate("delaunay", 2000, seed=3)
    devices = [CPUDevice(1), FaultyDevice(CPUDevice(1), fail_on_call, name="faulty"), CPUDevice(1)]
    result = connected_components(graph, devices=devices, segment=200)
    np.testing.assert_array_equal(result.values, cc_reference(graph))


def test_reference_labels_by_least_id():
    graph = Graph.from_edges([3, 1, 5], [4, 3, 6], n=8)
    assert cc_reference(graph).tolist() == [0, 1, 2, 1, 1, 5, 5, 7]


@pytest.mark.parametrize("devices", [1, 2, 4])
@pytest.mark.parametrize("method", ["topology", "worklist"])
def test_components_on_a_graph_of_isolated_vertices(devices, method):
    graph = Graph.from_edges([], [], n=5)
    assert connected_components(graph, devices=devices, method=method).values.tolist() == [0, 1, 2, 3, 4]


def test_least_label_first_labels_a_connected_graph_with_n_work_items():
    graph = generate("delaunay", 1500, seed=2)
    result = connected_components(graph, method="worklist", devices=4, placement="random", priority_delta=1,
                                  batch=9)
    assert result.values.tolist() == [0] * graph.n
    assert result.work_items == graph.n and result.priority_raises == 0


def test_exported_and_checked():
    assert apportion.connected_components is connected_components
    with pytest.raises(InputError):
        connected_components("graph")
    with pytest.raises(InputError):
        connected_components(Graph.from_edges([0], [1], n=2), devices=0)
    with pytest.raises(InputError, match="priority delta must be 'off' or a positive number"):
        connected_components(Graph.from_edges([0], [1], n=2), method="worklist", priority_delta="auto")
    for bad in ({"method": "hook"}, {"segment": 0}, {"transport": "mpi"}, {"segment": "x"}, {"segment": 1.5},
                {"segment": True}, {"segment": float("inf")}, {"segment": None}):
        with pytest.raises(InputError):
            connected_components(Graph.from_edges([0], [1], n=2), **bad)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), forests=st.integers(1, 3))
def test_forests_point_down_and_merge_into_the_components(data, n, forests):
    """Every forest keeps each non-root pointing to a smaller id (what the one-pass compression and labels rely
    on); compressing points every vertex at its root; merged forests label every vertex with its component's
    least id, whichever forest hooked which edge."""
    from apportion.apps._cc_kernels import compress_forest, forest_labels, forest_root, hook_segment
    from apportion.apps.cc import merge_forests

    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    owner = data.draw(st.lists(st.integers(0, forests - 1), min_size=len(pairs), max_size=len(pairs)))
    parents = [np.arange(n, dtype=np.int32) for _ in range(forests)]
    for (u, v), f in zip(pairs, owner):
        hook_segment(parents[f], np.array([u], dtype=np.int32), np.array([v], dtype=np.int32))
    for parent in parents:
        assert np.all(parent <= np.arange(n))
        roots = np.array([forest_root(parent.copy(), v) for v in range(n)])
        compressed = parent.copy()
        compress_forest(compressed)
        np.testing.assert_array_equal(compressed, roots)
    merged = parents[0]
    for other in parents[1:]:
        merge_forests(merged, other)
    labels = np.empty(n, dtype=np.int64)
    forest_labels(merged, labels)
    graph = Graph.from_edges(np.array([u for u, _ in pairs], dtype=np.int64),
                             np.array([v for _, v in pairs], dtype=np.int64), n=n)  # loops and repeats dropped
    np.testing.assert_array_equal(labels, cc_reference(graph))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), threads=st.integers(1, 2), chunk=st.sampled_from([1, 7, 64, 1 << 14]))
def test_forests_merged_by_several_threads_at_once_give_the_components(seed, threads, chunk):
    """The merge links on several threads into one forest (roots hooked by compare-and-swap): whatever the
    chunking and the thread count, every non-root still points to a smaller id and the labels are the
    components' least ids."""
    from apportion._chunked import using_threads
    from apportion.apps.cc import merge_forests
    from apportion.apps._cc_kernels import forest_labels, hook_segment

    n = 3000
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, size=(2, 2 * n)).astype(np.int32)
    parents = [np.arange(n, dtype=np.int32) for _ in range(2)]
    half = u.shape[0] // 3
    hook_segment(parents[0], u[:half], v[:half])
    hook_segment(parents[1], u[half:], v[half:])
    with using_threads(threads):
        merge_forests(parents[0], parents[1], chunk)
    assert np.all(parents[0] <= np.arange(n))
    labels = np.empty(n, dtype=np.int64)
    forest_labels(parents[0], labels)
    np.testing.assert_array_equal(labels, cc_reference(Graph.from_edges(u.astype(np.int64), v.astype(np.int64),
                                                                        n=n)))
