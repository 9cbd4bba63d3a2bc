"""Numba kernels of parallel k-way FM (`parallel_fm.py`): one FM search per owner, side by side, and the merge of
their moves into one partition with its exact cut change."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.vertex._refine_kernels import kway_fm


@njit(cache=True, nogil=True)
def fm_searches_chunk(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, part, frozen, owner,
                      bws, limits, k, passes, stop_fraction, max_patience, seed, seeds, seed_ptr, min_improvement,
                      gains):
    """Searches first, first + stride, ... of `chunks` (one per owner): search t runs `kway_fm` restricted to
    the vertices u with owner[u] == t, seeded with seeds[seed_ptr[t]:seed_ptr[t + 1]], on block weights bws[t]
    under limits[t] (its own copies), writing its moves into `part` (only its own vertices) and seeing every
    other vertex as `frozen` has it; gains[t] = the cut decrease it saw."""
    for t in range(first, chunks, stride):
        gains[t] = kway_fm(indptr, indices, edge_weights, vertex_weights, part, bws[t], limits[t], k, passes,
                           stop_fraction, max_patience, seed + 7 * t, seeds[seed_ptr[t]:seed_ptr[t + 1]],
                           min_improvement, -1, 0, frozen, owner, t)


@njit(cache=True, nogil=True)
def merged_cut_decrease(indptr, indices, edge_weights, frozen, part):
    """(the cut of `frozen` minus the cut of `part`, the vertices whose blocks differ (int32, increasing)): the
    exact effect of every search's moves together, where each search saw only its own (two vertices of different
    searches moved across an edge between them is the one case a search's own count misses)."""
    n = part.shape[0]
    count = 0
    for v in range(n):
        if part[v] != frozen[v]:
            count += 1
    moved = np.empty(count, dtype=np.int32)
    count = 0
    for v in range(n):
        if part[v] != frozen[v]:
            moved[count] = v
            count += 1
    decrease = 0
    for i in range(moved.shape[0]):
        v = moved[i]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u < v and part[u] != frozen[u]:
                continue  # both moved: counted once, from u
            before = 1 if frozen[v] != frozen[u] else 0
            after = 1 if part[v] != part[u] else 0
            decrease += (before - after) * edge_weights[e]
    return decrease, moved


@njit(cache=True, nogil=True)
def border_vertices(indptr, indices, owner, candidates):
    """The vertices of `candidates` with a neighbour of another owner (int32, in the candidates' order): where
    two searches met, each seeing the other's vertices frozen."""
    keep = np.zeros(candidates.shape[0], dtype=np.bool_)
    count = 0
    for i in range(candidates.shape[0]):
        v = candidates[i]
        for e in range(indptr[v], indptr[v + 1]):
            if owner[indices[e]] != owner[v]:
                keep[i] = True
                count += 1
                break
    out = np.empty(count, dtype=np.int32)
    count = 0
    for i in range(candidates.shape[0]):
        if keep[i]:
            out[count] = candidates[i]
            count += 1
    return out


@njit(cache=True, nogil=True)
def seed_block_counts(indptr, indices, part, seeds, seed_owners, searches, k):
    """counts[t, b] (int64, searches x k) = how many of search t's seeds lie in block b or next to it: the
    vertices through which the search may move weight into b."""
    counts = np.zeros((searches, k), dtype=np.int64)
    stamp = np.full(k, -1, dtype=np.int64)
    for i in range(seeds.shape[0]):
        v = seeds[i]
        t = seed_owners[i]
        b = part[v]
        stamp[b] = i
        counts[t, b] += 1
        for e in range(indptr[v], indptr[v + 1]):
            b = part[indices[e]]
            if stamp[b] != i:
                stamp[b] = i
                counts[t, b] += 1
    return counts
