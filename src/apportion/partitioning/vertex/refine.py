"""Refinement: the two-direction request-buffer refiner (seed 000 ch. 4.3.4, with Jet's afterburner) and
k-way FM (KaFFPa-style, used as preset data says)."""

from __future__ import annotations

import numba
import numpy as np

from apportion.partitioning.vertex._refine_kernels import (
    accept_requests, afterburner, apply_if_not_worse, file_requests, kway_fm)
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.options import PartitionOptions


def refine_two_direction(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray,
                         passes: int, seed: int) -> int:
    """Parallel label-propagation-style refinement with one move direction per half-pass and per-block
    acceptance under the maximum weight. Never increases the cut; never pushes a block above its limit.
    Updates part and bw; returns the number of moves kept."""
    if passes <= 0 or graph.n == 0:
        return 0
    n = graph.n
    target = np.empty(n, dtype=np.int32)
    gain = np.zeros(n, dtype=np.int64)
    rank = np.zeros(n, dtype=np.int64)
    moved = 0
    for p in range(passes):
        moved_in_pass = 0
        for direction in (0, 1):
            filed = file_requests(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                                  max_weights, bw.shape[0], direction, seed * 7919 + 2 * p + direction, target,
                                  gain, rank, 4 * numba.get_num_threads())
            if filed == 0:
                continue
            candidates = afterburner(graph.indptr, graph.indices, graph.edge_weights, part, target, gain, rank)
            if candidates.shape[0] == 0:
                continue
            accepted = accept_requests(graph.vertex_weights, bw, max_weights, candidates, target, gain)
            if accepted.shape[0] == 0:
                continue
            if apply_if_not_worse(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                                  accepted, target) >= 0:
                moved_in_pass += accepted.shape[0]
        moved += moved_in_pass
        if moved_in_pass == 0:
            break
    return moved


def refine_fm(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray, passes: int,
              stop_fraction: float, seed: int) -> int:
    """k-way FM with rollback to the best prefix. Never increases the cut; every move fits its block.
    Updates part and bw; returns the cut decrease."""
    if passes <= 0 or graph.n == 0:
        return 0
    return int(kway_fm(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                       max_weights, bw.shape[0], passes, stop_fraction, seed))


def refine(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray,
           options: PartitionOptions, seed: int) -> None:
    """The refinement of one level as the options say: two-direction passes, then FM passes."""
    refine_two_direction(graph, part, bw, max_weights, options.lp_refine_passes, seed)
    refine_fm(graph, part, bw, max_weights, options.fm_passes, options.fm_stop_fraction, seed + 1)
