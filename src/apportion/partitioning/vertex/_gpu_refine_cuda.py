"""numba-cuda Jet refinement of the GPU partitioner (Gilbert et al., "Jet", 2024; seed 000 ch. 4.3.4's parallel
refinement, with Jet's answers to its conflicts), for one vertex-weight constraint.

An iteration on a balanced partition is three launches, one thread per vertex:

1. `_candidates`: every unlocked vertex finds the adjacent other block it is most strongly connected to (ties
   to the smaller block id); it becomes a candidate when the move's gain is >= 0 or its loss is below
   `temperature` times its connection to its own block (Jet's filter: moves of slightly negative gain are
   allowed, so that groups of vertices can move together);
2. `_afterburner`: every candidate recomputes its gain assuming that the candidates of higher priority (larger
   gain, ties to the smaller id) among its neighbours have moved first; only moves still positive survive
   (Jet's afterburner: it removes most of the conflicts of simultaneous moves);
3. `_apply`: survivors move (block weights by integer atomics) and stay locked for the next iteration.

The moves ignore the block limits; an iteration that leaves a block overweight is followed by the weak
rebalancer (`_gpu_rebalance_cuda`). The driver (`jet_refine_cuda`) keeps the best balanced partition seen
(the cut recomputed on the device after every iteration) and returns it, so refinement never returns a worse
cut than a balanced start, and stops after `patience` iterations without improvement. Every decision reads
only the arrays of the launch before, so the result depends on the input only, never on thread timing.

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._gpu_hash_cuda import first_connection, row_table
from apportion.partitioning.vertex._gpu_rebalance_cuda import HASH_MIN_DEGREE, rebalance_cuda
from apportion.partitioning.vertex._gpu_scan_cuda import BLOCK, blocks_for, fill

#: an improvement smaller than this fraction of the cut does not reset the patience counter (Jet's 0.1 %)
MIN_IMPROVEMENT = 0.001


@cuda.jit(cache=False)
def _candidates(indptr, indices, edge_weights, part, locked, temperature, table_keys, table_vals, hash_min_degree,
                dest, gain):
    v = cuda.grid(1)
    n = indptr.shape[0] - 1
    if v >= n:
        return
    dest[v] = -1
    if locked[v] != 0:
        return
    own = part[v]
    lo = indptr[v]
    hi = indptr[v + 1]
    conn_own = np.int64(0)
    for e in range(lo, hi):
        if part[indices[e]] == own:
            conn_own += edge_weights[e]
    best = -1
    best_conn = np.int64(0)
    if hi - lo > hash_min_degree:
        base, size = row_table(indptr, indices, edge_weights, part, v, table_keys, table_vals)
        for slot in range(base, base + size):
            b = table_keys[slot]
            if b == -1 or b == own:
                continue
            conn = table_vals[slot]
            if best < 0 or conn > best_conn or (conn == best_conn and b < best):
                best = b
                best_conn = conn
        lo = hi  # the rescan below is skipped
    for e in range(lo, hi):
        b = part[indices[e]]
        if b == own:
            continue
        conn = first_connection(indices, edge_weights, part, lo, e, hi)
        if conn < 0:
            continue
        if best < 0 or conn > best_conn or (conn == best_conn and b < best):
            best = b
            best_conn = conn
    if best < 0:
        return
    g = best_conn - conn_own
    if g >= 0 or -g < temperature * conn_own:
        dest[v] = best
        gain[v] = g


@cuda.jit(cache=False)
def _afterburner(indptr, indices, edge_weights, part, dest, gain, keep):
    v = cuda.grid(1)
    n = indptr.shape[0] - 1
    if v >= n:
        return
    keep[v] = 0
    d = dest[v]
    if d < 0:
        return
    own = part[v]
    gv = gain[v]
    g = np.int64(0)
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        block = part[u]
        if dest[u] >= 0 and (gain[u] > gv or (gain[u] == gv and u < v)):
            block = dest[u]
        if block == d:
            g += edge_weights[e]
        elif block == own:
            g -= edge_weights[e]
    if g > 0:
        keep[v] = 1


@cuda.jit(cache=False)
def _apply(part, vertex_weights, dest, keep, block_weights, locked):
    v = cuda.grid(1)
    if v >= part.shape[0]:
        return
    locked[v] = keep[v]
    if keep[v] != 0:
        own = part[v]
        d = dest[v]
        part[v] = d
        w = vertex_weights[v, 0]
        cuda.atomic.add(block_weights, own, -w)
        cuda.atomic.add(block_weights, d, w)


@cuda.jit(cache=False)
def _cut_twice(indptr, indices, edge_weights, part, total):
    v = cuda.grid(1)
    if v >= indptr.shape[0] - 1:
        return
    own = part[v]
    mine = np.int64(0)
    for e in range(indptr[v], indptr[v + 1]):
        if part[indices[e]] != own:
            mine += edge_weights[e]
    if mine:
        cuda.atomic.add(total, 0, mine)


@cuda.jit(cache=False)
def _block_weights(part, vertex_weights, block_weights):
    v = cuda.grid(1)
    if v < part.shape[0]:
        cuda.atomic.add(block_weights, part[v], vertex_weights[v, 0])


def edge_cut_cuda(indptr, indices, edge_weights, part, stream=0) -> int:
    """The edge cut of `part` (each undirected edge once), summed on the device and read back."""
    n = part.shape[0]
    total = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    _cut_twice[blocks_for(n), BLOCK, stream](indptr, indices, edge_weights, part, total)
    return int(total.copy_to_host(stream=stream)[0]) // 2


def block_weights_cuda(part, vertex_weights, k: int, stream=0):
    """The block weights (int64 device array (k,)) of `part` under the first vertex-weight constraint."""
    weights = fill(cuda.device_array(k, dtype=np.int64, stream=stream), 0, stream)
    _block_weights[blocks_for(part.shape[0]), BLOCK, stream](part, vertex_weights, weights)
    return weights


def jet_refine_cuda(indptr, indices, edge_weights, vertex_weights, part, k: int, limits, host_limits,
                    patience: int, temperature: float, hash_min_degree: int = HASH_MIN_DEGREE,
                    stream=0) -> tuple[int, np.ndarray]:
    """Jet refinement of `part` (int32 device array, updated in place) under `limits` (int64 device array (k,),
    `host_limits` the same on the host). Returns (cut, block weights) of the result: the best balanced
    partition seen (never a larger cut than a balanced start), or, when none was balanced, the last one.

    Stops after `patience` iterations without an improvement of at least MIN_IMPROVEMENT of the cut (and after
    at most 8 * patience iterations). Rows longer than `hash_min_degree` find their adjacent blocks with a hash
    table in scratch memory (`row_table`), shorter ones by rescanning the row; the result is the same."""
    n = part.shape[0]
    weights = block_weights_cuda(part, vertex_weights, k, stream)
    host_weights = weights.copy_to_host(stream=stream)
    cut = edge_cut_cuda(indptr, indices, edge_weights, part, stream)
    if n == 0 or k == 1 or patience <= 0:
        return cut, host_weights
    balanced = bool(np.all(host_weights <= host_limits))
    best = cuda.device_array(n, dtype=np.int32, stream=stream)
    best_cut = cut if balanced else None
    best_weights = host_weights.copy()
    if balanced:
        best.copy_to_device(part, stream=stream)
    size = max(n, 1)
    locked = fill(cuda.device_array(size, dtype=np.int8, stream=stream), 0, stream)
    dest = cuda.device_array(size, dtype=np.int32, stream=stream)
    gain = cuda.device_array(size, dtype=np.int64, stream=stream)
    keep = cuda.device_array(size, dtype=np.int8, stream=stream)
    table_keys = cuda.device_array(max(2 * int(indices.shape[0]), 1), dtype=np.int32, stream=stream)
    table_vals = cuda.device_array(max(2 * int(indices.shape[0]), 1), dtype=np.int64, stream=stream)
    grid = blocks_for(n)
    stall = 0
    for _ in range(8 * patience):
        if stall >= patience:
            break
        if balanced:
            _candidates[grid, BLOCK, stream](indptr, indices, edge_weights, part, locked, temperature, table_keys,
                                             table_vals, hash_min_degree, dest, gain)
            _afterburner[grid, BLOCK, stream](indptr, indices, edge_weights, part, dest, gain, keep)
            _apply[grid, BLOCK, stream](part, vertex_weights, dest, keep, weights, locked)
            host_weights = weights.copy_to_host(stream=stream)
        else:
            host_weights = rebalance_cuda(indptr, indices, edge_weights, vertex_weights, part, weights, limits,
                                          host_limits, hash_min_degree=hash_min_degree, stream=stream)
            fill(locked, 0, stream)
        cut = edge_cut_cuda(indptr, indices, edge_weights, part, stream)
        balanced = bool(np.all(host_weights <= host_limits))
        if balanced and (best_cut is None or cut < best_cut):
            stall = 0 if best_cut is None or cut < (1.0 - MIN_IMPROVEMENT) * best_cut else stall + 1
            best.copy_to_device(part, stream=stream)
            best_cut = cut
            best_weights = host_weights.copy()
        else:
            stall += 1
    if best_cut is None:
        return cut, host_weights
    part.copy_to_device(best, stream=stream)
    weights.copy_to_device(best_weights, stream=stream)
    return best_cut, best_weights
