"""BFS, SSSP, worklist CC and PageRank on the distributed worklist with CUDA devices (the graph, values and worklist resident on the GPU,
apps/_worklist_cuda.py) beside CPU devices, under `NUMBA_ENABLE_CUDASIM=1`: the same values as the references,
on both routings, and the termination count balanced."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps.bfs import bfs, bfs_reference
from apportion.apps.cc import cc_reference, connected_components
from apportion.apps.pagerank import pagerank, pagerank_reference
from apportion.apps.sssp import sssp, sssp_reference
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cpu import CPUDevice
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


def _weighted(graph: Graph, seed: int) -> Graph:
    u, v, _ = graph.edges()
    return Graph.from_edges(u, v, np.random.default_rng(seed).integers(1, 20, u.shape[0]), n=graph.n)


@settings(max_examples=5, deadline=None)
@given(n=st.integers(2, 40), degree=st.floats(1.0, 4.0), seed=st.integers(0, 99),
       routing=st.sampled_from(["ring", "direct"]))
def test_bfs_sssp_and_cc_with_a_cpu_and_a_cuda_device_equal_the_references(n, degree, seed, routing):
    graph = _weighted(apportion.generate("er", n=n, avg_degree=min(degree, n - 1), seed=seed), seed)
    devices = [CPUDevice(1, name="cpu"), CUDADevice(0)]
    levels = bfs(graph, 0, devices=devices, routing=routing, placement="random", seed=seed)
    np.testing.assert_array_equal(levels.values, bfs_reference(graph, 0))
    if np.any((levels.placement.owner == 1) & (levels.values >= 0)):  # the GPU owns a reached vertex: it worked
        assert levels.per_device[1] > 0
    distances = sssp(graph, 0, devices=devices, routing=routing, placement="random", seed=seed)
    np.testing.assert_array_equal(distances.values, sssp_reference(graph, 0))
    labels = connected_components(graph, devices=devices, method="worklist", routing=routing, placement="random",
                                  seed=seed)
    np.testing.assert_array_equal(labels.values, cc_reference(graph))


def test_a_cuda_device_alone_does_the_whole_run_and_counts_its_work():
    graph = _weighted(apportion.generate("grid2d", rows=6, cols=7), 3)
    result = sssp(graph, 5, devices=[CUDADevice(0)])
    np.testing.assert_array_equal(result.values, sssp_reference(graph, 5))
    assert result.devices == ["cuda0"] and result.work_items >= graph.n and result.edges_relaxed >= 2 * graph.m
    assert any(interval.kind == "compute" for interval in result.trace.intervals)


@pytest.mark.ray
def test_bfs_and_pagerank_on_ray_with_a_cpu_and_a_cuda_actor(local_ray):
    graph = apportion.generate("grid2d", rows=6, cols=7)  # connected: every device has work
    devices = [CPUDevice(1, name="cpu"), CUDADevice(0)]
    levels = bfs(graph, 0, devices=devices, transport="ray", placement="random", seed=1)
    np.testing.assert_array_equal(levels.values, bfs_reference(graph, 0))
    assert levels.transport == "ray" and levels.per_device[1] > 0
    ranks = pagerank(graph, devices=devices, transport="ray", placement="random", seed=1)
    assert np.abs(ranks.values - pagerank_reference(graph)).sum() <= 1e-3


@settings(max_examples=4, deadline=None)
@given(n=st.integers(2, 60), degree=st.floats(0.3, 3.0), seed=st.integers(0, 99), segment=st.integers(1, 40))
def test_topology_cc_with_a_cpu_and_a_cuda_device_equals_the_reference(n, degree, seed, segment):
    graph = apportion.generate("er", n=n, avg_degree=min(degree, n - 1), seed=seed)
    result = connected_components(graph, devices=[CPUDevice(1, name="cpu"), CUDADevice(0)], segment=segment)
    np.testing.assert_array_equal(result.values, cc_reference(graph))
    alone = connected_components(graph, devices=[CUDADevice(0)], segment=segment)
    np.testing.assert_array_equal(alone.values, cc_reference(graph))
    assert alone.segments[0] == -(-graph.m // segment)  # the CUDA device alone hooked every segment


@settings(max_examples=4, deadline=None)
@given(n=st.integers(2, 25), degree=st.floats(0.5, 3.0), seed=st.integers(0, 99),
       routing=st.sampled_from(["ring", "direct"]))
def test_pagerank_with_a_cpu_and_a_cuda_device_is_within_its_tolerance(n, degree, seed, routing):
    graph = apportion.generate("er", n=n, avg_degree=min(degree, n - 1), seed=seed)
    result = pagerank(graph, devices=[CPUDevice(1, name="cpu"), CUDADevice(0)], routing=routing,
                      placement="random", seed=seed)
    assert abs(result.values.sum() - 1.0) <= 1e-12
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= 1e-3  # the default tolerance
    # the CUDA device gets a seed item (and runs its worker) for each of its vertices with a start residual
    from apportion.apps.pagerank import start_ranks

    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    _, residuals = start_ranks(graph, 0.85, share)
    if np.any(np.abs(residuals[result.placement.owner == 1]) > 1e-9 / n):  # more than rounding
        assert any(i.device == 1 and i.kind == "compute" for i in result.trace.intervals)


@settings(max_examples=4, deadline=None)
@given(size=st.integers(0, 300), segment=st.integers(1, 64), seed=st.integers(0, 99))
def test_pbf_segments_on_a_cpu_and_a_cuda_device_keep_the_reference(size, segment, seed):
    from apportion.apps.pbf import pbf_reference
    from apportion.apps.pbf_runtime import pbf

    values = np.random.default_rng(seed).random(size)
    result = pbf(values, 0.2, 0.7, devices=[CPUDevice(1, name="cpu"), CUDADevice(0)], segment=segment)
    np.testing.assert_array_equal(result.values, pbf_reference(values, 0.2, 0.7))
    alone = pbf(values, 0.2, 0.7, devices=[CUDADevice(0)], segment=segment)
    np.testing.assert_array_equal(alone.values, pbf_reference(values, 0.2, 0.7))
    assert alone.segments[0] == -(-size // segment)
