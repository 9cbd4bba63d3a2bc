"""numba-cuda heavy-edge matching with the cluster-weight cap (seed 000 ch. 4.3.2): the GPU twin of
`coarsen.mutual_matching`, equal to it label for label.

A round is two launches, one thread per vertex:

1. `_choose`: every unmatched vertex picks its heaviest unmatched neighbour whose merged weight stays within the
   cap in every constraint; equal weights go to the smaller seeded symmetric hash of the edge (`pair_hash`, the
   CPU kernel's `best_in_row` order), so both ends of an edge rank it the same and mutual picks are likely;
2. `_pair`: vertices that picked each other are matched (each thread writes only its own vertex).

Reads and writes of a launch never overlap (choices read `matched` of the round before), so the result depends
on the seed only. Rounds stop after `rounds` or a round that matched nothing (one scalar read back per round).

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._gpu_hash_cuda import kernel_seed, pair_hash_device
from apportion.partitioning.vertex._gpu_scan_cuda import BLOCK, blocks_for


@cuda.jit(cache=False)
def _choose(indptr, indices, edge_weights, vertex_weights, cap, matched, seed, choice):
    v = cuda.grid(1)
    n = indptr.shape[0] - 1
    if v >= n:
        return
    choice[v] = -1
    if matched[v] != 0:
        return
    ncon = vertex_weights.shape[1]
    best = -1
    best_w = np.int64(0)
    best_h = np.int64(0)
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        if matched[u] != 0:
            continue
        fits = True
        for c in range(ncon):
            if vertex_weights[u, c] > cap[c] - vertex_weights[v, c]:
                fits = False
        if not fits:
            continue
        w = edge_weights[e]
        h = pair_hash_device(v, u, seed)
        if best < 0 or w > best_w or (w == best_w and h < best_h):
            best = u
            best_w = w
            best_h = h
    choice[v] = best


@cuda.jit(cache=False)
def _pair(choice, mate, matched_next, found):
    v = cuda.grid(1)
    if v >= choice.shape[0]:
        return
    c = choice[v]
    if c >= 0 and choice[c] == v:
        mate[v] = c
        matched_next[v] = 1
        cuda.atomic.add(found, 0, 1)


@cuda.jit(cache=False)
def _labels(mate, labels):
    v = cuda.grid(1)
    if v >= mate.shape[0]:
        return
    m = mate[v]
    labels[v] = v if m < 0 else min(v, m)


def mutual_matching_cuda(indptr, indices, edge_weights, vertex_weights, cap, rounds: int, seed: int, stream=0):
    """Cluster labels of a heavy-edge matching on device arrays (labels[v] = min(v, mate), v when unmatched),
    int32 device array; equal to `coarsen.mutual_matching` with the same arguments. `cap` is an int64 device
    array (ncon,). The seed of round r is seed + r, as on the CPU."""
    n = indptr.shape[0] - 1
    grid = blocks_for(n)
    mate = cuda.to_device(np.full(max(n, 1), -1, dtype=np.int32), stream=stream)
    matched = cuda.to_device(np.zeros(max(n, 1), dtype=np.int8), stream=stream)
    matched_next = cuda.to_device(np.zeros(max(n, 1), dtype=np.int8), stream=stream)
    choice = cuda.device_array(max(n, 1), dtype=np.int32, stream=stream)
    for r in range(rounds):
        found = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        _choose[grid, BLOCK, stream](indptr, indices, edge_weights, vertex_weights, cap, matched,
                                     kernel_seed(int(seed) + r), choice)
        _pair[grid, BLOCK, stream](choice[:n], mate, matched_next, found)
        if int(found.copy_to_host(stream=stream)[0]) == 0:
            break
        matched.copy_to_device(matched_next, stream=stream)
    labels = cuda.device_array(max(n, 1), dtype=np.int32, stream=stream)
    _labels[grid, BLOCK, stream](mate[:n], labels)
    return labels[:n]
