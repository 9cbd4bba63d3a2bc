"""k-way FM with a gain cache: every vertex's connection to every block kept up to date, so that each key in the
heap is the exact gain of the vertex's best feasible move, hubs included.

The plain kernel (`_refine_kernels.kway_fm`) recounts a neighbour's connections from its adjacency after every
move, which is O(Σ deg²) around hubs; it therefore keeps a hub's key as its gain towards one block only (the one
it aimed at when last recounted). On heavy-tailed graphs that key goes stale: a hub's best block changes as its
many neighbours move, so hubs move late or never, and the leaves that would follow them stay put. Same input to
both kernels (the finest level of rmat 2^20 at k = 64 as `default` hands it to FM): the plain kernel lowered the
cut by 177 k (14.33 M → 14.15 M), this one by 2.83 M (→ 11.50 M); the cache with the one-block hub keys put back
on top: 177 k again. At k = 8 (same kind of input): 3.56 M in 34 s against 5.12 M in 29 s.

The cache `conn` is a dense n × k array (row v: the weight of v's edges into each block), filled in parallel by
`fill_gain_cache_chunk` and updated in O(deg) per move (and per undone move): moving v from a to b subtracts
w(v, u) from conn[u, a] and adds it to conn[u, b] for every neighbour u. A vertex's best move is then an O(k)
scan of its row. It is used where the graph has hubs and the cache is not much larger than the graph
(`refine.use_gain_cache`).

After a move every neighbour not yet moved in the pass gets its exact best gain as its key (raised, lowered, or the
vertex taken out of the heap when no block can take it), as in the plain kernel, but mostly without a scan of its
row: the heap keeps, beside each key, the block it aims at (`target`), and a neighbour's new best follows from its
old one and the two entries the move changed (`key_after_neighbour_move`); only a neighbour that aimed at the block
the mover left, or at the mover's new block when that one can no longer take it, or that was not in the heap, is
rescanned. Scanning a 64-entry row costs about 200 ns more than reading one entry (the row's other cache lines),
and rescans were most of a pass: on the finest level of rmat 2^20 at k = 64 they fell from 46.1M to 6.5M, the
kernel's time from 34.6 s to 18-26 s (a noisy machine), and it removed 2.95M cut edges against 2.83M (the keys of
both are exact except when some other move has filled a neighbour's target since its last update; a popped vertex's
move is always recomputed from its row). At k = 8 (one 32-byte row): 22.4 s against 32.7 s, 5.10M against 5.12M. A
lazier heap — keys only raised, a neighbour in v's new block not rescanned at all, stale keys corrected when popped
— was a third faster on rmat 2^20 at k = 8 and found as much there, but lost the partitions whose core sits in one
large block: rmat 2^18 with targets 4:2:1:1, seeds 1 and 2, 752k and 627k cut edges against the plain kernel's 159k
and 157k (exact keys: 169k and 169k; the plain kernel with equal targets 1.88M and 1.89M, exact keys 0.96M and
0.94M). A vertex moved in the pass is marked by its heap position (MOVED) rather than in an array of its own, one memory
access less per neighbour.

Moves, rollback to the best prefix, patience and stopping are those of the plain kernel (see its docstring).

Every vertex's per-pass state lives in one row of a record array (`new_records`): its heap position and key (the
record heap of `apportion._kernels.heap`), the block its key aims at, its block and its internal weight (its cache
row's entry for its own block), 32 bytes aligned to a cache line for int32 records. A neighbour's update then
touches that one line and the two cache-row entries the move changed (the update of the row and the new key in
the same loop), where separate arrays cost a line each for the key, the heap position, the target, the block and
the own-block entry. On the finest level of rmat 2^21 at k = 64 (`default`'s input to FM) one pass took 7.7-8.0 s
against 10.8-11.6 s, with the same moves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.heap import (
    RECORD_KEY, RECORD_POS, record_heap_pop, record_heap_push_or_update, record_heap_remove)
from apportion.partitioning.vertex._partition_kernels import fits
from apportion.partitioning.vertex._refine_kernels import (
    fm_candidates, fm_passes_end, fm_patience, list_moved_and_neighbours)

#: heap position of a vertex moved in the current pass (out of the heap and not to be put back before the pass ends)
MOVED = -2
#: the record columns beside the heap's own (RECORD_POS, RECORD_KEY): the block of the move the key is the gain
#: of, the vertex's block, and its cache row's entry for that block
TARGET = 2
PART = 3
INTERNAL = 4
#: columns of a record: 8, so that an int32 record is 32 bytes and never straddles a 64-byte cache line
RECORD_COLUMNS = 8


@njit(cache=True, nogil=True)
def fill_gain_cache_chunk(first, stride, chunks, indptr, indices, edge_weights, part, k, conn, degree_weight):
    """Chunks first, first + stride, ... of `chunks` vertex slices: conn[v * k + b] = the weight of v's edges
    into block b (conn zero on entry), degree_weight[v] = the weight of all of v's edges."""
    n = indptr.shape[0] - 1
    for chunk in range(first, chunks, stride):
        for v in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            total = 0
            row = v * k
            for e in range(indptr[v], indptr[v + 1]):
                w = edge_weights[e]
                conn[row + part[indices[e]]] += w
                total += w
            degree_weight[v] = total


