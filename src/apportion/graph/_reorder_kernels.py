"""Numba kernels of `graph/reorder.py`: a breadth-first locality order and the graph renumbered by it.

They walk the vertices in an order they already hold (the breadth-first queue; the new ids), so they prefetch the
rows they will read a few steps ahead (`_kernels.prefetch`): a vertex's row pointer PREFETCH_ROW steps ahead, its
row PREFETCH_ARCS steps ahead, and in the renumbering the new ids of its neighbours PREFETCH_IDS steps ahead.

`bfs_renumbered` does the order and the renumbering in one walk (the partitioner's renumbering): when the
breadth-first queue reaches position i, every neighbour of order[i] has its new id (it was queued before or is
queued now), so new row i is written then, in the order the rows are laid out. One serial pass that reads each
old row once, against a breadth-first pass and then a renumbering on every thread that reads every row again:
delaunay 2^21, memory already mapped, 0.14 + 0.03 + 0.11-0.13 s on 2 threads -> 0.22-0.25 s (the same rows).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.prefetch import prefetch

#: how many queue positions ahead a vertex's row pointer, its row and its neighbours' new ids are prefetched
#: (delaunay 2^21 / 2^22: 16 / 8 gave 0.102 / 0.244 s, 32 / 16 and 64 / 32 the same within 3 %)
PREFETCH_ROW = 16
PREFETCH_ARCS = 8
PREFETCH_IDS = 4


@njit(cache=True, nogil=True)
def bfs_order(indptr, indices):
    """Every vertex once, in breadth-first order from the least unvisited id of each component (a locality
    order: neighbours get near positions). Returns the order in the ids' dtype."""
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=indices.dtype)
    seen = np.zeros(n, dtype=np.uint8)
    head = 0
    tail = 0
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = 1
        order[tail] = root
        tail += 1
        while head < tail:
            if head + PREFETCH_ROW < tail:
                prefetch(indptr, order[head + PREFETCH_ROW])
            if head + PREFETCH_ARCS < tail:
                prefetch(indices, indptr[order[head + PREFETCH_ARCS]])
            v = order[head]
            head += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if not seen[u]:
                    seen[u] = 1
                    order[tail] = u
                    tail += 1
    return order


@njit(cache=True, nogil=True, inline="always")
def _prefetch_ahead(indptr, indices, new_of_old, order, i, limit):
    """Prefetch, for the vertices at positions ahead of i in `order` (below `limit`), a row pointer
    PREFETCH_ROW on, a row PREFETCH_ARCS on and its neighbours' new ids PREFETCH_IDS on."""
    if i + PREFETCH_ROW < limit:
        prefetch(indptr, order[i + PREFETCH_ROW])
    if i + PREFETCH_ARCS < limit:
        prefetch(indices, indptr[order[i + PREFETCH_ARCS]])
    if i + PREFETCH_IDS < limit:
        ahead = order[i + PREFETCH_IDS]
        for e in range(indptr[ahead], indptr[ahead + 1]):
            prefetch(new_of_old, indices[e])


@njit(cache=True, nogil=True, inline="always")
def _insert_sorted(new_indices, new_weights, start, at, u, w, weighted):
    """Put neighbour u (weight w) into the row that begins at `start` and holds at - start sorted entries,
    keeping it sorted (insertion: rows are short where renumbering pays — meshes, geometric and road graphs)."""
    while at > start and new_indices[at - 1] > u:
        new_indices[at] = new_indices[at - 1]
        if weighted:
            new_weights[at] = new_weights[at - 1]
        at -= 1
    new_indices[at] = u
    if weighted:
        new_weights[at] = w


@njit(cache=True, nogil=True)
def renumbered_indptr(indptr, order, new_of_old, new_indptr):
    """new_of_old[order[i]] = i, and the row pointers of the graph whose vertex i is old vertex order[i]."""
    new_indptr[0] = 0
    for i in range(order.shape[0]):
        v = order[i]
        new_of_old[v] = i
        new_indptr[i + 1] = new_indptr[i] + indptr[v + 1] - indptr[v]


@njit(cache=True, nogil=True)
def renumber_chunks(first, stride, chunks, indptr, indices, edge_weights, order, new_of_old, new_indptr,
                    new_indices, new_weights, weighted):
    """Rows of the renumbered graph for chunks first, first + stride, ... of `chunks` static slices of the new
    ids (`apportion._chunked`): new row i is old row order[i] with every neighbour u as new_of_old[u], sorted by
    insertion (`_insert_sorted`), its weights carried along when `weighted`."""
    n = order.shape[0]
    for t in range(first, chunks, stride):
        lo = (n * t) // chunks
        hi = (n * (t + 1)) // chunks
        for i in range(lo, hi):
            _prefetch_ahead(indptr, indices, new_of_old, order, i, hi)
            v = order[i]
            start = new_indptr[i]
            row = indptr[v]
            for j in range(indptr[v + 1] - row):
                w = edge_weights[row + j] if weighted else 0
                _insert_sorted(new_indices, new_weights, start, start + j, new_of_old[indices[row + j]], w, weighted)


@njit(cache=True, nogil=True)
def bfs_renumbered(indptr, indices, edge_weights, weighted, order, new_of_old, new_indptr, new_indices,
                   new_weights):
    """`bfs_order` and `renumbered_indptr` + `renumber_chunks` in that order, in one walk: fills `order`,
    `new_of_old`, and the renumbered graph's rows (neighbour lists sorted, weights carried when `weighted`)."""
    n = indptr.shape[0] - 1
    for v in range(n):
        new_of_old[v] = -1
    new_indptr[0] = 0
    head = 0
    tail = 0
    for root in range(n):
        if new_of_old[root] >= 0:
            continue
        new_of_old[root] = tail
        order[tail] = root
        tail += 1
        while head < tail:
            _prefetch_ahead(indptr, indices, new_of_old, order, head, tail)
            v = order[head]
            start = new_indptr[head]
            row = indptr[v]
            degree = indptr[v + 1] - row
            for j in range(degree):
                u = indices[row + j]
                new_u = new_of_old[u]
                if new_u < 0:
                    new_u = tail
                    new_of_old[u] = tail
                    order[tail] = u
                    tail += 1
                weight = edge_weights[row + j] if weighted else 0
                _insert_sorted(new_indices, new_weights, start, start + j, new_u, weight, weighted)
            new_indptr[head + 1] = start + degree
            head += 1
