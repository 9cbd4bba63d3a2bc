"""numba-cuda rebalancer of the GPU partitioner: Jet's weak rebalancer (Gilbert et al., "Jet", 2024), written for
unequal block limits and one vertex-weight constraint.

A round, one thread per vertex or per block:

1. `_choose`: a vertex of an overweight block picks a destination: the adjacent block it is most strongly
   connected to among those with room for it (ties to the smaller id; a long row's blocks found with its
   scratch hash table), else the block with the most room (`_emptiest`); its loss is the
   cut increase of the move (connection to its own block minus to the destination), bucketed by size
   (bucket 0 for loss <= 0, then one bucket per power of two) and added to its block's bucket weight;
2. `_source_cutoff`: every overweight block moves its lowest-loss buckets, just as many as cover its excess;
3. `_request` / `_destination_cutoff`: every destination admits whole buckets of incoming weight, lowest loss
   first, while they fit its room; when not even the first fits, only its smallest-id requester may come
   (if it fits alone), so a round with a movable vertex always moves one;
4. `_apply`: the admitted vertices move; block weights follow by integer atomics.

Destinations never go over their limits, so every round lowers the total overload or moves nothing. Integer
atomics and whole-bucket decisions make the round independent of thread timing. The GPU driver runs rounds
until balance or a round that moves nothing; what is left (vertices too heavy for every room) the CPU's hard
rebalancer settles at the finest level.

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._gpu_hash_cuda import first_connection, row_table
from apportion.partitioning.vertex._gpu_scan_cuda import BLOCK, blocks_for, fill

#: rows longer than this find their adjacent blocks with a hash table in scratch memory (`row_table`, O(degree))
#: instead of rescanning the row (O(degree^2), cheaper for short rows); Jet refinement uses the same threshold
HASH_MIN_DEGREE = 32
#: loss buckets: 0 for loss <= 0, b for 2^(b-1) <= loss < 2^b
BUCKETS = 64
_NOBODY = np.int32(2147483647)


@cuda.jit(cache=False)
def _emptiest(block_weights, limits, fallback):
    if cuda.grid(1) != 0:
        return
    best = -1
    best_room = np.int64(0)
    for b in range(block_weights.shape[0]):
        room = limits[b] - block_weights[b]
        if room > best_room:
            best = b
            best_room = room
    fallback[0] = best


@cuda.jit(device=True, cache=False)
def _bucket(loss):
    if loss <= 0:
        return 0
    b = 1
    while loss > 1 and b < BUCKETS - 1:
        loss >>= 1
        b += 1
    return b


@cuda.jit(cache=False)
def _choose(indptr, indices, edge_weights, vertex_weights, part, block_weights, limits, fallback, table_keys,
            table_vals, hash_min_degree, dest, bucket, outgoing):
    v = cuda.grid(1)
    n = indptr.shape[0] - 1
    if v >= n:
        return
    dest[v] = -1
    own = part[v]
    if block_weights[own] <= limits[own]:
        return
    w = vertex_weights[v, 0]
    lo = indptr[v]
    hi = indptr[v + 1]
    conn_own = np.int64(0)
    for e in range(lo, hi):
        if part[indices[e]] == own:
            conn_own += edge_weights[e]
    best = -1
    best_conn = np.int64(-1)
    if hi - lo > hash_min_degree:
        base, size = row_table(indptr, indices, edge_weights, part, v, table_keys, table_vals)
        for slot in range(base, base + size):
            b = table_keys[slot]
            if b == -1 or b == own or block_weights[b] + w > limits[b]:
                continue
            conn = table_vals[slot]
            if conn > best_conn or (conn == best_conn and b < best):
                best = b
                best_conn = conn
        lo = hi  # the rescan below is skipped
    for e in range(lo, hi):
        b = part[indices[e]]
        if b == own or block_weights[b] + w > limits[b]:
            continue
        conn = first_connection(indices, edge_weights, part, lo, e, hi)
        if conn < 0:
            continue
        if conn > best_conn or (conn == best_conn and b < best):
            best = b
            best_conn = conn
    if best < 0:
        f = fallback[0]
        if f < 0 or f == own or block_weights[f] + w > limits[f]:
            return
        best = f
        best_conn = 0
    b = _bucket(conn_own - best_conn)
    dest[v] = best
    bucket[v] = b
    cuda.atomic.add(outgoing, own * BUCKETS + b, w)


@cuda.jit(cache=False)
def _source_cutoff(block_weights, limits, outgoing, cutoff):
    b = cuda.grid(1)
    if b >= block_weights.shape[0]:
        return
    cutoff[b] = -1
    excess = block_weights[b] - limits[b]
    if excess <= 0:
        return
    covered = np.int64(0)
    for j in range(BUCKETS):
        covered += outgoing[b * BUCKETS + j]
        if covered >= excess:
            cutoff[b] = j
            return
    cutoff[b] = BUCKETS - 1


@cuda.jit(cache=False)
def _request(part, vertex_weights, dest, bucket, cutoff, incoming, first):
    v = cuda.grid(1)
    if v >= part.shape[0]:
        return
    d = dest[v]
    if d < 0:
        return
    if bucket[v] > cutoff[part[v]]:
        dest[v] = -1
        return
    cuda.atomic.add(incoming, d * BUCKETS + bucket[v], vertex_weights[v, 0])
    cuda.atomic.min(first, d, v)


@cuda.jit(cache=False)
def _destination_cutoff(block_weights, limits, incoming, admit, room):
    d = cuda.grid(1)
    if d >= block_weights.shape[0]:
        return
    free = limits[d] - block_weights[d]
    room[d] = free
    admit[d] = -1
    taken = np.int64(0)
    for j in range(BUCKETS):
        if taken + incoming[d * BUCKETS + j] > free:
            break
        taken += incoming[d * BUCKETS + j]
        admit[d] = j
    if taken == 0:
        admit[d] = -1  # nobody admitted: the smallest-id requester may still come alone


@cuda.jit(cache=False)
def _apply(part, vertex_weights, dest, bucket, admit, room, first, block_weights, moved):
    v = cuda.grid(1)
    if v >= part.shape[0]:
        return
    d = dest[v]
    if d < 0:
        return
    w = vertex_weights[v, 0]
    if bucket[v] <= admit[d] or (admit[d] < 0 and first[d] == v and w <= room[d]):
        own = part[v]
        part[v] = d
        cuda.atomic.add(block_weights, own, -w)
        cuda.atomic.add(block_weights, d, w)
        cuda.atomic.add(moved, 0, 1)


def rebalance_cuda(indptr, indices, edge_weights, vertex_weights, part, block_weights, limits, host_limits,
                   max_rounds: int = 32, hash_min_degree: int = HASH_MIN_DEGREE, stream=0) -> np.ndarray:
    """Rounds of Jet's weak rebalancing on device arrays until every block is within `limits` (int64 device
    array (k,); `host_limits` the same on the host), a round moves nothing, or `max_rounds` rounds. Updates
    `part` and `block_weights` (int64 device array (k,)) in place; returns the block weights read back (k
    values per round are the only copies)."""
    n = part.shape[0]
    k = block_weights.shape[0]
    host_weights = block_weights.copy_to_host(stream=stream)
    if n == 0 or np.all(host_weights <= host_limits):
        return host_weights
    size = max(n, 1)
    dest = cuda.device_array(size, dtype=np.int32, stream=stream)
    bucket = cuda.device_array(size, dtype=np.int32, stream=stream)
    outgoing = cuda.device_array(k * BUCKETS, dtype=np.int64, stream=stream)
    incoming = cuda.device_array(k * BUCKETS, dtype=np.int64, stream=stream)
    first = cuda.device_array(k, dtype=np.int32, stream=stream)
    cutoff = cuda.device_array(k, dtype=np.int32, stream=stream)
    admit = cuda.device_array(k, dtype=np.int32, stream=stream)
    room = cuda.device_array(k, dtype=np.int64, stream=stream)
    fallback = cuda.device_array(1, dtype=np.int32, stream=stream)
    moved = cuda.device_array(1, dtype=np.int64, stream=stream)
    table_keys = cuda.device_array(max(2 * int(indices.shape[0]), 1), dtype=np.int32, stream=stream)
    table_vals = cuda.device_array(max(2 * int(indices.shape[0]), 1), dtype=np.int64, stream=stream)
    grid, block_grid = blocks_for(n), blocks_for(k)
    for _ in range(max_rounds):
        fill(outgoing, 0, stream)
        fill(incoming, 0, stream)
        fill(first, _NOBODY, stream)
        fill(moved, 0, stream)
        _emptiest[1, 1, stream](block_weights, limits, fallback)
        _choose[grid, BLOCK, stream](indptr, indices, edge_weights, vertex_weights, part, block_weights, limits,
                                     fallback, table_keys, table_vals, hash_min_degree, dest, bucket, outgoing)
        _source_cutoff[block_grid, BLOCK, stream](block_weights, limits, outgoing, cutoff)
        _request[grid, BLOCK, stream](part, vertex_weights, dest, bucket, cutoff, incoming, first)
        _destination_cutoff[block_grid, BLOCK, stream](block_weights, limits, incoming, admit, room)
        _apply[grid, BLOCK, stream](part, vertex_weights, dest, bucket, admit, room, first, block_weights, moved)
        host_weights = block_weights.copy_to_host(stream=stream)
        if np.all(host_weights <= host_limits) or int(moved.copy_to_host(stream=stream)[0]) == 0:
            break
    return host_weights
