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


@njit(cache=True, nogil=True, inline="always")
def fm_patience(stop_fraction, boundary, max_patience):
    """How many moves without a new best cut an FM pass makes before it gives up: `stop_fraction` of the pass's
    boundary, at least FM_MIN_PATIENCE, at most `max_patience` (0: no cap; `PartitionOptions.fm_max_patience`).
    The moves after the best prefix are undone, so every one of them is work lost, and on large boundaries they
    were most of a pass, while the runs without a new best that did end in one stayed short: the longest
    was 5,374 moves (grid2d 1024², k = 64) over the full benchmark suite at `default` (k = 2-256), 3,719 on
    a 3-D grid of 2^21 vertices and 1,172 on a Barabási-Albert graph of 2^21 vertices (k = 64), where the
    fraction allowed 5,000-26,000 and 523,000 (2026-11-28)."""
    limit = max(FM_MIN_PATIENCE, int(stop_fraction * boundary))
    if max_patience > 0 and limit > max_patience:
        return max_patience
    return limit


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
def block_in_view(u, part, frozen, owner, me):
    """u's block as an FM search restricted to the vertices of owner `me` sees it: its live block when it is one
    of them (or when me < 0: no restriction), else its block in `frozen` (the partition when the search began,
    which other searches running at the same time do not write)."""
    if me < 0 or owner[u] == me:
        return part[u]
    return frozen[u]


@njit(cache=True, nogil=True)
def gather_connectivity_in_view(v, indptr, indices, edge_weights, part, frozen, owner, me, conn, touched):
    """`gather_connectivity` with every neighbour's block as `block_in_view` gives it (its loop again, with the
    owner test: the serial kernel's own loop, the hottest of FM, stays without it)."""
    count = 0
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        b = part[u] if owner[u] == me else frozen[u]
        if conn[b] == 0:
            touched[count] = b
            count += 1
        conn[b] += edge_weights[e]
    return count


