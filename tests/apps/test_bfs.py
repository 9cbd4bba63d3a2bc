"""Multi-device BFS equals the sequential reference and SciPy on every device count, routing and placement."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import apportion
from apportion.apps.bfs import bfs, bfs_reference
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.throttled import ThrottledDevice
from apportion.runtime.placement import place

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


def scipy_levels(graph: Graph, source: int) -> np.ndarray:
    hops = shortest_path(graph.to_scipy(weighted=False), unweighted=True, indices=source)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, data=st.data(), priority=st.sampled_from(["auto", "off", 1, 2.5]))
def test_bfs_equals_the_references(graph, options, data, priority):
    source = data.draw(st.integers(0, graph.n - 1))
    expected = scipy_levels(graph, source)
    np.testing.assert_array_equal(bfs_reference(graph, source), expected)
    result = bfs(graph, source, priority_delta=priority, **options)
    np.testing.assert_array_equal(result.values, expected)
    reached = int(np.count_nonzero(expected >= 0))
    assert result.work_items >= reached  # every reached vertex is processed at least once
    assert sum(result.per_device) == result.work_items


@pytest.mark.parametrize("devices", [1, 2, 4])
@pytest.mark.parametrize("routing", ["ring", "direct"])
def test_bfs_on_a_disconnected_graph(devices, routing):
    two_paths = Graph.from_edges([0, 1, 2, 4, 5], [1, 2, 3, 5, 6], n=8)  # 0-1-2-3, 4-5-6, 7 alone
    result = bfs(two_paths, 1, devices=devices, routing=routing, placement="random")
    assert result.values.tolist() == [1, 0, 1, 2, -1, -1, -1, -1]


def test_bfs_on_a_delaunay_graph_with_unequal_devices_and_a_reused_placement():
    graph = generate("delaunay", 3000, seed=2)
    placement = place(graph, 2, method="partition")
    devices = [CPUDevice(1, name="fast"), ThrottledDevice(CPUDevice(1), 3.0, name="slow")]
    expected = bfs_reference(graph, 17)
    for source_result in (bfs(graph, 17, devices=devices, placement=placement),
                          bfs(graph, 17, devices=devices, placement=placement, routing="direct")):
        np.testing.assert_array_equal(source_result.values, expected)
        assert source_result.placement is placement
        assert source_result.messages > 0 and source_result.bytes_moved > 0
        kinds = {(i.device, i.kind) for i in source_result.trace.intervals}
        assert (0, "compute") in kinds and (1, "compute") in kinds
        assert source_result.devices == ["fast", "slow"]


@pytest.mark.parametrize("priority", ["auto", "off", 1])
def test_one_device_sends_nothing_but_the_seed(priority):
    graph = generate("delaunay", 500, seed=1)
    result = bfs(graph, 0, devices=1, priority_delta=priority)
    assert result.messages == 1 and result.work_items == graph.n  # FIFO on one device: each vertex once


def test_priority_of_one_level_processes_every_vertex_once_on_any_placement():
    # a threshold one level at a time is a level-synchronous BFS: no level is ever lowered after processing
    graph = generate("delaunay", 1500, seed=6)
    result = bfs(graph, 0, devices=4, placement="random", priority_delta=1, batch=7)
    assert result.work_items == graph.n and result.priority_raises >= int(result.values.max())


def test_bfs_is_exported_lazily():
    assert apportion.bfs is bfs and apportion.place is place


@pytest.mark.parametrize("source", [-1, 8, 2.0, "0", True])
def test_a_bad_source_is_an_input_error(source):
    graph = Graph.from_edges([0], [1], n=8)
    with pytest.raises(InputError):
        bfs(graph, source)


def test_bad_arguments_are_input_errors():
    graph = Graph.from_edges([0], [1], n=4)
    with pytest.raises(InputError):
        bfs(graph, 0, devices=0)
    for routing in ("star", "any"):
        with pytest.raises(InputError):
            bfs(graph, 0, routing=routing)
    with pytest.raises(InputError):
        bfs(graph, 0, transport="mpi")
    with pytest.raises(InputError):
        bfs(graph, 0, placement="metis")
    with pytest.raises(InputError):
        bfs(graph, 0, devices=3, placement=place(graph, 2, method="ranges"))
    with pytest.raises(InputError):
        bfs("graph", 0)
    with pytest.raises(InputError):
        bfs(graph, 0, priority_delta=-1)
