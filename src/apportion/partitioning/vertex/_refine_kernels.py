"""Numba kernels of refinement: the two-direction request-buffer refiner and k-way FM.

`part` (int32) and `bw` (block weights, int64 (k, ncon)) are updated in place; `max_weights` (k, ncon) are the
limits no accepted move may exceed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from apportion.partitioning.vertex._partition_kernels import (
    fits, heap_pop, heap_push_or_update, heap_remove, mix_hash)


@njit(cache=True, nogil=True)
def gather_connectivity(v, indptr, indices, edge_weights, part, conn, touched):
    """conn[b] = weight of v's edges into block b for the touched blocks; returns how many were touched.

    `conn` must be all zero on entry; the caller clears conn[touched[:count]] afterwards.
    """
    count = 0
    for e in range(indptr[v], indptr[v + 1]):
        b = part[indices[e]]
        if conn[b] == 0:
            touched[count] = b
            count += 1
        conn[b] += edge_weights[e]
    return count


@njit(cache=True, nogil=True)
def best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn, touched):
    """The best feasible move of v to an adjacent block: (block, gain) or (-1, 0) when there is none.

    Gain = connection to the new block - connection to the own block (the cut decrease). Ties go to the block
    with the lower load relative to its limit.
    """
    own = part[v]
    count = gather_connectivity(v, indptr, indices, edge_weights, part, conn, touched)
    own_conn = conn[own]
    best = -1
    best_conn = -1
    best_load = 2.0
    for j in range(count):
        b = touched[j]
        if b == own:
            continue
        cb = conn[b]
        if cb < best_conn:
            continue
        if not fits(bw, b, vertex_weights, v, max_weights):
            continue
        load = bw[b, 0] / max(max_weights[b, 0], 1)
        if cb > best_conn or load < best_load:
            best = b
            best_conn = cb
            best_load = load
    for j in range(count):
        conn[touched[j]] = 0
    if best < 0:
        return -1, 0
    return best, best_conn - own_conn


@njit(cache=True, nogil=True, parallel=True)
def file_requests(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k, direction, seed,
                  target, gain, rank, chunks):
    """Step 1 of a half-pass (seed 000 ch. 4.3.4, kernel 1): every vertex files its best positive-gain move to a
    block with a higher id (direction 0) or a lower id (direction 1) that fits on its own; target[v] = -1 when
    it has none. `chunks` static slices of the vertices run in parallel (any number gives the same result).
    Returns the number of requests."""
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    filed = np.zeros(chunks, dtype=np.int64)
    for t in prange(chunks):
        conn = np.zeros(k, dtype=np.int64)
        touched = np.zeros(k, dtype=np.int32)
        for v in range((n * t) // chunks, (n * (t + 1)) // chunks):
            target[v] = -1
            own = part[v]
            count = 0
            for e in range(indptr[v], indptr[v + 1]):
                a = part[indices[e]]
                if conn[a] == 0:
                    touched[count] = a
                    count += 1
                conn[a] += edge_weights[e]
            own_conn = conn[own]
            best = -1
            best_conn = own_conn
            for j in range(count):
                b = touched[j]
                if (direction == 0 and b <= own) or (direction == 1 and b >= own):
                    continue
                cb = conn[b]
                if cb <= best_conn:
                    continue
                room = True
                for c in range(ncon):
                    if bw[b, c] + vertex_weights[v, c] > max_weights[b, c]:
                        room = False
                if room:
                    best = b
                    best_conn = cb
            for j in range(count):
                conn[touched[j]] = 0
            if best >= 0:
                target[v] = best
                gain[v] = best_conn - own_conn
                rank[v] = mix_hash(v, seed)
                filed[t] += 1
    return filed.sum()


@njit(cache=True, nogil=True, parallel=True)
def afterburner(indptr, indices, edge_weights, part, target, gain, rank):
    """Step 2 (Gilbert, Madduri, Boman and Rajamanickam, Jet, 2023): recompute each request's gain assuming
    every request of higher priority (gain, then rank) was executed; returns the ids whose gain stays positive.
    """
    n = indptr.shape[0] - 1
    keep = np.zeros(n, dtype=np.bool_)
    for v in prange(n):
        b = target[v]
        if b < 0:
            continue
        own = part[v]
        g = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            bu = part[u]
            tu = target[u]
            if tu >= 0 and (gain[u] > gain[v] or (gain[u] == gain[v] and rank[u] > rank[v])):
                bu = tu
            if bu == b:
                g += edge_weights[e]
            elif bu == own:
                g -= edge_weights[e]
        if g > 0:
            keep[v] = True
    return np.flatnonzero(keep)


@njit(cache=True, nogil=True)
def accept_requests(vertex_weights, bw, max_weights, candidates, target, gain):
    """Step 3 (seed 000 ch. 4.3.4, kernel 2): each destination block takes its requests by decreasing gain
    while it stays within its maximum weight (departures are not credited, so the check is conservative).
    Returns the accepted vertex ids."""
    ncon = vertex_weights.shape[1]
    keys = np.empty(candidates.shape[0], dtype=np.int64)
    for i in range(candidates.shape[0]):
        keys[i] = -gain[candidates[i]]
    order = np.argsort(keys, kind="mergesort")
    incoming = bw.copy()
    accepted = np.empty(candidates.shape[0], dtype=np.int64)
    count = 0
    for i in range(order.shape[0]):
        v = candidates[order[i]]
        b = target[v]
        if fits(incoming, b, vertex_weights, v, max_weights):
            for c in range(ncon):
                incoming[b, c] += vertex_weights[v, c]
            accepted[count] = v
            count += 1
    return accepted[:count]


@njit(cache=True, nogil=True, parallel=True)
def apply_if_not_worse(indptr, indices, edge_weights, vertex_weights, part, bw, accepted, target):
    """Execute the accepted moves unless together they increase the cut (then undo them); the exact cut change
    is summed over the moved vertices' edges. Updates part and bw; returns the cut decrease (>= 0), or -1 when
    the moves were undone."""
    ncon = vertex_weights.shape[1]
    na = accepted.shape[0]
    old_part = part.copy()
    for i in range(na):
        v = accepted[i]
        part[v] = target[v]
    twice_delta = 0
    for i in prange(na):
        v = accepted[i]
        d = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            factor = 1 if old_part[u] != part[u] else 2  # an edge between two moved vertices is seen twice
            now = 1 if part[u] != part[v] else 0
            before = 1 if old_part[u] != old_part[v] else 0
            d += factor * edge_weights[e] * (now - before)
        twice_delta += d
    if twice_delta > 0:
        for i in range(na):
            v = accepted[i]
            part[v] = old_part[v]
        return -1
    for i in range(na):
        v = accepted[i]
        for c in range(ncon):
            bw[old_part[v], c] -= vertex_weights[v, c]
            bw[part[v], c] += vertex_weights[v, c]
    return -twice_delta // 2


@njit(cache=True, nogil=True)
def kway_fm(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k, passes, stop_fraction,
            seed):
    """k-way Fiduccia-Mattheyses refinement (Fiduccia and Mattheyses 1982; Sanders and Schulz, KaFFPa).

    Every boundary vertex sits in a max-heap keyed by the gain of its best feasible move. A pass moves the
    top vertex (negative gains allowed, each vertex at most once per pass), updates its neighbours' keys, and
    stops after a run of non-improving moves; it then rolls back to the best prefix seen. Every move keeps all
    blocks within max_weights, so balance is kept; the cut never increases.

    Returns the total cut decrease.
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.zeros(k, dtype=np.int32)
    heap = np.empty(n, dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    locked = np.full(n, -1, dtype=np.int64)
    log_vertex = np.empty(n, dtype=np.int32)
    log_from = np.empty(n, dtype=np.int32)
    total_gain = 0
    for p in range(passes):
        boundary = 0
        for v in range(n):
            own = part[v]
            is_boundary = False
            for e in range(indptr[v], indptr[v + 1]):
                if part[indices[e]] != own:
                    is_boundary = True
                    break
            if not is_boundary:
                continue
            boundary += 1
            b, g = best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn,
                             touched)
            if b >= 0:
                heap_push_or_update(heap, key, pos, size, v, g)
        limit = max(64, int(stop_fraction * boundary))
        moves = 0
        current = 0
        best = 0
        best_moves = 0
        since_best = 0
        while size[0] > 0:
            v = heap_pop(heap, key, pos, size)
            popped = key[v]
            b, g = best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn,
                             touched)
            if b < 0:
                continue
            if g < popped:
                heap_push_or_update(heap, key, pos, size, v, g)
                continue
            own = part[v]
            for c in range(ncon):
                bw[own, c] -= vertex_weights[v, c]
                bw[b, c] += vertex_weights[v, c]
            part[v] = b
            locked[v] = p
            log_vertex[moves] = v
            log_from[moves] = own
            moves += 1
            current += g
            if current > best:
                best = current
                best_moves = moves
                since_best = 0
            else:
                since_best += 1
                if since_best > limit:
                    break
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if locked[u] == p:
                    continue
                bu, gu = best_move(u, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched)
                if bu < 0:
                    heap_remove(heap, key, pos, size, u)
                else:
                    heap_push_or_update(heap, key, pos, size, u, gu)
        while size[0] > 0:
            heap_pop(heap, key, pos, size)
        for i in range(moves - 1, best_moves - 1, -1):
            v = log_vertex[i]
            b = part[v]
            a = log_from[i]
            for c in range(ncon):
                bw[b, c] -= vertex_weights[v, c]
                bw[a, c] += vertex_weights[v, c]
            part[v] = a
        total_gain += best
        if best <= 0:
            break
    return total_gain