@njit(cache=True, nogil=True)
def best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn, touched, frozen,
              owner, me):
    """The best feasible move of v to an adjacent block: (block, gain) or (-1, 0) when there is none; the
    neighbours' blocks as `block_in_view` gives them (me < 0: `part`'s).

    Gain = connection to the new block - connection to the own block (the cut decrease). Ties go to the block
    with the lower load relative to its limit.
    """
    own = part[v]
    if me < 0:
        count = gather_connectivity(v, indptr, indices, edge_weights, part, conn, touched)
    else:
        count = gather_connectivity_in_view(v, indptr, indices, edge_weights, part, frozen, owner, me, conn,
                                            touched)
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
def boundary_flag_chunks(first, stride, chunks, indptr, indices, part, keep):
    """keep[v] = whether vertex v has a neighbour in another block, for the vertex ranges of chunks first,
    first + stride, ... of `chunks` equal slices of 0..n-1 (`apportion._chunked`)."""
    n = indptr.shape[0] - 1
    for t in range(first, chunks, stride):
        for v in range((n * t) // chunks, (n * (t + 1)) // chunks):
            keep[v] = _is_boundary(v, indptr, indices, part)


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


# A request of the two-direction refiner is kept at its vertex's position i in the list of the half-pass
# (`vertices`, the boundary): request[v] = i, req_block[i] and req_gain[i]; its tie-breaking rank is recomputed
# (`mix_hash(v, seed)`) where it is needed. Only `request` has n entries (int32): n-sized block, gain and rank
# arrays (20 bytes a vertex, 42 MB at 2^21 vertices) were the finest level's peak memory.

@njit(cache=True, nogil=True)
def file_requests(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k,
                  direction, seed, request, req_block, req_gain, vertices, filed):
    """Step 1 of a half-pass (seed 000 ch. 4.3.4, kernel 1): every vertex of `vertices` (the boundary) files its
    best positive-gain move to a block with a higher id (direction 0) or a lower id (direction 1) that fits on
    its own (request[v] = its position i in the list, req_block[i] the block, req_gain[i] the gain); request[v]
    = -1 when it has none. Handles chunks first, first + stride, ... of `chunks` static slices of the list
    (`apportion._chunked`; any split gives the same result); filed[t] = the requests of chunk t."""
    nv = vertices.shape[0]
    ncon = vertex_weights.shape[1]
    conn = np.zeros(k, dtype=np.int64)  # all zero again after every vertex
    touched = np.zeros(k, dtype=np.int32)
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        filed[t] = 0
        for i in range((nv * t) // chunks, (nv * (t + 1)) // chunks):
            v = vertices[i]
            request[v] = -1
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
                request[v] = i
                req_block[i] = best
                req_gain[i] = best_conn - own_conn
                filed[t] += 1


@njit(cache=True, nogil=True)
def afterburner(first, stride, chunks, indptr, indices, edge_weights, part, request, req_block, req_gain, seed,
                vertices, keep):
    """Step 2 (Gilbert, Madduri, Boman and Rajamanickam, Jet, 2023): recompute each request's gain assuming
    every request of higher priority (gain, then the rank `mix_hash(vertex, seed)`) was executed; keep[i] =
    whether the gain of vertices[i] stays positive. Handles chunks first, first + stride, ... of `chunks` static
    slices of the list. Vertices outside the list must have request -1.
    """
    nv = vertices.shape[0]
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        for i in range((nv * t) // chunks, (nv * (t + 1)) // chunks):
            v = vertices[i]
            keep[i] = False
            if request[v] < 0:
                continue
            b = req_block[i]
            gv = req_gain[i]
            own = part[v]
            g = 0
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    ahead = indices[e + ARCS_AHEAD]
                    prefetch(part, ahead)
                    prefetch(request, ahead)
                u = indices[e]
                bu = part[u]
                iu = request[u]
                if iu >= 0:
                    gu = req_gain[iu]
                    if gu > gv or (gu == gv and mix_hash(u, seed) > mix_hash(v, seed)):
                        bu = req_block[iu]
                if bu == b:
                    g += edge_weights[e]
                elif bu == own:
                    g -= edge_weights[e]
            if g > 0:
                keep[i] = True


@njit(cache=True, nogil=True)
def accept_requests(vertex_weights, bw, max_weights, vertices, kept, req_block, req_gain):
    """Step 3 (seed 000 ch. 4.3.4, kernel 2): each destination block takes its requests (the positions `kept`
    of the list `vertices`) by decreasing gain while it stays within its maximum weight (departures are not
    credited, so the check is conservative). Returns (the accepted vertex ids, their blocks)."""
    ncon = vertex_weights.shape[1]
    keys = np.empty(kept.shape[0], dtype=np.int64)
    for i in range(kept.shape[0]):
        keys[i] = -req_gain[kept[i]]
    order = stable_argsort(keys)
    incoming = bw.copy()
    accepted = np.empty(kept.shape[0], dtype=np.int32)  # int32 ids, as the moved vertices' elsewhere
    blocks = np.empty(kept.shape[0], dtype=np.int32)
    count = 0
    for i in range(order.shape[0]):
        j = kept[order[i]]
        v = vertices[j]
        b = req_block[j]
        if fits(incoming, b, vertex_weights, v, max_weights):
            for c in range(ncon):
                incoming[b, c] += vertex_weights[v, c]
            accepted[count] = v
            blocks[count] = b
            count += 1
    return accepted[:count], blocks[:count]


@njit(cache=True, nogil=True)
def apply_if_not_worse(indptr, indices, edge_weights, vertex_weights, part, bw, accepted, blocks, request):
    """Execute the accepted moves (accepted[i] to blocks[i]) unless together they increase the cut (then undo
    them); the exact cut change is summed over the moved vertices' edges. `request` (n entries, -1 at every
    accepted vertex when it returns) marks the moved vertices meanwhile, so that no copy of `part` is needed.
    Updates part and bw; returns the cut decrease (>= 0), or -1 when the moves were undone."""
    ncon = vertex_weights.shape[1]
    na = accepted.shape[0]
    old = np.empty(na, dtype=np.int32)
    for i in range(na):
        v = accepted[i]
        old[i] = part[v]
        part[v] = blocks[i]
        request[v] = -2 - i  # moved, its old block at old[i]
    twice_delta = 0
    for i in range(na):
        v = accepted[i]
        d = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            mark = request[u]
            moved = mark <= -2
            old_u = old[-2 - mark] if moved else part[u]
            factor = 1 if moved else 2  # an edge between two moved vertices is seen twice
            now = 1 if part[u] != part[v] else 0
            before = 1 if old_u != old[i] else 0
            d += factor * edge_weights[e] * (now - before)
        twice_delta += d
    for i in range(na):
        request[accepted[i]] = -1
    if twice_delta > 0:
        for i in range(na):
            part[accepted[i]] = old[i]
        return -1
    for i in range(na):
        v = accepted[i]
        for c in range(ncon):
            bw[old[i], c] -= vertex_weights[v, c]
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


# The per-vertex state of k-way FM lives in slots handed out to the vertices it touches (the seeds, the vertices
# pushed on its heap, the moved vertices' neighbours), not in arrays of n entries: on the finest level of a
# 2^21-vertex mesh at k = 64 FM is seeded with a boundary of 39 k vertices (1.9 %), and its n-sized arrays
# (41 bytes a vertex, 86 MB) were the partitioner's peak memory. Only the vertex -> slot map has n entries.
#: the columns of FM's slot table (int32, one row per touched vertex)
_SLOT_VERTEX, _SLOT_LOCKED, _SLOT_CHECKED, _SLOT_AIM, _SLOT_LISTED = 0, 1, 2, 3, 4
_SLOT_FIELDS = 5
#: slots FM starts with at least (they double when used up)
FM_MIN_SLOTS = 1024


@njit(cache=True, nogil=True)
def fm_slots_grown(n, state, key, pos, heap, log, candidates):
    """The slot arrays of `kway_fm` with twice the room (at most n), their rows copied."""
    cap = state.shape[0]
    room = min(2 * cap, n)
    new_state = np.empty((room, _SLOT_FIELDS), dtype=np.int32)
    new_state[:cap] = state
    new_key = np.zeros(room, dtype=np.int64)
    new_key[:cap] = key
    new_pos = np.full(room, -1, dtype=np.int32)
    new_pos[:cap] = pos
    new_heap = np.empty(room, dtype=np.int32)
    new_heap[:cap] = heap
    new_log = np.empty((room, 2), dtype=np.int32)
    new_log[:cap] = log
    new_candidates = np.empty(room, dtype=np.int32)
    new_candidates[:cap] = candidates
    return new_state, new_key, new_pos, new_heap, new_log, new_candidates


@njit(cache=True, nogil=True)
def fm_new_slot(v, n, slot, state, key, pos, heap, log, candidates, used):
    """Give vertex v (which has none) slot `used`, growing the arrays when they are full: not locked, not
    checked, no aim, not listed. Returns (its slot, slots used, the arrays)."""
    if used == state.shape[0]:
        state, key, pos, heap, log, candidates = fm_slots_grown(n, state, key, pos, heap, log, candidates)
    slot[v] = used
    state[used, _SLOT_VERTEX] = v
    state[used, _SLOT_LOCKED] = -1
    state[used, _SLOT_CHECKED] = -1
    state[used, _SLOT_AIM] = -1
    state[used, _SLOT_LISTED] = 0
    return used, used + 1, state, key, pos, heap, log, candidates


@njit(cache=True, nogil=True)
def kway_fm(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k, passes, stop_fraction,
            max_patience, seed, vertices, min_improvement, give_up_above, min_slots, frozen, owner, me):
    """k-way Fiduccia-Mattheyses refinement (Fiduccia and Mattheyses 1982; Sanders and Schulz, KaFFPa).

    Every boundary vertex sits in a max-heap keyed by the gain of its best feasible move. A pass moves the
    top vertex (negative gains allowed, each vertex at most once per pass), updates its neighbours' keys, and
    stops after a run of non-improving moves (`fm_patience`); it then rolls back to the best prefix seen. Every
    move keeps all blocks within max_weights, so balance is kept; the cut never increases.

    Only vertices of `vertices` (a superset of the boundary) seed the heap of the first pass; later passes
    also consider the vertices moved by the previous one and their neighbours. Passes stop once one lowers
    the cut by less than `min_improvement` times the cut at the start, or once the cut cannot come down to
    `give_up_above` (>= 0; -1: never) as `fm_passes_end` predicts.

    The state of a vertex (heap key and position, the pass that moved or recounted it, its aimed block) is
    kept in a slot of its own, handed out when FM first needs it (the comment above `_SLOT_FIELDS`); the heap
    holds slots. It starts with room for `min_slots` of them (0: max(FM_MIN_SLOTS, 2 len(vertices)); the result
    is the same whatever the room).

    With me >= 0 the search is one of several running at the same time on disjoint vertex sets (`parallel_fm`):
    it moves, seeds and lists only the vertices u with owner[u] == me, sees every other vertex in its block of
    `frozen` (`block_in_view`), and keeps `bw` and `max_weights` of its own. me < 0: every vertex (owner and
    frozen unused). Returns the total cut decrease as the search sees it.
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    nv = vertices.shape[0]
    slot = np.full(n, -1, dtype=np.int32)
    cap = max(1, min(n, min_slots if min_slots > 0 else max(FM_MIN_SLOTS, 2 * nv)))
    state = np.empty((cap, _SLOT_FIELDS), dtype=np.int32)
    key = np.zeros(cap, dtype=np.int64)
    pos = np.full(cap, -1, dtype=np.int32)
    heap = np.empty(cap, dtype=np.int32)
    log = np.empty((cap, 2), dtype=np.int32)  # per move: the slot moved, the block it left
    candidates = np.empty(cap, dtype=np.int32)  # slots, in the order they were listed
    used = 0
    ncand = 0
    for i in range(nv):
        v = vertices[i]
        s = slot[v]
        if s < 0:
            s, used, state, key, pos, heap, log, candidates = fm_new_slot(v, n, slot, state, key, pos, heap, log,
                                                                          candidates, used)
        if state[s, _SLOT_LISTED] == 0:
            state[s, _SLOT_LISTED] = 1
            candidates[ncand] = s
            ncand += 1
    conn = np.zeros(k, dtype=np.int64)
    touched = np.zeros(k, dtype=np.int32)
    size = np.zeros(1, dtype=np.int64)
    twice_cut = 0
    for i in range(ncand):
        v = state[candidates[i], _SLOT_VERTEX]
        for e in range(indptr[v], indptr[v + 1]):
            if block_in_view(indices[e], part, frozen, owner, me) != part[v]:
                twice_cut += edge_weights[e]
    total_gain = 0
    previous_gain = np.int64(0)  # not a literal: one compiled copy of `fm_passes_end`
    for p in range(passes):
        boundary = 0
        for i in range(ncand):
            s = candidates[i]
            v = state[s, _SLOT_VERTEX]
            own = part[v]
            is_boundary = False
            for e in range(indptr[v], indptr[v + 1]):
                if block_in_view(indices[e], part, frozen, owner, me) != own:
                    is_boundary = True
                    break
            if not is_boundary:
                continue
            boundary += 1
            b, g = best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn,
                             touched, frozen, owner, me)
            if b >= 0:
                state[s, _SLOT_AIM] = b
                heap_push_or_update(heap, key, pos, size, s, g)
        limit = fm_patience(stop_fraction, boundary, max_patience)
        moves = 0
        current = 0
        best = 0
        best_moves = 0
        since_best = 0
        while size[0] > 0:
            s = heap_pop(heap, key, pos, size)
            v = state[s, _SLOT_VERTEX]
            popped = key[s]
            b, g = best_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn,
                             touched, frozen, owner, me)
            if b < 0:
                continue
            if g < popped:
                state[s, _SLOT_AIM] = b
                heap_push_or_update(heap, key, pos, size, s, g)
                continue
            own = part[v]
            for c in range(ncon):
                bw[own, c] -= vertex_weights[v, c]
                bw[b, c] += vertex_weights[v, c]
            part[v] = b
            state[s, _SLOT_LOCKED] = p
            log[moves, 0] = s
            log[moves, 1] = own
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
                if me >= 0 and owner[u] != me:
                    continue  # another search's vertex: frozen in this one's view
                su = slot[u]
                if su >= 0 and state[su, _SLOT_LOCKED] == p:
                    continue
                if indptr[u + 1] - indptr[u] > EXACT_UPDATE_DEGREE:
                    # a hub: no O(deg u) recount per neighbouring move (O(deg^2) on power-law graphs). Its key
                    # stays the exact gain of moving it to the block it aimed at, updated in O(1); a better
                    # block appearing meanwhile is found when it is popped and recounted.
                    if su >= 0 and pos[su] >= 0:
                        w = edge_weights[e]
                        delta = 0
                        if part[u] == own:
                            delta += w
                        elif part[u] == b:
                            delta -= w
                        aim = state[su, _SLOT_AIM]
                        if aim == own:
                            delta -= w
                        elif aim == b:
                            delta += w
                        if delta != 0:
                            heap_push_or_update(heap, key, pos, size, su, key[su] + delta)
                        continue
                    if su < 0:
                        su, used, state, key, pos, heap, log, candidates = fm_new_slot(
                            u, n, slot, state, key, pos, heap, log, candidates, used)
                    if state[su, _SLOT_CHECKED] == p:
                        continue
                    state[su, _SLOT_CHECKED] = p
                bu, gu = best_move(u, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched, frozen, owner, me)
                if bu < 0:
                    if su >= 0:
                        heap_remove(heap, key, pos, size, su)
                else:
                    if su < 0:
                        su, used, state, key, pos, heap, log, candidates = fm_new_slot(
                            u, n, slot, state, key, pos, heap, log, candidates, used)
                    state[su, _SLOT_AIM] = bu
                    heap_push_or_update(heap, key, pos, size, su, gu)
        while size[0] > 0:
            heap_pop(heap, key, pos, size)
        for i in range(moves - 1, best_moves - 1, -1):
            v = state[log[i, 0], _SLOT_VERTEX]
            b = part[v]
            a = log[i, 1]
            for c in range(ncon):
                bw[b, c] -= vertex_weights[v, c]
                bw[a, c] += vertex_weights[v, c]
            part[v] = a
        total_gain += best
        if fm_passes_end(best, previous_gain, twice_cut // 2 - total_gain, twice_cut // 2, min_improvement,
                         give_up_above):
            break
        previous_gain = best
        # the next pass's seeds: the kept moves' vertices and their neighbours, each listed once
        for i in range(best_moves):
            v = state[log[i, 0], _SLOT_VERTEX]
            for j in range(-1, indptr[v + 1] - indptr[v]):
                u = v if j < 0 else indices[indptr[v] + j]
                if me >= 0 and owner[u] != me:
                    continue
                su = slot[u]
                if su < 0:
                    su, used, state, key, pos, heap, log, candidates = fm_new_slot(
                        u, n, slot, state, key, pos, heap, log, candidates, used)
                if state[su, _SLOT_LISTED] == 0:
                    state[su, _SLOT_LISTED] = 1
                    candidates[ncand] = su
                    ncand += 1
    return total_gain
