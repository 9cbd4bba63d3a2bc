"""Numba kernels of the rebalancer: move vertices out of overloaded blocks at the least cut cost."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from apportion._kernels.arrays import INDICES, INDPTR, VERTEX_WEIGHTS, with_edge_weights
from apportion._kernels.heap import heap_pop, heap_push_or_update, heap_remove
from apportion.partitioning.vertex._partition_kernels import (
    fits, stable_argsort)
from apportion.partitioning.vertex._refine_kernels import gather_connectivity
from apportion.partitioning.vertex._room_tree_kernels import (
    build_room_tree, new_room_tree, roomiest_except, update_room)


@njit(cache=True, nogil=True)
def _is_overloaded(bw, b, max_weights):
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c]:
            return True
    return False


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit((types.int64[:, ::1], types.int64, VERTEX_WEIGHTS, types.int64, types.int64[:, ::1]), cache=True, nogil=True)
def _relieves(bw, b, vertex_weights, v, max_weights):
    """True when moving v out of block b lowers some constraint in which b is overloaded."""
    for c in range(bw.shape[1]):
        if bw[b, c] > max_weights[b, c] and vertex_weights[v, c] > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _room(bw, max_weights, b):
    """Block b's relative room: the smallest over constraints of (max - weight) / max, at most 1."""
    room = 1.0
    for c in range(bw.shape[1]):
        room = min(room, (max_weights[b, c] - bw[b, c]) / max(max_weights[b, c], 1))
    return room


@njit(with_edge_weights((types.int64, INDPTR, INDICES), (VERTEX_WEIGHTS, types.int32[::1], types.int64[:, ::1],
                                                         types.int64[:, ::1], types.int64[::1], types.int32[::1],
                                                         types.float64[::1], types.int64[::1])),
      cache=True, nogil=True)
def _rebalance_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, conn, touched, rooms,
                    tree):
    """Best destination for v leaving its overloaded block: the adjacent block that fits with the largest
    connection, else the non-adjacent block that fits with the most relative room (`_room`, the lowest such
    block on a tie); (block, gain) or (-1, 0). `rooms` and `tree` hold every block's room
    (`_room_tree_kernels`): the roomiest block but v's own answers at once when v fits it, the scan of the
    k blocks runs only when it does not (path 10^6 at k = 10^6: 5.9 s of scans).
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
    roomiest = roomiest_except(tree, rooms, own)
    if roomiest >= 0 and rooms[roomiest] > -1.0 and fits(bw, roomiest, vertex_weights, v, max_weights):
        return roomiest, -own_conn
    room_best = -1.0
    for b in range(k):
        if b == own or not fits(bw, b, vertex_weights, v, max_weights):
            continue
        room = _room(bw, max_weights, b)
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
    pos = np.full(n, -1, dtype=np.int32)
    size = np.zeros(1, dtype=np.int64)
    rooms = np.empty(k, dtype=np.float64)
    for b in range(k):
        rooms[b] = _room(bw, max_weights, b)
    tree = new_room_tree(k)
    build_room_tree(tree, rooms)
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
                                   conn, touched, rooms, tree)
            if b >= 0:
                heap_push_or_update(heap, key, pos, size, v, g)
        while size[0] > 0:
            v = heap_pop(heap, key, pos, size)
            popped = key[v]
            own = part[v]
            if not _relieves(bw, own, vertex_weights, v, max_weights):
                continue
            b, g = _rebalance_move(v, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                                   conn, touched, rooms, tree)
            if b < 0:
                continue
            if g < popped:
                heap_push_or_update(heap, key, pos, size, v, g)
                continue
            for c in range(ncon):
                bw[own, c] -= vertex_weights[v, c]
                bw[b, c] += vertex_weights[v, c]
            part[v] = b
            rooms[own] = _room(bw, max_weights, own)
            update_room(tree, rooms, own)
            rooms[b] = _room(bw, max_weights, b)
            update_room(tree, rooms, b)
            # neighbours in overloaded blocks now have other gains
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if pos[u] < 0:
                    continue
                if not _relieves(bw, part[u], vertex_weights, u, max_weights):
                    heap_remove(heap, key, pos, size, u)
                    continue
                bu, gu = _rebalance_move(u, indptr, indices, edge_weights, vertex_weights, part, bw,
                                         max_weights, conn, touched, rooms, tree)
                if bu < 0:
                    heap_remove(heap, key, pos, size, u)
                else:
                    heap_push_or_update(heap, key, pos, size, u, gu)
    for b in range(k):
        if _is_overloaded(bw, b, max_weights):
            return False
    return True


@njit(cache=True, nogil=True)
def _exchange(vertex_weights, part, bw, v, u, dest):
    """Move v to block `dest` and, when u >= 0, u (a vertex of `dest`) to v's block; the block weights follow."""
    source = part[v]
    for c in range(bw.shape[1]):
        delta = vertex_weights[v, c] - (vertex_weights[u, c] if u >= 0 else 0)
        bw[source, c] -= delta
        bw[dest, c] += delta
    part[v] = dest
    if u >= 0:
        part[u] = source


