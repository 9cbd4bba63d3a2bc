"""Heterogeneous connected components by a vertex threshold (seed 004 §III, Algorithm 1).

The CPU side takes the vertex prefix v_0 … v_{n_cpu - 1} with n_cpu = ⌊n·t/100⌋ and runs a depth-first search
on each of its equal parts (one per CPU thread); the GPU side runs Shiloach–Vishkin on the other vertices; both
at the same time. Edges between parts (cross edges) are collected by the sides and merged afterwards on the GPU
side (Algorithm 1 line 9). The labels are each vertex's component's smallest vertex, whatever t is.
"""

from __future__ import annotations

import numpy as np

from apportion.apps._split_cc_kernels import dfs_parts, merge_cross_edges, shiloach_vishkin
from apportion.apps.split_common import (DevicePair, PartCosts, SplitRun, check_percent, device_pair, run_both,
                                         run_on, simulated_seconds)
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet

WORKLOAD = "cc"
# a CUDA device runs the GPU side and the merge with numba-cuda kernels (apps/_split_cc_cuda.py); they hand back
# the arrays the CPU kernels fill in place, which `_take_back` copies into the host's
SV_KERNELS = KernelSet(cpu=shiloach_vishkin, gpu=CudaKernel("apportion.apps._split_cc_cuda", "shiloach_vishkin_cuda"),
                       name="shiloach_vishkin")
MERGE_KERNELS = KernelSet(cpu=merge_cross_edges,
                          gpu=CudaKernel("apportion.apps._split_cc_cuda", "merge_cross_edges_cuda"),
                          name="merge_cross_edges")


def check_graph(graph: Graph) -> Graph:
    """The graph Algorithm 1 takes: a Graph with at least one vertex."""
    if not isinstance(graph, Graph):
        raise InputError(f"cc: expected a Graph, got {type(graph).__name__}")
    if graph.n == 0:
        raise InputError("cc: the graph is empty (no vertices)")
    return graph


def split_connected_components(graph: Graph, threshold: float, platform, *, pair: DevicePair | None = None) \
        -> SplitRun:
    """Algorithm 1 with the CPU's share `threshold` (percent of the vertices) on `platform` (or `pair`).

    Returns a SplitRun whose result is the label array (int64, smallest vertex of each component)."""
    graph = check_graph(graph)
    t = check_percent(threshold)
    pair = pair or device_pair(platform)
    n = graph.n
    indptr, indices = graph.indptr, graph.indices
    n_cpu = int(n * t // 100)
    parts = max(1, min(pair.cpu_threads, n_cpu))
    bounds = np.linspace(0, n_cpu, parts + 1).round().astype(np.int64)
    labels = np.empty(n, np.int64)
    cpu_edges = int(indptr[n_cpu])
    cross_cpu = np.empty((max(cpu_edges, 1), 2), np.int64)
    cross_gpu = np.empty((max(int(indptr[n]) - cpu_edges, 1), 2), np.int64)
    stack = np.empty(max(n_cpu, 1), np.int64)
    part_ops = np.zeros(parts, np.int64)
    counters = np.zeros(2, np.int64)
    count_cpu, count_gpu, cpu_s, gpu_s, wall = run_both(
        pair, (dfs_parts, (indptr, indices, bounds, labels, stack, cross_cpu, part_ops)),
        (SV_KERNELS, (indptr, indices, n_cpu, n, labels, cross_gpu, counters)), entries=n + int(indptr[n]))
    if isinstance(count_gpu, tuple):  # a CUDA device: its labels of [n_cpu, n), cross edges and counters
        count_gpu, gpu_labels, gpu_cross, gpu_counters = count_gpu
        labels[n_cpu:] = gpu_labels[n_cpu:]
        cross_gpu[:count_gpu] = gpu_cross[:count_gpu]
        counters[:] = gpu_counters
    merge_ops, merge_s = run_on(pair.gpu, pair.simulated, MERGE_KERNELS, labels, cross_cpu, count_cpu,
                                cross_gpu, count_gpu)
    if isinstance(merge_ops, tuple):
        merge_ops, labels[:] = merge_ops
    details = {"cpu_vertices": n_cpu, "gpu_vertices": n - n_cpu, "cpu_parts": parts,
               "cpu_operations": int(part_ops.sum()), "gpu_operations": int(counters[0]),
               "gpu_rounds": int(counters[1]), "cross_edges": int(count_cpu + count_gpu)}
    if pair.simulated:
        costs = PartCosts()
        # the CPU threads run their parts at once: the largest part decides (each thread has 1/parts of the rate)
        cpu_s = simulated_seconds(pair.cpu, float(part_ops.max()) * pair.cpu_threads, WORKLOAD, costs=costs)
        gpu_edges = int(indptr[n]) - cpu_edges
        gpu_s = simulated_seconds(pair.gpu, float(counters[0]), WORKLOAD,
                                  bytes_in=4.0 * ((n - n_cpu) + gpu_edges) if n_cpu < n else 0.0,
                                  launches=2 * int(counters[1]), costs=costs)
        # the CPU's labels and cross edges travel to the GPU, which merges
        merge_s = simulated_seconds(pair.gpu, float(merge_ops), WORKLOAD,
                                    bytes_in=8.0 * n_cpu + 8.0 * count_cpu if n_cpu > 0 else 0.0, costs=costs)
        details.update(costs.details())
    time_s = max(cpu_s, gpu_s) + merge_s
    return SplitRun(result=labels, threshold=t, time_s=time_s,
                    device_times_s={pair.cpu.name: cpu_s, pair.gpu.name: gpu_s, "merge": merge_s},
                    wall_s=wall, simulated=pair.simulated, details=details)