@njit(cache=True, nogil=True)
def new_records(part, conn, k):
    """The vertices' records (module docstring): n rows of RECORD_COLUMNS entries of conn's dtype (int32 for an
    int16 cache: a record holds heap positions), starting on a 64-byte boundary; every vertex out of the heap, its
    block and internal weight from `part` and `conn`."""
    n = part.shape[0]
    like = conn[:1] + np.int32(0)  # conn's dtype, at least int32
    pad = 64 // like.itemsize
    raw = np.empty(n * RECORD_COLUMNS + pad, dtype=like.dtype)
    offset = ((64 - raw.ctypes.data % 64) % 64) // like.itemsize
    records = raw[offset:offset + n * RECORD_COLUMNS].reshape(n, RECORD_COLUMNS)
    for v in range(n):
        records[v, RECORD_POS] = -1
        records[v, PART] = part[v]
        records[v, INTERNAL] = conn[v * k + part[v]]
    return records


@njit(cache=True, nogil=True)
def cached_best_move(v, own, conn, k, bw, vertex_weights, max_weights):
    """The best feasible move of v (in block `own`) from its cache row: (block, gain) or (-1, 0). Ties go to the
    block with the lower load relative to its limit (as `_refine_kernels.best_move`)."""
    row = v * k
    best = -1
    best_conn = -1
    best_load = 2.0
    for b in range(k):
        cb = conn[row + b]
        if cb <= 0 or b == own or cb < best_conn:
            continue
        if not fits(bw, b, vertex_weights, v, max_weights):
            continue
        load = bw[b, 0] / max(max_weights[b, 0], 1)
        if cb > best_conn or load < best_load:
            best = b
            best_conn = cb
            best_load = load
    if best < 0:
        return -1, 0
    return best, best_conn - conn[row + own]


@njit(cache=True, nogil=True, inline="always")
def _account(v, a, b, vertex_weights, part, bw, conn, k, records):
    """v's own share of its move from a to b: block weights, part and its record (its own row does not change: a
    level has no self-loops)."""
    for c in range(vertex_weights.shape[1]):
        bw[a, c] -= vertex_weights[v, c]
        bw[b, c] += vertex_weights[v, c]
    part[v] = b
    records[v, PART] = b
    records[v, INTERNAL] = conn[v * k + b]


@njit(cache=True, nogil=True, inline="always")
def _update_neighbour(u, a, b, w, conn, k, records):
    """A neighbour u's share of a move from a to b over an edge of weight w: its cache row and internal weight;
    returns u's block."""
    row = u * k
    conn[row + a] -= w
    conn[row + b] += w
    own = records[u, PART]
    if own == a:
        records[u, INTERNAL] -= w
    elif own == b:
        records[u, INTERNAL] += w
    return own


@njit(cache=True, nogil=True)
def _move(v, a, b, indptr, indices, edge_weights, vertex_weights, part, bw, conn, k, records):
    """Move v from block a to block b: part, block weights, the neighbours' cache rows and every record."""
    for e in range(indptr[v], indptr[v + 1]):
        _update_neighbour(indices[e], a, b, edge_weights[e], conn, k, records)
    _account(v, a, b, vertex_weights, part, bw, conn, k, records)


@njit(cache=True, nogil=True, inline="always")  # as a call it cost a quarter of the kernel's time
def key_after_neighbour_move(u, own, internal, a, b, w, target, gain, conn, k, bw, vertex_weights, max_weights):
    """The best move (block, gain) of u (in block `own`, its row's entry for it `internal`) after a neighbour
    moved from block a to block b over an edge of weight w (u's cache row and the block weights already
    updated), from u's best move before it (`target`, `gain`) and the row's entries a and b alone; (-1, 0)
    where only a scan of the row can tell: u aimed at a, or at b and b can no longer take it."""
    row = u * k
    if target == a:
        return -1, 0
    if own == a:  # every gain rose by w, the gain towards b by 2w
        if target == b:
            if not fits(bw, b, vertex_weights, u, max_weights):
                return -1, 0
            return b, gain + 2 * w
        best, best_gain = target, gain + w
        if fits(bw, b, vertex_weights, u, max_weights) and conn[row + b] - internal > best_gain:
            best, best_gain = b, conn[row + b] - internal
        return best, best_gain
    if own == b:  # every gain fell by w, the gain towards a by 2w
        best, best_gain = target, gain - w
    elif target == b:  # the gain towards b rose by w
        if not fits(bw, b, vertex_weights, u, max_weights):
            return -1, 0
        best, best_gain = b, gain + w
    else:  # the gain towards b rose by w, the one towards a fell by w
        best, best_gain = target, gain
        if fits(bw, b, vertex_weights, u, max_weights) and conn[row + b] - internal > best_gain:
            best, best_gain = b, conn[row + b] - internal
    # a is lighter now: a block that could not take u before may take it now
    if fits(bw, a, vertex_weights, u, max_weights) and conn[row + a] - internal > best_gain:
        best, best_gain = a, conn[row + a] - internal
    return best, best_gain