@njit(cache=True, nogil=True)
def _swap_out(vertex_weights, part, bw, max_weights, source):
    """Exchange a vertex of overloaded block `source` for a vertex of another block so that `source` loses
    weight in its overloaded constraints and neither block ends above its limits in any other constraint
    (needed with several constraints when no single move fits). Candidates: the 64 best of each side by
    weight ratio. Returns False when no such exchange exists among them."""
    n, ncon = vertex_weights.shape
    k = bw.shape[0]
    limit = 64
    over = np.zeros(ncon, dtype=np.bool_)
    for c in range(ncon):
        over[c] = bw[source, c] > max_weights[source, c]
    score = np.empty(n, dtype=np.float64)
    for v in range(n):
        a = 1e-9
        b = 1e-9
        for c in range(ncon):
            share = vertex_weights[v, c] / max(max_weights[source, c], 1)
            if over[c]:
                a += share
            else:
                b += share
        score[v] = a / b if part[v] == source else b / a
    order = stable_argsort(-score)
    out_list = np.empty(limit, dtype=np.int64)
    n_out = 0
    for i in range(n):
        v = order[i]
        if part[v] == source and n_out < limit:
            out_list[n_out] = v
            n_out += 1
    best_gain = 0.0
    best_v = -1
    best_u = -1
    for dest in range(k):
        if dest == source:
            continue
        in_list = np.empty(limit, dtype=np.int64)
        n_in = 0
        for i in range(n):
            u = order[i]
            if part[u] == dest and n_in < limit:
                in_list[n_in] = u
                n_in += 1
        for i in range(n_out):
            v = out_list[i]
            for j in range(n_in):
                u = in_list[j]
                ok = True
                relief = 0.0
                for c in range(ncon):
                    delta = vertex_weights[v, c] - vertex_weights[u, c]
                    if bw[dest, c] + delta > max_weights[dest, c]:
                        ok = False
                        break
                    if over[c]:
                        relief += delta / max(max_weights[source, c], 1)
                    elif bw[source, c] - delta > max_weights[source, c]:
                        ok = False
                        break
                if ok and relief > best_gain:
                    best_gain = relief
                    best_v = v
                    best_u = u
    if best_v < 0:
        return False
    _exchange(vertex_weights, part, bw, best_v, best_u, part[best_u])
    return True


