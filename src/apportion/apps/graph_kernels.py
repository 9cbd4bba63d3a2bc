"""Whole-graph BFS, SSSP, CC and PageRank as kernel sets that one device runs (a CPU device: the sequential
references; a CUDA device: the numba-cuda kernels of _bfs_cuda, _sssp_cuda, _cc_cuda, _pagerank_cuda).

These are the GPU counterparts of the runtime apps (bfs.py, sssp.py, cc.py, pagerank.py) on one device; the
distributed worklist does not run CUDA devices yet (docs/gpu.md says why). Each function returns the same
result on every device (PageRank: to rounding) and the Execution's timing.

    levels, execution = bfs_levels_on(device, graph, source)
"""

from __future__ import annotations

import numpy as np

from apportion.apps.bfs import bfs_reference
from apportion.apps.cc import cc_reference
from apportion.apps.pagerank import ALPHA, pagerank_reference
from apportion.apps.sssp import arc_weights, sssp_reference
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import Device, Execution, KernelSet
from apportion.runtime.distributed_worklist import check_source


def _graph(indptr, indices, weights=None):
    return Graph(indptr, indices, edge_weights=weights)


def _bfs_cpu(indptr, indices, source):
    return bfs_reference(_graph(indptr, indices), int(source))


def _sssp_cpu(indptr, indices, weights, source):
    return sssp_reference(_graph(indptr, indices), int(source), weights)


def _cc_cpu(indptr, indices):
    return cc_reference(_graph(indptr, indices))


def _pagerank_cpu(indptr, indices, alpha, tolerance):
    return pagerank_reference(_graph(indptr, indices), alpha, tolerance)


BFS_KERNELS = KernelSet(cpu=_bfs_cpu, gpu=CudaKernel("apportion.apps._bfs_cuda", "bfs_levels_cuda"), name="bfs")
SSSP_KERNELS = KernelSet(cpu=_sssp_cpu, gpu=CudaKernel("apportion.apps._sssp_cuda", "sssp_distances_cuda"),
                         name="sssp")
CC_KERNELS = KernelSet(cpu=_cc_cpu, gpu=CudaKernel("apportion.apps._cc_cuda", "cc_labels_cuda"), name="cc")
PAGERANK_KERNELS = KernelSet(cpu=_pagerank_cpu, gpu=CudaKernel("apportion.apps._pagerank_cuda", "pagerank_cuda"),
                             name="pagerank")


def bfs_levels_on(device: Device, graph: Graph, source: int) -> tuple[np.ndarray, Execution]:
    """BFS levels from `source` (-1 unreachable) computed on `device`."""
    execution = device.run(BFS_KERNELS, graph.indptr, graph.indices, np.int64(check_source(graph, source)))
    return execution.result, execution


def sssp_distances_on(device: Device, graph: Graph, source: int, weights=None) -> tuple[np.ndarray, Execution]:
    """Shortest-path distances from `source` (inf unreachable) computed on `device` (weights as in `sssp`)."""
    execution = device.run(SSSP_KERNELS, graph.indptr, graph.indices, arc_weights(graph, weights),
                           np.int64(check_source(graph, source)))
    return execution.result, execution


def cc_labels_on(device: Device, graph: Graph) -> tuple[np.ndarray, Execution]:
    """Component labels (least vertex id of each component) computed on `device`."""
    execution = device.run(CC_KERNELS, graph.indptr, graph.indices)
    return execution.result, execution


def pagerank_on(device: Device, graph: Graph, alpha: float = ALPHA, tolerance: float = 1e-12
                ) -> tuple[np.ndarray, Execution]:
    """PageRank (as `pagerank_reference`, iterated to an L1 change under `tolerance`) computed on `device`."""
    execution = device.run(PAGERANK_KERNELS, graph.indptr, graph.indices, float(alpha), float(tolerance))
    return execution.result, execution
