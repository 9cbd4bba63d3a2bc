"""`gpu_multilevel`: one multilevel cycle with coarsening and refinement on a CUDA GPU (seed 000 ch. 4's CPU-GPU
split): the GPU twin of `multilevel._multilevel`, which calls it when `PartitionContext.device == "cuda"`.

What runs where:

- the fine graph is copied to the GPU once per `partition()` call (`resident_level`; several runs and V-cycles
  reuse it) and every coarser level is built there: heavy-edge matching or size-constrained label propagation
  with the cluster-weight cap (`_gpu_matching_cuda`, `_gpu_clustering_cuda`), contraction
  (`_gpu_contract_cuda`), with the CPU's stopping rules (`coarsest_size`, `min_shrink`, "auto" switching from
  matching to clustering);
- the coarsest graph is copied to the host and partitioned there by the CPU's initial partitioning (recursive
  multilevel bisection; seed 000 ch. 4.3.3), then rebalanced on the host like every CPU level;
- its partition goes back to the GPU, and every level is projected and refined there by Jet refinement with
  its weak rebalancer (`_gpu_refine_cuda`, `_gpu_rebalance_cuda`): temperature 0.75 on every level (Jet lowers
  it to 0.25 on the finest; see FINEST_TEMPERATURE), patience 4 * `options.lp_refine_passes` iterations;
- the finest partition is copied back; if a block is still over its limit (every level starts balanced and
  refinement keeps the best balanced partition it sees, so only when the coarsest graph could not be balanced
  and the GPU's rebalancing rounds did not finish the job), the CPU's hard rebalancer
  (`balance.rebalance_partition(final=True)`) settles it, so every guarantee of the CPU path holds.

Besides the coarsest graph and the assignments, only scalars cross the bus: a level's vertex and edge counts,
its heaviest vertex, a round's move count, the cut and the k block weights after each refinement iteration.

Options the GPU path does not run (docs/gpu.md): 2-hop matching, Suitor matching (mutual matching instead),
k-way FM and flow refinement (Jet instead). One vertex-weight constraint only (`multilevel.partition` refuses
more on device="cuda"). Results depend on the seed only, never on thread timing.

Imported only when the GPU path runs (this module imports numba.cuda).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._gpu_clustering_cuda import label_propagation_cuda
from apportion.partitioning.vertex._gpu_contract_cuda import (
    contract_cuda, labels_to_cmap_cuda, project_cuda, restrict_cuda)
from apportion.partitioning.vertex._gpu_matching_cuda import mutual_matching_cuda
from apportion.partitioning.vertex._gpu_refine_cuda import jet_refine_cuda
from apportion.partitioning.vertex._gpu_scan_cuda import device_max
from apportion.partitioning.vertex._partition_kernels import block_weights
from apportion.partitioning.vertex.balance import rebalance_partition
from apportion.partitioning.vertex.coarsen import (RETRY, STOP, cluster_weight_cap_of, coarsest_size, first_method,
                                                   level_threads, level_verdict, max_levels)
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.initial import initial_partition

#: Jet's temperature: a candidate move may lose up to this fraction of the vertex's connection to its own block.
#: Jet lowers it to 0.25 on the finest level; 0.75 there too cut less on the 4elt sub-meshes the simulator can
#: run (docs/gpu.md); to be revisited on large graphs on a GPU
COARSE_TEMPERATURE = 0.75
FINEST_TEMPERATURE = 0.75
#: Jet iterations without improvement per level, per `options.lp_refine_passes`
PATIENCE_PER_PASS = 4


class DeviceLevel(NamedTuple):
    """One graph of the hierarchy on the GPU: the `LevelGraph` arrays as numba-cuda device arrays."""

    indptr: object
    indices: object
    edge_weights: object
    vertex_weights: object

    @property
    def n(self) -> int:
        return int(self.indptr.shape[0] - 1)

    def to_host(self) -> LevelGraph:
        return LevelGraph.of(*(np.ascontiguousarray(a.copy_to_host()) for a in self))


def upload(graph: LevelGraph) -> DeviceLevel:
    """`graph` copied to the GPU (empty arrays padded to one entry: a device array is never empty)."""
    def put(a):
        if a.shape[0]:
            return cuda.to_device(np.ascontiguousarray(a))
        return cuda.to_device(np.zeros((1,) + a.shape[1:], dtype=a.dtype))[:0]

    return DeviceLevel(*(put(a) for a in graph))


#: the one fine graph kept on the GPU: (its host LevelGraph, its DeviceLevel); `release()` drops it
_RESIDENT: list = []


def resident_level(graph: LevelGraph) -> DeviceLevel:
    """`graph` on the GPU, copied once for as long as it is the graph being partitioned (runs, V-cycles)."""
    if _RESIDENT and _RESIDENT[0][0] is graph:
        return _RESIDENT[0][1]
    level = upload(graph)
    _RESIDENT[:] = [(graph, level)]
    return level


def release() -> None:
    """Drop the resident fine graph (`multilevel.partition` calls it when the call ends)."""
    _RESIDENT.clear()


def _cluster(level: DeviceLevel, cap, method: str, ctx: PartitionContext, seed: int, blocks):
    options = ctx.options
    if method == "matching":
        return mutual_matching_cuda(*level, cap, options.matching_rounds, seed)
    rounds = options.clustering_rounds
    if level.n >= options.large_level:
        rounds = min(rounds, options.large_level_clustering_rounds)
    return label_propagation_cuda(*level, cap, rounds, options.clustering_batches, seed,
                                  options.clustering_stop_fraction, blocks=blocks,
                                  normalized=options.clustering_rating == "normalized")


def coarsen_on_device(fine: DeviceLevel, total: np.ndarray, ctx: PartitionContext, blocks=None):
    """The device hierarchy [G0, G1, ...], the device cmaps and (with `blocks`, a device partition of G0 no
    cluster may cross) that partition on the coarsest graph: `coarsen.coarsen`'s loop and stopping rules,
    without its 2-hop matching."""
    k, options = ctx.k, ctx.options
    levels = [fine]
    cmaps = []
    limit = coarsest_size(k, options)
    method = first_method(options, fine.n, blocks)
    depth = 0
    while levels[-1].n > limit:
        current = levels[-1]
        heaviest = np.array([device_max(current.vertex_weights[:, 0], current.n)], dtype=np.int64)
        cap = cluster_weight_cap_of(current.n, total, heaviest, k, ctx.targets, ctx.epsilon, options)
        labels = _cluster(current, cuda.to_device(cap), method, ctx, ctx.seed * 7919 + depth, blocks)
        cmap, coarse_n = labels_to_cmap_cuda(labels)
        method, verdict = level_verdict(options, method, current.n, coarse_n)
        if verdict == RETRY:
            continue
        if verdict == STOP:
            break
        levels.append(DeviceLevel(*contract_cuda(*current, cmap, coarse_n)))
        cmaps.append(cmap)
        if blocks is not None:
            blocks = restrict_cuda(cmap, blocks, coarse_n)
        depth += 1
        if depth > max_levels(fine.n):
            break
    return levels, cmaps, blocks


def gpu_multilevel(fine: LevelGraph, ctx: PartitionContext,
                   given: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """One multilevel cycle of `fine` on the GPU (module docstring); `multilevel._multilevel`'s contract:
    returns (part, levels), part within `ctx.max_block_weights` (one constraint); with `given` a V-cycle that
    starts from it and never returns a larger cut."""
    k, limits, watch, options = ctx.k, ctx.max_block_weights, ctx.watch, ctx.options
    host_limits = np.ascontiguousarray(limits[:, 0], dtype=np.int64)
    device_limits = cuda.to_device(host_limits)
    total = fine.vertex_weights.sum(axis=0)
    with watch.phase("coarsen"):
        device_fine = resident_level(fine)
        blocks = None if given is None else cuda.to_device(np.ascontiguousarray(given, dtype=np.int32))
        hierarchy, cmaps, coarse_blocks = coarsen_on_device(device_fine, total, ctx, blocks)
    step = 1.0 / (len(hierarchy) + 1)
    ctx.progress.advance(step)
    with watch.phase("initial"):
        coarsest = hierarchy[-1].to_host()
        level_threads(coarsest.n, ctx.threads)
        if coarse_blocks is not None:
            part = np.ascontiguousarray(coarse_blocks.copy_to_host(), dtype=np.int32)
        else:
            part = initial_partition(coarsest, ctx, ctx.seed + 17)
    with watch.phase("rebalance"):
        bw = block_weights(coarsest.vertex_weights, part, k)
        rebalance_partition(coarsest, part, bw, limits, final=len(hierarchy) == 1)
    device_part = cuda.to_device(part)
    patience = PATIENCE_PER_PASS * options.lp_refine_passes
    for depth in range(len(hierarchy) - 1, -1, -1):
        level = hierarchy[depth]
        if depth < len(hierarchy) - 1:
            with watch.phase("project"):
                device_part = project_cuda(cmaps[depth], device_part)
        with watch.phase("refine"):
            temperature = FINEST_TEMPERATURE if depth == 0 else COARSE_TEMPERATURE
            jet_refine_cuda(*level, device_part, k, device_limits, host_limits, patience, temperature)
        ctx.progress.advance(step)
    part = np.ascontiguousarray(device_part.copy_to_host(), dtype=np.int32)
    with watch.phase("rebalance"):
        bw = block_weights(fine.vertex_weights, part, k)
        rebalance_partition(fine, part, bw, limits, final=True)
    return part, len(hierarchy)
