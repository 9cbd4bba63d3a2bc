"""Numba kernels behind `apportion.graph.metrics`: one pass over the CSR per metric family."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def vertex_partition_counts(indptr, indices, edge_weights, weighted, assignment, k, block_pairs):
    """Cut (each undirected edge once), communication volume and boundary-vertex count of a vertex partition.

    For every vertex v the distinct foreign blocks among its neighbours are marked (stamp = v + 1) and each is
    written to `block_pairs` as a[v]·k + b (capacity 2m suffices). Returns (cut, volume, boundary); `volume` is
    also the number of entries written to `block_pairs`.
    """
    n = indptr.shape[0] - 1
    stamp = np.zeros(k, dtype=np.int64)
    cut2 = 0
    volume = 0
    boundary = 0
    for v in range(n):
        own = assignment[v]
        foreign = 0
        for p in range(indptr[v], indptr[v + 1]):
            b = assignment[indices[p]]
            if b != own:
                cut2 += edge_weights[p] if weighted else 1
                if stamp[b] != v + 1:
                    stamp[b] = v + 1
                    block_pairs[volume] = own * k + b
                    volume += 1
                    foreign += 1
        if foreign > 0:
            boundary += 1
    return cut2 // 2, volume, boundary


@njit(cache=True, nogil=True)
def entry_edge_ids(indptr, indices):
    """For every CSR entry, the index of its undirected edge in canonical order (u < v, by u then v).

    Entries with indices[p] > v are the canonical edges in CSR order. Visiting rows in ascending v, the lower
    entry (v → w, w < v) meets the upper entries of row w in ascending v as well, so a cursor per row finds
    its twin without sorting.
    """
    n = indptr.shape[0] - 1
    edge_id = np.empty(indices.shape[0], dtype=np.int64)
    cursor = np.empty(n, dtype=np.int64)  # next upper entry of each row
    first_upper = np.empty(n, dtype=np.int64)
    next_id = 0
    for v in range(n):
        start = indptr[v]
        stop = indptr[v + 1]
        p = start
        while p < stop and indices[p] < v:
            p += 1
        first_upper[v] = next_id
        cursor[v] = next_id
        next_id += stop - p
    for v in range(n):
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if w > v:
                edge_id[p] = cursor[v]
                cursor[v] += 1
        # the upper entries of v are numbered; rewind so the lower entries of later rows can take them in order
        cursor[v] = first_upper[v]
    for v in range(n):
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if w < v:
                edge_id[p] = cursor[w]
                cursor[w] += 1
    return edge_id


@njit(cache=True, nogil=True)
def parts_per_vertex(indptr, edge_id, assignment, k):
    """p_v: the number of distinct parts among the edges incident to each vertex (0 for isolated vertices)."""
    n = indptr.shape[0] - 1
    stamp = np.zeros(k, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    for v in range(n):
        c = 0
        for p in range(indptr[v], indptr[v + 1]):
            part = assignment[edge_id[p]]
            if stamp[part] != v + 1:
                stamp[part] = v + 1
                c += 1
        count[v] = c
    return count