@njit(cache=True, nogil=True)
def kway_fm_cached(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, k, passes,
                   stop_fraction, max_patience, vertices, min_improvement, conn, degree_weight, give_up_above):
    """k-way FM (module docstring) on a filled gain cache (`conn`, n · k entries, and `degree_weight`, as
    `fill_gain_cache_chunk` leaves them; both are kept exact for the final `part`). Seeded from `vertices` (a
    superset of the boundary); later passes add the vertices the previous one moved and their neighbours.
    Stops as the plain kernel does (`fm_passes_end`, `give_up_above` included). Updates part and bw; returns
    the total cut decrease."""
    n = indptr.shape[0] - 1
    listed, candidates, ncand = fm_candidates(n, vertices)
    records = new_records(part, conn, k)
    heap = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(n, dtype=records.dtype)
    size = np.zeros(1, dtype=np.int64)
    log_vertex = np.empty(n, dtype=np.int32)
    log_from = np.empty(n, dtype=np.int32)
    twice_cut = 0
    for i in range(ncand):
        v = candidates[i]
        twice_cut += degree_weight[v] - records[v, INTERNAL]
    total_gain = 0
    previous_gain = np.int64(0)  # not a literal: one compiled copy of `fm_passes_end`
    for p in range(passes):
        boundary = 0
        for i in range(ncand):
            v = candidates[i]
            if records[v, INTERNAL] == degree_weight[v]:
                continue  # every edge inside its block: not on the boundary
            boundary += 1
            b, g = cached_best_move(v, records[v, PART], conn, k, bw, vertex_weights, max_weights)
            if b >= 0:
                record_heap_push_or_update(heap, heap_keys, records, size, v, g)
                records[v, TARGET] = b
        limit = fm_patience(stop_fraction, boundary, max_patience)
        moves = 0
        current = 0
        best = 0
        best_moves = 0
        since_best = 0
        while size[0] > 0:
            v = record_heap_pop(heap, heap_keys, records, size)
            popped = records[v, RECORD_KEY]
            own = records[v, PART]
            b, g = cached_best_move(v, own, conn, k, bw, vertex_weights, max_weights)
            if b < 0:
                continue
            if g < popped:  # its key was stale (some move filled its block): back with the exact one
                record_heap_push_or_update(heap, heap_keys, records, size, v, g)
                records[v, TARGET] = b
                continue
            _account(v, own, b, vertex_weights, part, bw, conn, k, records)
            records[v, RECORD_POS] = MOVED
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
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                w = edge_weights[e]
                own_u = _update_neighbour(u, own, b, w, conn, k, records)  # row and key in one visit
                at = records[u, RECORD_POS]
                if at == MOVED:
                    continue  # moved in this pass
                bu = -1
                if at >= 0:
                    bu, gu = key_after_neighbour_move(u, own_u, records[u, INTERNAL], own, b, w, records[u, TARGET],
                                                      records[u, RECORD_KEY], conn, k, bw, vertex_weights,
                                                      max_weights)
                if bu < 0:
                    bu, gu = cached_best_move(u, own_u, conn, k, bw, vertex_weights, max_weights)
                if bu < 0:
                    if at >= 0:
                        record_heap_remove(heap, heap_keys, records, size, u)
                else:
                    if at < 0 or gu != records[u, RECORD_KEY]:
                        record_heap_push_or_update(heap, heap_keys, records, size, u, gu)
                    records[u, TARGET] = bu
            if since_best > limit:
                break
        for i in range(size[0]):
            records[heap[i], RECORD_POS] = -1  # the heap emptied
        size[0] = 0
        for i in range(moves):
            records[log_vertex[i], RECORD_POS] = -1  # no longer MOVED
        for i in range(moves - 1, best_moves - 1, -1):
            v = log_vertex[i]
            back = np.int64(log_from[i])  # int64 as in the forward move's call: one compiled copy of `_move`
            _move(v, part[v], back, indptr, indices, edge_weights, vertex_weights, part, bw, conn, k, records)
        total_gain += best
        if fm_passes_end(best, previous_gain, twice_cut // 2 - total_gain, twice_cut // 2, min_improvement,
                         give_up_above):
            break
        previous_gain = best
        ncand = list_moved_and_neighbours(indptr, indices, log_vertex, best_moves, listed, candidates, ncand)
    return total_gain