@njit(cache=True, nogil=True)
def pack_greedily(vertex_weights, part, bw, max_weights, max_moves):
    """Last-resort balance repair, for when cut-driven rebalancing got stuck (mostly several constraints).

    Repeatedly takes an overloaded block and moves out the vertex that relieves its overloaded constraints the
    most relative to what it adds in the others (sum of weight / limit over overloaded constraints, divided by
    the same sum over the rest), to the block with the most relative room that fits it. O(n) per move, at most
    `max_moves` moves. Updates part and bw; returns True when every block meets its limits.
    """
    n, ncon = vertex_weights.shape
    k = bw.shape[0]
    for step in range(max_moves):
        source = -1
        for b in range(k):
            if _is_overloaded(bw, b, max_weights):
                source = b
                break
        if source < 0:
            return True
        best_v = -1
        best_dest = -1
        best_score = -1.0
        for v in range(n):
            if part[v] != source:
                continue
            relief = 0.0
            burden = 1e-9
            for c in range(ncon):
                share = vertex_weights[v, c] / max(max_weights[source, c], 1)
                if bw[source, c] > max_weights[source, c]:
                    relief += share
                else:
                    burden += share
            if relief <= 0.0:
                continue
            score = relief / burden
            if score <= best_score:
                continue
            dest = -1
            room_best = -1.0
            for b in range(k):
                if b == source or not fits(bw, b, vertex_weights, v, max_weights):
                    continue
                room = 1.0
                for c in range(ncon):
                    room = min(room, (max_weights[b, c] - bw[b, c]) / max(max_weights[b, c], 1))
                if room > room_best:
                    room_best = room
                    dest = b
            if dest >= 0:
                best_v = v
                best_dest = dest
                best_score = score
        if best_v < 0:
            if not _swap_out(vertex_weights, part, bw, max_weights, source):
                return False
            continue
        for c in range(ncon):
            bw[source, c] -= vertex_weights[best_v, c]
            bw[best_dest, c] += vertex_weights[best_v, c]
        part[best_v] = best_dest
    for b in range(k):
        if _is_overloaded(bw, b, max_weights):
            return False
    return True


@njit(cache=True, nogil=True)
def _room_after(bw, max_weights, vertex_weights, v, b):
    """Block b's relative room left after taking v: the smallest over constraints of (max - weight) / max."""
    room = 1e300
    for c in range(bw.shape[1]):
        room = min(room, (max_weights[b, c] - bw[b, c] - vertex_weights[v, c]) / max(max_weights[b, c], 1))
    return room


@njit(cache=True, nogil=True)
def _same_weights(vertex_weights, u, v):
    for c in range(vertex_weights.shape[1]):
        if vertex_weights[u, c] != vertex_weights[v, c]:
            return False
    return True


@njit(cache=True, nogil=True)
def place_isolated(vertex_weights, vertices, part, bw, max_weights):
    """Put each vertex of `vertices` (no edges, so no effect on the cut; heaviest first is best) into the block
    with the most relative room left after taking it (the smallest over constraints of
    (max_weight - weight) / max_weight; the lowest such block on a tie), preferring blocks it fits. Updates
    part and bw.

    A run of vertices with equal weights shares one tournament tree over the blocks' rooms, updated along one
    path per vertex: O(k + run length * log k) instead of a scan of the k blocks per vertex (9·10^5 unit-weight
    isolated vertices into k = 8192 blocks: 17 s of scans)."""
    k, ncon = bw.shape
    tree = new_room_tree(k)
    rooms = np.empty(k, dtype=np.float64)
    i = 0
    while i < vertices.shape[0]:
        first = vertices[i]
        for b in range(k):
            rooms[b] = _room_after(bw, max_weights, vertex_weights, first, b)
        build_room_tree(tree, rooms)
        while i < vertices.shape[0] and _same_weights(vertex_weights, vertices[i], first):
            v = vertices[i]
            best = tree[1]
            part[v] = best
            for c in range(ncon):
                bw[best, c] += vertex_weights[v, c]
            rooms[best] = _room_after(bw, max_weights, vertex_weights, v, best)
            update_room(tree, rooms, best)
            i += 1


#: a step of `descend_overload` tries at least this many swaps (more candidates on small graphs, where the
#: weights of a few vertices decide)
SWAP_PAIRS = 1 << 24


