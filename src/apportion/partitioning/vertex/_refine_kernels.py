"""Numba kernels of refinement: the two-direction request-buffer refiner and k-way FM.

`part` (int32) and `bw` (block weights, int64 (k, ncon)) are updated in place; `max_weights` (k, ncon) are the
limits no accepted move may exceed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from apportion._kernels.arrays import INDICES, INDPTR, with_edge_weights
from apportion._kernels.hashing import mix_hash
from apportion._kernels.heap import heap_pop, heap_push_or_update, heap_remove
from apportion._kernels.prefetch import ARCS_AHEAD, prefetch
from apportion.partitioning.vertex._partition_kernels import (
    fits, stable_argsort)


#: k-way FM recounts a neighbour's best move after every move only when its degree is at most this
EXACT_UPDATE_DEGREE = 64

#: an FM pass gives up after at least this many moves without a new best cut
FM_MIN_PATIENCE = 256


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit(with_edge_weights((types.int64, INDPTR, INDICES), (types.int32[::1], types.int64[::1], types.int32[::1])),
      cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _is_boundary(v, indptr, indices, part):
    own = part[v]
    for e in range(indptr[v], indptr[v + 1]):
        if part[indices[e]] != own:
            return True
    return False


@njit(cache=True, nogil=True)
def boundary_vertices(indptr, indices, part, candidates):
    """The vertices of `candidates` with a neighbour in another block, in list order (int32)."""
    nc = candidates.shape[0]
    keep = np.zeros(nc, dtype=np.bool_)
    for i in range(nc):
        keep[i] = _is_boundary(candidates[i], indptr, indices, part)
    return candidates[keep]


@njit(cache=True, nogil=True)
def touched_vertices(indptr, indices, previous, moved):
    """Sorted ids of `previous` plus the moved vertices and their neighbours (int32): every vertex whose
    boundary status or gains a set of moves can have changed, together with the old boundary."""
    n = indptr.shape[0] - 1
    flag = np.zeros(n, dtype=np.bool_)
    for i in range(previous.shape[0]):
        flag[previous[i]] = True
    for i in range(moved.shape[0]):
        v = moved[i]
        flag[v] = True
        for e in range(indptr[v], indptr[v + 1]):
            flag[indices[e]] = True
    return np.flatnonzero(flag).astype(np.int32)


@njit(cache=True, nogil=True)
def file_requests(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k,
                  direction, seed, target, gain, rank, vertices, filed):
    """Step 1 of a half-pass (seed 000 ch. 4.3.4, kernel 1): every vertex of `vertices` (the boundary) files its
    best positive-gain move to a block with a higher id (direction 0) or a lower id (direction 1) that fits on
    its own; target[v] = -1 when it has none. Handles chunks first, first + stride, ... of `chunks` static
    slices of the list (`apportion._chunked`; any split gives the same result); filed[t] = the requests of
    chunk t."""
    nv = vertices.shape[0]
    ncon = vertex_weights.shape[1]
    conn = np.zeros(k, dtype=np.int64)  # all zero again after every vertex
    touched = np.zeros(k, dtype=np.int32)
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        filed[t] = 0
        for i in range((nv * t) // chunks, (nv * (t + 1)) // chunks):
            v = vertices[i]
            target[v] = -1
            own = part[v]
            count = 0
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    prefetch(part, indices[e + ARCS_AHEAD])
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


@njit(cache=True, nogil=True)
def afterburner(first, stride, chunks, indptr, indices, edge_weights, part, target, gain, rank, vertices, keep):
    """Step 2 (Gilbert, Madduri, Boman and Rajamanickam, Jet, 2023): recompute each request's gain assuming
    every request of higher priority (gain, then rank) was executed; keep[i] = whether the gain of vertices[i]
    stays positive. Handles chunks first, first + stride, ... of `chunks` static slices of the list. Vertices
    outside the list must have target -1.
    """
    nv = vertices.shape[0]
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        for i in range((nv * t) // chunks, (nv * (t + 1)) // chunks):
            v = vertices[i]
            b = target[v]
            keep[i] = False
            if b < 0:
                continue
            own = part[v]
            g = 0
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    ahead = indices[e + ARCS_AHEAD]
                    prefetch(part, ahead)
                    prefetch(target, ahead)
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
                keep[i] = True


@njit(cache=True, nogil=True)
def accept_requests(vertex_weights, bw, max_weights, candidates, target, gain):
    """Step 3 (seed 000 ch. 4.3.4, kernel 2): each destination block takes its requests by decreasing gain
    while it stays within its maximum weight (departures are not credited, so the check is conservative).
    Returns the accepted vertex ids."""
    ncon = vertex_weights.shape[1]
    keys = np.empty(candidates.shape[0], dtype=np.int64)
    for i in range(candidates.shape[0]):
        keys[i] = -gain[candidates[i]]
    order = stable_argsort(keys)
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


@njit(cache=True, nogil=True)
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
    for i in range(na):
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
def fm_candidates(n, vertices):
    """(listed flags, the candidate list with room for every vertex, its length): an FM run's first seeds."""
    listed = np.zeros(n, dtype=np.bool_)
    candidates = np.empty(n, dtype=np.int32)
    ncand = vertices.shape[0]
    for i in range(ncand):
        candidates[i] = vertices[i]
        listed[vertices[i]] = True
    return listed, candidates, ncand


