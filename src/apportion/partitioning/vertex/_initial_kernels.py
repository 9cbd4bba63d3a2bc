"""Numba kernel of initial partitioning: greedy graph growing (GGGP, Karypis and Kumar 1998)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.hashing import mix_hash
from apportion._kernels.heap import heap_pop, heap_push_or_update, heap_remove
from apportion.partitioning.vertex._contract_kernels import induced_count_chunks, induced_fill_chunks
from apportion.partitioning.vertex._partition_kernels import (
    block_weights, overload, stable_argsort)


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
    pos = np.full(n, -1, dtype=np.int32)
    size = np.zeros(1, dtype=np.int64)
    restart_order = np.empty(0, dtype=np.int64)  # sorted when first needed (a connected graph never does)
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
            if restart_order.shape[0] == 0:
                hashes = np.empty(n, dtype=np.int64)
                for u in range(n):
                    hashes[u] = mix_hash(u, seed)
                restart_order = stable_argsort(hashes)
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
def induced_subgraph(indptr, indices, edge_weights, vertex_weights, vertices, copy_edge_weights,
                     copy_vertex_weights):
    """The subgraph induced by `vertices` (sorted ids): (indptr, indices int32, edge_weights, vertex_weights).
    Without `copy_edge_weights` (or `copy_vertex_weights`) that array comes back empty: the caller's weights
    are all one and it makes unit weights of the right shape (`contract.induced_level`). On one thread: the
    count and fill passes of `contract.induced_level`'s parallel path, as a single chunk."""
    n = indptr.shape[0] - 1
    m = vertices.shape[0]
    new_id = np.full(n, -1, dtype=np.int32)
    for i in range(m):
        new_id[vertices[i]] = i
    whole = np.array([0, m], dtype=np.int64)
    degree = np.empty(m, dtype=np.int64)
    induced_count_chunks(0, 1, 1, whole, indptr, indices, vertices, new_id, degree)
    sub_ptr = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        sub_ptr[i + 1] = sub_ptr[i] + degree[i]
    sub_idx = np.empty(sub_ptr[m], dtype=np.int32)
    sub_w = np.empty(sub_ptr[m] if copy_edge_weights else 0, dtype=edge_weights.dtype)
    induced_fill_chunks(0, 1, 1, whole, indptr, indices, edge_weights, vertices, new_id, sub_ptr, sub_idx, sub_w,
                        copy_edge_weights)
    sub_vw = np.empty((m if copy_vertex_weights else 0, vertex_weights.shape[1]), dtype=np.int64)
    if copy_vertex_weights:
        for i in range(m):
            for c in range(vertex_weights.shape[1]):
                sub_vw[i, c] = vertex_weights[vertices[i], c]
    return sub_ptr, sub_idx, sub_w, sub_vw


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[:, ::1], float64[:, ::1], int64)", cache=True, nogil=True)
def _excess(bw, targets, side):
    s = 0.0
    for c in range(bw.shape[1]):
        s += (bw[side, c] - targets[side, c]) / max(targets[0, c] + targets[1, c], 1.0)
    return s


@njit(cache=True, nogil=True)
def _two_way_gains(indptr, indices, edge_weights, part, external, gain):
    """external[v] = edge weight from v into the other block, gain[v] = external[v] - internal[v]; returns the
    cut."""
    n = indptr.shape[0] - 1
    twice_cut = 0
    for v in range(n):
        ext = 0
        internal = 0
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] != part[v]:
                ext += edge_weights[e]
            else:
                internal += edge_weights[e]
        external[v] = ext
        gain[v] = ext - internal
        twice_cut += ext
    return twice_cut // 2


