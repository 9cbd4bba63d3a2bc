"""Numba kernels of the rebalancer: move vertices out of overloaded blocks at the least cut cost."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.vertex._partition_kernels import (
    fits, heap_pop, heap_push_or_update, heap_remove)
from apportion.partitioning.vertex._refine_kernels import gather_connectivity


@njit(cache=True, nogil=True)
def _is_overloaded(bw, b, max_weights):
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c]:
            return True
    return False


@njit(cache=True, nogil=True)
def _relieves(bw, b, vertex_weights, v, max_weights):
    """True when moving v out of block b lowers some constraint in which b is overloaded."""
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c] and vertex_weights[v, c] > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _rebalance_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn, touched):
    """Best destination for v leaving its overloaded block: the adjacent block that fits with the largest
    connection, else the non-adjacent block that fits with the most relative room; (block, gain) or (-1, 0).
    """
    k = bw.shape[0]
    own = part[v]
    count = gather_connectivity(v, indptr, indices, edge_weights, part, conn, touched)
    own_conn = conn[own]
    best = -1
    best_conn = -1
    for j in range(count):
        b = touched[j]
        if b != own and conn[b] > best_conn and fits(bw, b, vertex_weights, v, max_weights):
            best = b
            best_conn = conn[b]
    for j in range(count):
        conn[touched[j]] = 0
    if best >= 0:
        return best, best_conn - own_conn
    room_best = -1.0
    for b in range(k):
        if b == own or not fits(bw, b, vertex_weights, v, max_weights):
            continue
        room = 1.0
        for c in range(bw.shape[1]):
            r = (max_weights[b, c] - bw[b, c]) / max(max_weights[b, c], 1)
            room = min(room, r)
        if room > room_best:
            room_best = room
            best = b
    if best < 0:
        return -1, 0
    return best, -own_conn


@njit(cache=True, nogil=True)
def rebalance(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, rounds):
    """Move vertices out of blocks above their maximum weight (any constraint) until none is, choosing at each
    step the vertex whose move costs the least cut (largest gain) among those that relieve an overloaded
    constraint and fit their destination. Updates part and bw; returns True when every block is within its
    limits.
    """
    n = indptr.shape[0] - 1
    k = bw.shape[0]
    ncon = vertex_weights.shape[1]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.zeros(k, dtype=np.int32)
    heap = np.empty(n, dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    for r in range(rounds):
        any_over = False
        for b in range(k):
            if _is_overloaded(bw, b, max_weights):
                any_over = True
        if not any_over:
            return True
        for v in range(n):
            own = part[v]
            if not _relieves(bw, own, vertex_weights, v, max_weights):
                continue
            b, g = _rebalance_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched)
            if b >= 0:
                heap_push_or_update(heap, key, pos, size, v, g)
        while size[0] > 0:
            v = heap_pop(heap, key, pos, size)
            popped = key[v]
            own = part[v]
            if not _relieves(bw, own, vertex_weights, v, max_weights):
                continue
            b, g = _rebalance_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched)
            if b < 0:
                continue
            if g < popped:
                heap_push_or_update(heap, key, pos, size, v, g)
                continue
            for c in range(ncon):
                bw[own, c] -= vertex_weights[v, c]
                bw[b, c] += vertex_weights[v, c]
            part[v] = b
            # neighbours in overloaded blocks now have other gains
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if pos[u] < 0:
                    continue
                if not _relieves(bw, part[u], vertex_weights, u, max_weights):
                    heap_remove(heap, key, pos, size, u)
                    continue
                bu, gu = _rebalance_move(u, indptr, indices, edge_weights, vertex_weights, part, bw,
                                         max_weights, conn, touched)
                if bu < 0:
                    heap_remove(heap, key, pos, size, u)
                else:
                    heap_push_or_update(heap, key, pos, size, u, gu)
    for b in range(k):
        if _is_overloaded(bw, b, max_weights):
            return False
    return True


@njit(cache=True, nogil=True)
def pack_greedily(vertex_weights, part, bw, max_weights, order):
    """Last-resort balance repair: vertices of overloaded blocks, taken in `order` (heaviest first), go to the
    block with the most relative room that fits them. Updates part and bw; returns True on success.
    """
    k = bw.shape[0]
    ncon = vertex_weights.shape[1]
    for i in range(order.shape[0]):
        v = order[i]
        own = part[v]
        if not _relieves(bw, own, vertex_weights, v, max_weights):
            continue
        best = -1
        room_best = -1.0
        for b in range(k):
            if b == own or not fits(bw, b, vertex_weights, v, max_weights):
                continue
            room = 1.0
            for c in range(ncon):
                room = min(room, (max_weights[b, c] - bw[b, c]) / max(max_weights[b, c], 1))
            if room > room_best:
                room_best = room
                best = b
        if best >= 0:
            for c in range(ncon):
                bw[own, c] -= vertex_weights[v, c]
                bw[best, c] += vertex_weights[v, c]
            part[v] = best
    for b in range(k):
        if _is_overloaded(bw, b, max_weights):
            return False
    return True
