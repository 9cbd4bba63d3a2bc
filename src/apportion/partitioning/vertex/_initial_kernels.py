"""Numba kernel of initial partitioning: greedy graph growing (GGGP, Karypis and Kumar 1998)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.vertex._partition_kernels import heap_pop, heap_push_or_update, mix_hash, stable_argsort


@njit(cache=True, nogil=True)
def grow_bisection(indptr, indices, edge_weights, vertex_weights, target0, max0, start, seed):
    """Grow block 0 from `start` by always adding the frontier vertex with the largest gain (edge weight into
    block 0 minus edge weight out of it) until block 0 reaches `target0` on average over the constraints;
    everything else is block 1. A vertex that would push block 0 above `max0` is skipped. Disconnected graphs
    restart from the next vertex of a seeded random order.

    Returns part (int32, values 0/1).
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    part = np.ones(n, dtype=np.int32)
    w0 = np.zeros(ncon, dtype=np.int64)
    heap = np.empty(n, dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    hashes = np.empty(n, dtype=np.int64)
    for v in range(n):
        hashes[v] = mix_hash(v, seed)
    restart_order = stable_argsort(hashes)
    next_restart = 0
    heap_push_or_update(heap, key, pos, size, start, 0)
    active = 0
    for c in range(ncon):
        if target0[c] > 0:
            active += 1
    if active == 0:
        return part
    while True:
        reached = 0.0
        for c in range(ncon):
            if target0[c] > 0:
                reached += min(w0[c] / target0[c], 1.0)
        if reached >= active - 1e-9:
            break
        if size[0] == 0:
            while next_restart < n and part[restart_order[next_restart]] == 0:
                next_restart += 1
            if next_restart >= n:
                break
            v = restart_order[next_restart]
            next_restart += 1
            heap_push_or_update(heap, key, pos, size, v, 0)
        v = heap_pop(heap, key, pos, size)
        if part[v] == 0:
            continue
        over = False
        for c in range(ncon):
            if w0[c] + vertex_weights[v, c] > max0[c]:
                over = True
        if over:
            continue
        part[v] = 0
        for c in range(ncon):
            w0[c] += vertex_weights[v, c]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if part[u] == 0:
                continue
            if pos[u] >= 0:
                heap_push_or_update(heap, key, pos, size, u, key[u] + 2 * edge_weights[e])
            else:
                g = 0
                for f in range(indptr[u], indptr[u + 1]):
                    if part[indices[f]] == 0:
                        g += edge_weights[f]
                    else:
                        g -= edge_weights[f]
                heap_push_or_update(heap, key, pos, size, u, g)
    return part


@njit(cache=True, nogil=True)
def induced_subgraph(indptr, indices, edge_weights, vertex_weights, vertices):
    """The subgraph induced by `vertices` (sorted ids): (indptr, indices int32, edge_weights, vertex_weights)."""
    n = indptr.shape[0] - 1
    m = vertices.shape[0]
    new_id = np.full(n, -1, dtype=np.int64)
    for i in range(m):
        new_id[vertices[i]] = i
    sub_ptr = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        v = vertices[i]
        d = 0
        for e in range(indptr[v], indptr[v + 1]):
            if new_id[indices[e]] >= 0:
                d += 1
        sub_ptr[i + 1] = sub_ptr[i] + d
    sub_idx = np.empty(sub_ptr[m], dtype=np.int32)
    sub_w = np.empty(sub_ptr[m], dtype=np.int64)
    j = 0
    for i in range(m):
        v = vertices[i]
        for e in range(indptr[v], indptr[v + 1]):
            a = new_id[indices[e]]
            if a >= 0:
                sub_idx[j] = a
                sub_w[j] = edge_weights[e]
                j += 1
    sub_vw = np.empty((m, vertex_weights.shape[1]), dtype=np.int64)
    for i in range(m):
        for c in range(vertex_weights.shape[1]):
            sub_vw[i, c] = vertex_weights[vertices[i], c]
    return sub_ptr, sub_idx, sub_w, sub_vw