@njit(cache=True, nogil=True)
def bisection_fm(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, targets, passes, patience):
    """2-way FM with one priority queue per block (Fiduccia and Mattheyses 1982, as METIS's FM_2WayRefine
    organises it), for the bisections of recursive bisection.

    Each step moves the highest-gain unlocked boundary vertex out of the block that is further above its
    target weight (`targets`, (2, ncon) floats), or out of the other block when that move does not fit. A move
    fits when the receiving block stays within `max_weights` plus the average vertex weight (METIS's tolerance
    in its 2-way FM): states between may overshoot a limit by about one vertex, so an exact balance alternates
    sides instead of stalling (the k-way FM, which never exceeds a limit and drops a vertex whose move does not fit, cannot move at all there). A pass
    stops after `patience` moves without a better state, or when neither queue's top move fits, and rolls
    back to its best state: least total overload, then smallest cut — so the result is never above a limit it
    started within. Passes repeat while they improve. Updates part and bw in place; returns the cut.
    """
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    external = np.zeros(n, dtype=np.int64)
    gain = np.zeros(n, dtype=np.int64)
    heaps = np.empty((2, n), dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int32)
    size0 = np.zeros(1, dtype=np.int64)
    size1 = np.zeros(1, dtype=np.int64)
    locked = np.full(n, -1, dtype=np.int64)
    log_vertex = np.empty(n, dtype=np.int32)
    overshoot = np.zeros(ncon, dtype=np.int64)
    for v in range(n):
        for c in range(ncon):
            overshoot[c] += vertex_weights[v, c]
    for c in range(ncon):
        overshoot[c] = max(1, -(-overshoot[c] // max(n, 1)))
    cut = _two_way_gains(indptr, indices, edge_weights, part, external, gain)
    for p in range(passes):
        for v in range(n):
            if external[v] > 0:
                if part[v] == 0:
                    heap_push_or_update(heaps[0], key, pos, size0, v, gain[v])
                else:
                    heap_push_or_update(heaps[1], key, pos, size1, v, gain[v])
        start_cut = cut
        best_cut = cut
        best_over = overload(bw, 0, max_weights) + overload(bw, 1, max_weights)
        start_over = best_over
        best_moves = 0
        moves = 0
        since_best = 0
        while True:
            first = 0 if _excess(bw, targets, 0) >= _excess(bw, targets, 1) else 1
            v = -1
            side = first
            for attempt in range(2):
                side = first if attempt == 0 else 1 - first
                if (size0[0] if side == 0 else size1[0]) == 0:
                    continue
                top = heaps[side, 0]
                fits_loosely = True
                for c in range(ncon):
                    if bw[1 - side, c] + vertex_weights[top, c] > max_weights[1 - side, c] + overshoot[c]:
                        fits_loosely = False
                if fits_loosely:
                    v = top
                    break
            if v < 0:
                break
            if side == 0:
                heap_pop(heaps[0], key, pos, size0)
            else:
                heap_pop(heaps[1], key, pos, size1)
            to = 1 - side
            for c in range(ncon):
                bw[side, c] -= vertex_weights[v, c]
                bw[to, c] += vertex_weights[v, c]
            part[v] = to
            locked[v] = p
            log_vertex[moves] = v
            moves += 1
            cut -= gain[v]
            external[v] = external[v] - gain[v]
            gain[v] = -gain[v]
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                w = edge_weights[e]
                if part[u] == to:
                    external[u] -= w
                    gain[u] -= 2 * w
                else:
                    external[u] += w
                    gain[u] += 2 * w
                if locked[u] == p:
                    continue
                su = part[u]
                if external[u] > 0:
                    if su == 0:
                        heap_push_or_update(heaps[0], key, pos, size0, u, gain[u])
                    else:
                        heap_push_or_update(heaps[1], key, pos, size1, u, gain[u])
                elif pos[u] >= 0:
                    if su == 0:
                        heap_remove(heaps[0], key, pos, size0, u)
                    else:
                        heap_remove(heaps[1], key, pos, size1, u)
            over = overload(bw, 0, max_weights) + overload(bw, 1, max_weights)
            if over < best_over or (over == best_over and cut < best_cut):
                best_over = over
                best_cut = cut
                best_moves = moves
                since_best = 0
            else:
                since_best += 1
                if since_best > patience:
                    break
        while size0[0] > 0:
            heap_pop(heaps[0], key, pos, size0)
        while size1[0] > 0:
            heap_pop(heaps[1], key, pos, size1)
        for i in range(moves - 1, best_moves - 1, -1):
            v = log_vertex[i]
            to = part[v]
            back = 1 - to
            for c in range(ncon):
                bw[to, c] -= vertex_weights[v, c]
                bw[back, c] += vertex_weights[v, c]
            part[v] = back
        if best_moves < moves:
            cut = _two_way_gains(indptr, indices, edge_weights, part, external, gain)
        if best_moves == 0 or (best_over == start_over and best_cut >= start_cut):
            break
    return cut


@njit(cache=True, nogil=True)
def grow_and_refine_tries(indptr, indices, edge_weights, vertex_weights, target0, max_weights, targets, starts,
                          seed, fm_passes, patience):
    """Greedy graph growing from each start vertex in `starts` (try a uses seed + a), each followed by
    `bisection_fm`; returns the try with the least overload, then the smallest cut (the first on ties)."""
    n = indptr.shape[0] - 1
    best = np.zeros(n, dtype=np.int32)
    best_over = np.inf
    best_cut = np.int64(-1)
    for a in range(starts.shape[0]):
        part = grow_bisection(indptr, indices, edge_weights, vertex_weights, target0, max_weights[0], starts[a],
                              seed + a)
        bw = block_weights(vertex_weights, part, np.int64(2))  # not a literal: the copy Python calls
        cut = bisection_fm(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, targets,
                           fm_passes, patience)
        over = overload(bw, 0, max_weights) + overload(bw, 1, max_weights)
        if best_cut < 0 or over < best_over or (over == best_over and cut < best_cut):
            best = part  # a fresh array every try (a slice copy would compile Numba's shape-error formatting)
            best_over = over
            best_cut = cut
    return best
