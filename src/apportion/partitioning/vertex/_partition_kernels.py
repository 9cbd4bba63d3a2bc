"""Small Numba kernels shared by every phase: cut, block weights, fit and overload tests, a stable argsort,
vertices grouped by block.

The seeded hash (`mix_hash`) and the addressable heap every phase uses are the project's shared primitives in
`apportion._kernels` (`hashing`, `heap`).

Conventions for every kernel in this package: `indptr` int64, `indices` int32, `edge_weights` aligned with
`indices`, int32 while their total allows and int64 above (`contract.edge_weight_dtype`; sums of them are
int64), vertex weights int64 of shape (n, ncon), block ids int32.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from apportion._chunked import balanced_bounds, run_chunked, thread_budget
from apportion._kernels.arrays import VERTEX_WEIGHTS
from apportion._kernels.prefetch import ARCS_AHEAD, prefetch


@njit(cache=True, nogil=True)
def edge_cut(indptr, indices, edge_weights, part):
    """Total weight of edges with ends in different blocks, each undirected edge counted once (serial: it runs
    once per partition, and a parallel kernel costs seconds of compilation on a cold cache)."""
    n = indptr.shape[0] - 1
    total = 0
    for v in range(n):
        pv = part[v]
        s = 0
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] != pv:
                s += edge_weights[e]
        total += s
    return total // 2


@njit(cache=True, nogil=True)
def edge_cut_chunks(first, stride, chunks, indptr, indices, edge_weights, part, sums):
    """`edge_cut`'s sum for chunks first, first + stride, ... of `chunks` static slices of the vertices
    (`apportion._chunked`), twice per edge: sums[t] = chunk t's share."""
    n = indptr.shape[0] - 1
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        s = 0
        for v in range((n * t) // chunks, (n * (t + 1)) // chunks):
            pv = part[v]
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:  # the block of the neighbour a few arcs on (a random read)
                    prefetch(part, indices[e + ARCS_AHEAD])
                if part[indices[e]] != pv:
                    s += edge_weights[e]
        sums[t] = s


#: graphs with fewer adjacency entries have their cut counted on one thread
PARALLEL_CUT_MIN_ENTRIES = 1 << 20


def edge_cut_parallel(indptr, indices, edge_weights, part) -> int:
    """`edge_cut` on every thread (the final partition's cut: 0.19 s on one thread for rmat 2^21's 64 M arcs)."""
    if indices.shape[0] < PARALLEL_CUT_MIN_ENTRIES:
        return int(edge_cut(indptr, indices, edge_weights, part))
    chunks = 4 * thread_budget()
    sums = np.zeros(chunks, dtype=np.int64)
    run_chunked(edge_cut_chunks, chunks, indptr, indices, edge_weights, part, sums)
    return int(sums.sum()) // 2


@njit(cache=True, nogil=True)
def block_weights(vertex_weights, part, k):
    """(k, ncon) sums of vertex weights per block."""
    n, ncon = vertex_weights.shape
    bw = np.zeros((k, ncon), dtype=np.int64)
    for v in range(n):
        b = part[v]
        for c in range(ncon):
            bw[b, c] += vertex_weights[v, c]
    return bw


@njit((types.int64[:, ::1], types.int64, VERTEX_WEIGHTS, types.int64, types.int64[:, ::1]), cache=True, nogil=True)
def fits(bw, b, vertex_weights, v, max_weights):
    """True when block b can take vertex v without exceeding its maximum in any constraint."""
    for c in range(bw.shape[1]):
        if bw[b, c] + vertex_weights[v, c] > max_weights[b, c]:
            return False
    return True


@njit("(int64[:, ::1], int64, int64[:, ::1])", cache=True, nogil=True)
def overload(bw, b, max_weights):
    """How far block b is above its maximum, summed over constraints relative to each maximum (0 if within)."""
    s = 0.0
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c]:
            s += (bw[b, c] - max_weights[b, c]) / max(max_weights[b, c], 1)
    return s


#: `stable_argsort` insertion-sorts runs of this many entries before merging them
_SORT_RUN = 32