@njit(cache=True, nogil=True)
def _overload_change(bw, b, max_weights, inverse, vertex_weights, v, u, sign):
    """The change of block b's overload, sum over c of max(0, bw[b, c] - max[b, c]) * inverse[c], when it
    gains sign * (weight of v - weight of u) (u < 0: v alone)."""
    change = 0.0
    for c in range(bw.shape[1]):
        delta = vertex_weights[v, c] - (vertex_weights[u, c] if u >= 0 else 0)
        before = max(bw[b, c] - max_weights[b, c], 0)
        after = max(bw[b, c] + sign * delta - max_weights[b, c], 0)
        change += (after - before) * inverse[c]
    return change


@njit(cache=True, nogil=True)
def descend_overload(vertex_weights, part, bw, max_weights, max_moves, swap_candidates):
    """Last-resort balance repair after `pack_greedily`: every step is the single move, else the swap, that
    lowers the total overload (sum over blocks and constraints of max(0, weight - limit), each constraint in
    units of its total weight) the most. Unlike `pack_greedily` a move may push its destination over a limit
    by less than it relieves the source, and a later step relieves the destination in turn: the chains of
    moves that several constraints need when every block is full in one of them (METIS's multi-constraint
    example at k = 8: one block 34 over in its second constraint, the others at their limits in the first).
    The overload falls with every step, so the search ends; swaps pair the `swap_candidates` vertices of
    overloaded blocks that relieve them most (more, up to `SWAP_PAIRS` pairs a step) with every vertex of
    another block. At most `max_moves` steps. Updates part and bw; returns True when every limit is met.
    Deterministic: ties go to the lowest vertex, then block."""
    n, ncon = vertex_weights.shape
    k = bw.shape[0]
    # overload in units of the constraint's total, the same in every block: a unit moved from a large block's
    # overload into a small block's is no worse (per-limit units made the chains through small blocks look bad)
    inverse = np.empty(ncon, dtype=np.float64)
    for c in range(ncon):
        total = 0
        for b in range(k):
            total += bw[b, c]
        inverse[c] = 1.0 / max(total, 1)
    over = np.zeros(k, dtype=np.bool_)
    relief = np.empty(n, dtype=np.float64)
    for step in range(max_moves):
        overloaded = False
        for b in range(k):
            over[b] = _is_overloaded(bw, b, max_weights)
            overloaded = overloaded or over[b]
        if not overloaded:
            return True
        best = 0.0
        best_v = -1
        best_u = -1
        best_dest = -1
        for v in range(n):
            relief[v] = 0.0
            source = part[v]
            if not over[source]:
                continue
            out = _overload_change(bw, source, max_weights, inverse, vertex_weights, v, -1, -1)
            relief[v] = out
            if out >= 0.0:
                continue
            for dest in range(k):
                if dest == source:
                    continue
                change = out + _overload_change(bw, dest, max_weights, inverse, vertex_weights, v, -1, 1)
                if change < best:
                    best = change
                    best_v = v
                    best_dest = dest
        if best_v < 0:  # no single move helps: swap one of the most relieving vertices with another block's
            order = stable_argsort(relief)
            for i in range(min(max(swap_candidates, SWAP_PAIRS // max(n, 1)), n)):
                v = order[i]
                if relief[v] >= 0.0:
                    break
                source = part[v]
                for u in range(n):
                    dest = part[u]
                    if dest == source:
                        continue
                    change = _overload_change(bw, source, max_weights, inverse, vertex_weights, v, u, -1) \
                        + _overload_change(bw, dest, max_weights, inverse, vertex_weights, v, u, 1)
                    if change < best:
                        best = change
                        best_v = v
                        best_u = u
                        best_dest = dest
            if best_v < 0:
                return False
        _exchange(vertex_weights, part, bw, best_v, best_u, best_dest)
    for b in range(k):
        if _is_overloaded(bw, b, max_weights):
            return False
    return True