@njit(cache=True, nogil=True)
def list_moved_and_neighbours(indptr, indices, moved, count, listed, candidates, ncand):
    """Append moved[:count] and their neighbours to the candidates (each vertex once): the next FM pass's
    seeds. Returns the new length."""
    for i in range(count):
        v = moved[i]
        if not listed[v]:
            listed[v] = True
            candidates[ncand] = v
            ncand += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if not listed[u]:
                listed[u] = True
                candidates[ncand] = u
                ncand += 1
    return ncand


@njit(cache=True, nogil=True)
def fm_passes_end(gain, previous_gain, cut_after, start_cut, min_improvement, give_up_above):
    """Whether FM stops after a pass that lowered the cut by `gain` to `cut_after` (the pass before it gained
    `previous_gain`; 0 before the second pass): when the pass gained nothing, or less than `min_improvement`
    times `start_cut`; or, with `give_up_above` >= 0 (the cut of an alternative partition the caller holds),
    when the cut could not come down to `give_up_above` even if the passes went on gaining less and less in
    the ratio r of the last two (a geometric series: gain * r / (1 - r) more at most). FM's passes do gain less
    and less; the rule needs two of them, so the first pass always runs."""
    if gain <= 0 or gain < min_improvement * start_cut:
        return True
    if give_up_above < 0 or previous_gain <= 0 or gain >= previous_gain:
        return False
    return cut_after - gain * gain / (previous_gain - gain) > give_up_above


@njit(cache=True, nogil=True)
def kway_fm(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k, passes, stop_fraction,
            seed, vertices, min_improvement, give_up_above):
    """k-way Fiduccia-Mattheyses refinement (Fiduccia and Mattheyses 1982; Sanders and Schulz, KaFFPa).

    Every boundary vertex sits in a max-heap keyed by the gain of its best feasible move. A pass moves the
    top vertex (negative gains allowed, each vertex at most once per pass), updates its neighbours' keys, and
    stops after a run of non-improving moves; it then rolls back to the best prefix seen. Every move keeps all
    blocks within max_weights, so balance is kept; the cut never increases.

    Only vertices of `vertices` (a superset of the boundary) seed the heap of the first pass; later passes
    also consider the vertices moved by the previous one and their neighbours. Passes stop once one lowers
    the cut by less than `min_improvement` times the cut at the start, or once the cut cannot come down to
    `give_up_above` (>= 0; -1: never) as `fm_passes_end` predicts.

    Returns the total cut decrease.
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    listed, candidates, ncand = fm_candidates(n, vertices)
    conn = np.zeros(k, dtype=np.int64)
    touched = np.zeros(k, dtype=np.int32)
    heap = np.empty(n, dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int32)
    size = np.zeros(1, dtype=np.int64)
    locked = np.full(n, -1, dtype=np.int32)  # the pass that moved the vertex (int32: 4 bytes a vertex less)
    checked = np.full(n, -1, dtype=np.int32)  # the pass that last recounted it
    aim = np.full(n, -1, dtype=np.int32)
    log_vertex = np.empty(n, dtype=np.int32)
    log_from = np.empty(n, dtype=np.int32)
    twice_cut = 0
    for i in range(ncand):
        v = candidates[i]
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] != part[v]:
                twice_cut += edge_weights[e]
    total_gain = 0
    previous_gain = np.int64(0)  # not a literal: one compiled copy of `fm_passes_end`
    for p in range(passes):
        boundary = 0
        for i in range(ncand):
            v = candidates[i]
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
                aim[v] = b
                heap_push_or_update(heap, key, pos, size, v, g)
        limit = max(FM_MIN_PATIENCE, int(stop_fraction * boundary))
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
                aim[v] = b
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
                if indptr[u + 1] - indptr[u] > EXACT_UPDATE_DEGREE:
                    # a hub: no O(deg u) recount per neighbouring move (O(deg^2) on power-law graphs). Its key
                    # stays the exact gain of moving it to the block it aimed at (aim[u]), updated in O(1); a
                    # better block appearing meanwhile is found when it is popped and recounted.
                    if pos[u] >= 0:
                        w = edge_weights[e]
                        delta = 0
                        if part[u] == own:
                            delta += w
                        elif part[u] == b:
                            delta -= w
                        if aim[u] == own:
                            delta -= w
                        elif aim[u] == b:
                            delta += w
                        if delta != 0:
                            heap_push_or_update(heap, key, pos, size, u, key[u] + delta)
                        continue
                    if checked[u] == p:
                        continue
                    checked[u] = p
                bu, gu = best_move(u, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched)
                if bu < 0:
                    heap_remove(heap, key, pos, size, u)
                else:
                    aim[u] = bu
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
        if fm_passes_end(best, previous_gain, twice_cut // 2 - total_gain, twice_cut // 2, min_improvement,
                         give_up_above):
            break
        previous_gain = best
        ncand = list_moved_and_neighbours(indptr, indices, log_vertex, best_moves, listed, candidates, ncand)
    return total_gain
