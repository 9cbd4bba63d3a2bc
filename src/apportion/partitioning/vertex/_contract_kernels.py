"""Numba kernel of contraction: build the coarse graph from a fine graph and its fine-to-coarse map.

Seed 000 ch. 5.2.2 (segmented sort + flag + prefix sum), written so the index bugs of the thesis's Algorithm
5.3 cannot occur: members are grouped by coarse id with a counting sort, each coarse vertex gathers its
members' relabelled neighbours into its own segment, merging duplicates on the fly through a per-worker
marker array (METIS's and KaMinPar's dense "rating map", in place of the thesis's sort of the raw list) and
dropping self-loops; the merged segment is sorted, and a prefix sum compacts the segments into CSR.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _sort_segment(ids, weights, lo, hi):
    """Sort ids[lo:hi] ascending, carrying weights along (insertion sort when short, argsort otherwise)."""
    length = hi - lo
    if length <= 48:
        for i in range(lo + 1, hi):
            a = ids[i]
            w = weights[i]
            j = i - 1
            while j >= lo and ids[j] > a:
                ids[j + 1] = ids[j]
                weights[j + 1] = weights[j]
                j -= 1
            ids[j + 1] = a
            weights[j + 1] = w
    else:
        order = np.argsort(ids[lo:hi])
        sorted_ids = ids[lo:hi][order]
        sorted_w = weights[lo:hi][order]
        ids[lo:hi] = sorted_ids
        weights[lo:hi] = sorted_w


@njit(cache=True, nogil=True, parallel=True)
def contract(indptr, indices, edge_weights, vertex_weights, cmap, nc, chunks):
    """The coarse graph of (indptr, indices, edge_weights, vertex_weights) under cmap (values in [0, nc)).

    Members are grouped by coarse id with a counting sort; `chunks` static slices of the coarse vertices are
    built in parallel, each with its own marker array over the coarse ids (the position of a neighbour in the
    segment being built), so duplicates merge in one pass without sorting the raw edge list; each merged
    segment is then sorted. The result does not depend on `chunks`.

    Returns (coarse_indptr int64, coarse_indices int32, coarse_edge_weights int64, coarse_vertex_weights
    int64 (nc, ncon)). Coarse neighbour lists are sorted; the coarse graph is simple and symmetric.
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    # counting sort of the fine vertices by coarse id
    member_ptr = np.zeros(nc + 1, dtype=np.int64)
    for v in range(n):
        member_ptr[cmap[v] + 1] += 1
    for c in range(nc):
        member_ptr[c + 1] += member_ptr[c]
    fill = member_ptr[:-1].copy()
    members = np.empty(n, dtype=np.int32)
    for v in range(n):
        c = cmap[v]
        members[fill[c]] = v
        fill[c] += 1
    coarse_vw = np.zeros((nc, ncon), dtype=np.int64)
    bound = np.zeros(nc + 1, dtype=np.int64)
    for c in prange(nc):
        s = 0
        for i in range(member_ptr[c], member_ptr[c + 1]):
            v = members[i]
            s += indptr[v + 1] - indptr[v]
            for j in range(ncon):
                coarse_vw[c, j] += vertex_weights[v, j]
        bound[c + 1] = s
    for c in range(nc):
        bound[c + 1] += bound[c]
    scratch_ids = np.empty(bound[nc], dtype=np.int32)
    scratch_w = np.empty(bound[nc], dtype=np.int64)
    degree = np.zeros(nc + 1, dtype=np.int64)
    for t in prange(chunks):
        mark = np.full(nc, -1, dtype=np.int64)
        for c in range((nc * t) // chunks, (nc * (t + 1)) // chunks):
            lo = bound[c]
            pos = lo
            for i in range(member_ptr[c], member_ptr[c + 1]):
                v = members[i]
                for e in range(indptr[v], indptr[v + 1]):
                    a = cmap[indices[e]]
                    if a == c:
                        continue
                    at = mark[a]
                    if at < 0:
                        mark[a] = pos
                        scratch_ids[pos] = a
                        scratch_w[pos] = edge_weights[e]
                        pos += 1
                    else:
                        scratch_w[at] += edge_weights[e]
            for i in range(lo, pos):
                mark[scratch_ids[i]] = -1
            if pos - lo > 1:
                _sort_segment(scratch_ids, scratch_w, lo, pos)
            degree[c + 1] = pos - lo
    for c in range(nc):
        degree[c + 1] += degree[c]
    coarse_indices = np.empty(degree[nc], dtype=np.int32)
    coarse_w = np.empty(degree[nc], dtype=np.int64)
    for c in prange(nc):
        src = bound[c]
        for i in range(degree[c], degree[c + 1]):
            coarse_indices[i] = scratch_ids[src]
            coarse_w[i] = scratch_w[src]
            src += 1
    return degree, coarse_indices, coarse_w, coarse_vw
