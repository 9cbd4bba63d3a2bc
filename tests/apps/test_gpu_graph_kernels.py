"""The numba-cuda graph kernels (BFS, SSSP, CC, PageRank with atomics) equal the CPU references on random small
graphs, run through a CUDADevice (under `NUMBA_ENABLE_CUDASIM=1` on the CUDA simulator: small graphs), and the
CPU device runs the same kernel sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps.bfs import bfs_reference
from apportion.apps.cc import cc_reference
from apportion.apps.graph_kernels import bfs_levels_on, cc_labels_on, pagerank_on, sssp_distances_on
from apportion.apps.pagerank import pagerank_reference
from apportion.apps.sssp import sssp_reference
from apportion.platform.cpu import CPUDevice
from apportion.platform.cuda import CUDADevice

from _runtime_graphs import small_graphs

SMALL = settings(max_examples=6)


@pytest.mark.gpu
@SMALL
@given(graph=small_graphs(max_n=30), data=st.data())
def test_gpu_bfs_equals_reference(graph, data):
    source = data.draw(st.integers(0, graph.n - 1))
    levels, execution = bfs_levels_on(CUDADevice(0), graph, source)
    np.testing.assert_array_equal(levels, bfs_reference(graph, source))
    assert levels.dtype == np.int64 and execution.timing.compute_s > 0


@pytest.mark.gpu
@SMALL
@given(graph=small_graphs(weighted=True, max_n=30), data=st.data())
def test_gpu_sssp_equals_dijkstra(graph, data):
    source = data.draw(st.integers(0, graph.n - 1))
    distances, _ = sssp_distances_on(CUDADevice(0), graph, source)
    # integer weights: every path length is exact, so the fixpoint equals Dijkstra's distances exactly
    np.testing.assert_array_equal(distances, sssp_reference(graph, source))


@pytest.mark.gpu
@SMALL
@given(graph=small_graphs(max_n=30))
def test_gpu_cc_equals_reference(graph):
    labels, _ = cc_labels_on(CUDADevice(0), graph)
    np.testing.assert_array_equal(labels, cc_reference(graph))


@pytest.mark.gpu
@SMALL
@given(graph=small_graphs(max_n=30))
def test_gpu_pagerank_equals_power_iteration(graph):
    ranks, _ = pagerank_on(CUDADevice(0), graph)
    np.testing.assert_allclose(ranks, pagerank_reference(graph), rtol=0, atol=1e-9)
    assert abs(ranks.sum() - 1.0) < 1e-12


def test_graph_kernel_sets_run_on_a_cpu_device():
    rng = np.random.default_rng(3)
    from apportion.graph.csr import Graph

    graph = Graph.from_edges(rng.integers(0, 50, 120), rng.integers(0, 50, 120), rng.integers(1, 9, 120), n=50)
    device = CPUDevice(1)
    np.testing.assert_array_equal(bfs_levels_on(device, graph, 0)[0], bfs_reference(graph, 0))
    np.testing.assert_array_equal(sssp_distances_on(device, graph, 0)[0], sssp_reference(graph, 0))
    np.testing.assert_array_equal(cc_labels_on(device, graph)[0], cc_reference(graph))
    np.testing.assert_allclose(pagerank_on(device, graph)[0], pagerank_reference(graph, tolerance=1e-12), atol=1e-12)


@pytest.mark.gpu
def test_distributed_worklist_refuses_cuda_devices_for_programs_without_a_gpu_worker():
    from apportion.apps._bfs_kernels import bfs_step
    from apportion.errors import InputError
    from apportion.graph.csr import Graph
    from apportion.platform.cuda import CUDADevice
    from apportion.runtime.distributed_worklist import DistributedWorklist, WorklistProgram
    from apportion.runtime.placement import place

    graph = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    program = WorklistProgram("levels", bfs_step, weights=np.empty(0, dtype=np.int64), initial_value=1 << 40,
                              dtype=np.dtype(np.int64))
    with pytest.raises(InputError, match="cuda0 is a CUDA device: levels has no GPU worker kernels"):
        DistributedWorklist(graph, program, [CUDADevice(0)], place(graph, 1, method="ranges"))
