"""Small Numba kernels shared by every phase: cut, block weights, seeded hashing, an addressable max-heap.

Conventions for every kernel in this package: `indptr` int64, `indices` int32, `edge_weights` int64 aligned
with `indices`, vertex weights int64 of shape (n, ncon), block ids int32.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def mix_hash(x, seed):
    """splitmix64 of (x, seed) as a non-negative int64: a seeded pseudo-random priority of x.

    Used for every tie-break and random order so results depend on the seed only, never on thread timing.
    """
    z = np.uint64(x) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed) * np.uint64(0xBF58476D1CE4E5B9) \
        + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


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
def block_weights(vertex_weights, part, k):
    """(k, ncon) sums of vertex weights per block."""
    n, ncon = vertex_weights.shape
    bw = np.zeros((k, ncon), dtype=np.int64)
    for v in range(n):
        b = part[v]
        for c in range(ncon):
            bw[b, c] += vertex_weights[v, c]
    return bw


@njit(cache=True, nogil=True)
def fits(bw, b, vertex_weights, v, max_weights):
    """True when block b can take vertex v without exceeding its maximum in any constraint."""
    for c in range(bw.shape[1]):
        if bw[b, c] + vertex_weights[v, c] > max_weights[b, c]:
            return False
    return True


@njit(cache=True, nogil=True)
def overload(bw, b, max_weights):
    """How far block b is above its maximum, summed over constraints relative to each maximum (0 if within)."""
    s = 0.0
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c]:
            s += (bw[b, c] - max_weights[b, c]) / max(max_weights[b, c], 1)
    return s


# ---------------------------------------------------------------- addressable binary max-heap
# heap: int32 vertex ids in heap order; key: int64 key per vertex; pos: int64 position per vertex (-1 = absent);
# size: int64 array of length 1.

@njit(cache=True, nogil=True)
def heap_sift_up(heap, key, pos, i):
    v = heap[i]
    kv = key[v]
    while i > 0:
        parent = (i - 1) >> 1
        u = heap[parent]
        if key[u] >= kv:
            break
        heap[i] = u
        pos[u] = i
        i = parent
    heap[i] = v
    pos[v] = i


@njit(cache=True, nogil=True)
def heap_sift_down(heap, key, pos, size, i):
    v = heap[i]
    kv = key[v]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and key[heap[child + 1]] > key[heap[child]]:
            child += 1
        u = heap[child]
        if key[u] <= kv:
            break
        heap[i] = u
        pos[u] = i
        i = child
    heap[i] = v
    pos[v] = i


@njit(cache=True, nogil=True)
def heap_push_or_update(heap, key, pos, size, v, k):
    """Insert v with key k, or change its key when present."""
    if pos[v] < 0:
        i = size[0]
        size[0] += 1
        heap[i] = v
        pos[v] = i
        key[v] = k
        heap_sift_up(heap, key, pos, i)
    else:
        old = key[v]
        key[v] = k
        if k > old:
            heap_sift_up(heap, key, pos, pos[v])
        else:
            heap_sift_down(heap, key, pos, size[0], pos[v])


@njit(cache=True, nogil=True)
def heap_remove(heap, key, pos, size, v):
    """Remove v when present."""
    i = pos[v]
    if i < 0:
        return
    pos[v] = -1
    size[0] -= 1
    last = size[0]
    if i == last:
        return
    u = heap[last]
    heap[i] = u
    pos[u] = i
    heap_sift_up(heap, key, pos, i)
    heap_sift_down(heap, key, pos, size[0], pos[u])


@njit(cache=True, nogil=True)
def heap_pop(heap, key, pos, size):
    """Remove and return the vertex with the largest key."""
    v = heap[0]
    heap_remove(heap, key, pos, size, v)
    return v


@njit(cache=True, nogil=True)
def edge_cut_serial(indptr, indices, edge_weights, part):
    """`edge_cut` without a parallel region (for the many small graphs of initial partitioning)."""
    n = indptr.shape[0] - 1
    total = 0
    for v in range(n):
        pv = part[v]
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] != pv:
                total += edge_weights[e]
    return total // 2