@njit(cache=True, nogil=True)
def stable_argsort(keys):
    """The int64 indices that sort `keys` ascending, equal keys in index order: the same result as
    np.argsort(keys, kind="mergesort"). A bottom-up merge sort over insertion-sorted runs, written out so
    that the kernels share one small compiled sort: each np.argsort call site compiled its own quicksort or
    timsort, seconds of every cold start per kernel."""
    n = keys.shape[0]
    order = np.arange(n)
    for lo in range(0, n, _SORT_RUN):
        hi = min(lo + _SORT_RUN, n)
        for i in range(lo + 1, hi):
            x = order[i]
            kx = keys[x]
            j = i - 1
            while j >= lo and keys[order[j]] > kx:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
    if n <= _SORT_RUN:
        return order
    other = np.empty(n, dtype=np.int64)
    width = _SORT_RUN
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            out = lo
            while i < mid and j < hi:
                if keys[order[j]] < keys[order[i]]:
                    other[out] = order[j]
                    j += 1
                else:
                    other[out] = order[i]
                    i += 1
                out += 1
            while i < mid:
                other[out] = order[i]
                i += 1
                out += 1
            while j < hi:
                other[out] = order[j]
                j += 1
                out += 1
        order, other = other, order
        width *= 2
    return order


@njit(cache=True, nogil=True)
def vertices_by_block(vertices, part, k):
    """`vertices` grouped by their block (values of `part` in 0..k - 1), in their given order within each (a
    stable counting sort, O(len + k)): (grouped, block_ptr), block b's at grouped[block_ptr[b]:block_ptr[b + 1]].
    Flow refinement's pairs read their own blocks' boundary vertices from it instead of scanning all of them
    four times (`strong` on a 1000² grid at k = 8192: its refinement 34.3 -> 3.6 s, the same cut); deep
    multilevel splits each group of blocks as the subgraph of its vertices."""
    block_ptr = np.zeros(k + 1, dtype=np.int64)
    for i in range(vertices.shape[0]):
        block_ptr[part[vertices[i]] + 1] += 1
    for b in range(k):
        block_ptr[b + 1] += block_ptr[b]
    fill = block_ptr[:k].copy()
    grouped = np.empty(vertices.shape[0], dtype=vertices.dtype)
    for i in range(vertices.shape[0]):
        b = part[vertices[i]]
        grouped[fill[b]] = vertices[i]
        fill[b] += 1
    return grouped, block_ptr


@njit(cache=True, nogil=True)
def hub_block_bound_chunks(first, stride, chunks, bounds, indptr, indices, edge_weights, hub, part, sums):
    """`hub_block_bound`'s two sums for chunks first, first + stride, ... of the vertex ranges
    bounds[t]:bounds[t + 1] (`apportion._chunked`), twice per edge: sums[t] = (across, rest_cut) of chunk t."""
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        across = 0
        rest_cut = 0
        for v in range(bounds[t], bounds[t + 1]):
            hv = hub[v]
            pv = part[v]
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:  # the neighbour a few arcs on (two random reads)
                    prefetch(hub, indices[e + ARCS_AHEAD])
                    prefetch(part, indices[e + ARCS_AHEAD])
                u = indices[e]
                if hv != hub[u]:
                    across += edge_weights[e]
                elif not hv and pv != part[u]:
                    rest_cut += edge_weights[e]
        sums[t, 0] = across
        sums[t, 1] = rest_cut


def hub_block_bound(indptr, indices, edge_weights, hub, part) -> tuple[int, int]:
    """(the edge weight between the vertices with `hub` set and the others, the edge weight among the others
    that `part` cuts): what a hub block would cut for sure, and the cut of its rest under `part` — together an
    estimate of the hub-block candidate's cut made before the rest is partitioned (`periphery.py`). On every
    thread (rmat 2^21's core, 64 M arcs: 0.58 s on one)."""
    chunks = 4 * thread_budget() if indices.shape[0] >= PARALLEL_CUT_MIN_ENTRIES else 1
    sums = np.zeros((chunks, 2), dtype=np.int64)
    run_chunked(hub_block_bound_chunks, chunks, balanced_bounds(indptr, chunks), indptr, indices,
                edge_weights, hub, part, sums)
    across, rest_cut = sums.sum(axis=0)
    return int(across) // 2, int(rest_cut) // 2
