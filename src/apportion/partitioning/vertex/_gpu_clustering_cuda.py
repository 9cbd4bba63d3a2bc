"""numba-cuda size-constrained label-propagation clustering: the GPU twin of
`coarsen.label_propagation_clustering` (KaMinPar's coarsening; seed 000 notes, part B).

A round visits the vertices in `batches` synchronous sub-rounds; vertex v belongs to sub-round
mix_hash(v, round seed + 1) mod batches, exactly the CPU's membership. A sub-round is four launches, one thread
per vertex:

1. `_choose`: a vertex of the sub-round rates the clusters of its neighbours (the summed edge weight to each,
   or that divided by the cluster's weight with `normalized`) from the labels and cluster weights at the start
   of the sub-round and picks the best one that stays within the cap, with the CPU kernel's rule (its own
   cluster wins ties, other ties go to the larger seeded hash). A row longer than HASH_MIN_DEGREE sums its
   connections in its own open-addressing table in scratch memory (twice its degree: O(degree)); shorter rows
   find distinct labels by rescanning the row (O(degree^2), no scratch traffic);
2. `_request`: every mover adds its weight to its target's incoming weight and offers its id to the target's
   smallest-requester slot (integer atomics: the totals and the minimum do not depend on the order);
3. `_accept`: a move is accepted when the target can take every request of the sub-round, or when the mover is
   the target's smallest requester and fits alone. Unlike the CPU, which re-checks each move in order, this
   keeps the cap without depending on thread timing; with a cap that never binds both accept every move, so
   the labels equal the CPU's (the tests check it);
4. `_apply`: accepted movers take their new label and move their weight between the clusters.

Labels are cluster ids (a vertex id); a round that moves fewer than max(1, stop_fraction * n) vertices ends the
level's clustering (one scalar read back per round).

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._coarsen_kernels import LP_MAX_ARCS
from apportion.partitioning.vertex._gpu_hash_cuda import kernel_seed, mix_hash_device
from apportion.partitioning.vertex._gpu_scan_cuda import BLOCK, blocks_for

_INT64_MAX = np.int64(9223372036854775807)
#: no request yet (the smallest-requester slot)
_NOBODY = np.int32(2147483647)


@cuda.jit(device=True, cache=False)
def _consider(a, val, v, own, vertex_weights, cap, seed, cluster_weights, normalized, best, best_val, best_w,
              best_h):
    """The CPU kernel's rating step: cluster a, connected to v by `val`, against the best so far; returns the
    new (best, best_val, best_w, best_h). The outcome does not depend on the order clusters are considered in."""
    wa = np.int64(1)
    if normalized:
        wa = cluster_weights[a, 0]
        if a == own:
            wa -= vertex_weights[v, 0]
        wa = max(wa, np.int64(1))
    lhs = val * best_w
    rhs = best_val * wa
    if a == own:
        if lhs >= rhs and (lhs > rhs or best != own):
            return own, val, wa, _INT64_MAX
    elif lhs >= rhs:
        fits = True
        for c in range(vertex_weights.shape[1]):
            if cluster_weights[a, c] + vertex_weights[v, c] > cap[c]:
                fits = False
        if fits:
            h = mix_hash_device(a, seed + v)
            if lhs > rhs or h > best_h:
                return a, val, wa, h
    return best, best_val, best_w, best_h


@cuda.jit(cache=False)
def _choose(indptr, indices, edge_weights, vertex_weights, cap, seed, batch_seed, batches, batch, labels,
            cluster_weights, constrained, blocks, normalized, table_keys, table_vals, hash_min_degree, max_arcs,
            choice):
    v = cuda.grid(1)
    n = indptr.shape[0] - 1
    if v >= n:
        return
    choice[v] = -1
    if mix_hash_device(v, batch_seed + 1) % batches != batch:
        return
    own = labels[v]
    best = own
    best_val = np.int64(-1)
    best_w = np.int64(1)
    best_h = np.int64(-1)
    lo = indptr[v]
    hi = indptr[v + 1]
    step = 1
    if hi - lo > max_arcs:  # the CPU's even sample of a long row: every step-th arc from the first
        step = (hi - lo + max_arcs - 1) // max_arcs
    if hi - lo > hash_min_degree:
        # v's own open-addressing table, twice its degree, in the scratch rows [2 lo, 2 hi): O(degree)
        base = 2 * lo
        size = 2 * (hi - lo)
        for slot in range(base, base + size):
            table_keys[slot] = -1
        for e in range(lo, hi, step):
            if constrained and blocks[indices[e]] != blocks[v]:
                continue
            a = labels[indices[e]]
            slot = (np.int64(a) * 40503) % size
            while table_keys[base + slot] != -1 and table_keys[base + slot] != a:
                slot = (slot + 1) % size
            if table_keys[base + slot] == -1:
                table_keys[base + slot] = a
                table_vals[base + slot] = 0
            table_vals[base + slot] += edge_weights[e]
        for slot in range(base, base + size):
            a = table_keys[slot]
            if a != -1:
                best, best_val, best_w, best_h = _consider(a, table_vals[slot], v, own, vertex_weights, cap, seed,
                                                           cluster_weights, normalized, best, best_val, best_w,
                                                           best_h)
        choice[v] = best
        return
    # short rows: distinct labels found by rescanning the row, O(degree^2) but no scratch traffic
    for e in range(lo, hi, step):
        if constrained and blocks[indices[e]] != blocks[v]:
            continue
        a = labels[indices[e]]
        seen = False
        for f in range(lo, e, step):
            if constrained and blocks[indices[f]] != blocks[v]:
                continue
            if labels[indices[f]] == a:
                seen = True
                break
        if seen:
            continue
        val = np.int64(0)
        for f in range(e, hi, step):
            if constrained and blocks[indices[f]] != blocks[v]:
                continue
            if labels[indices[f]] == a:
                val += edge_weights[f]
        best, best_val, best_w, best_h = _consider(a, val, v, own, vertex_weights, cap, seed, cluster_weights,
                                                   normalized, best, best_val, best_w, best_h)
    choice[v] = best


@cuda.jit(cache=False)
def _request(choice, labels, vertex_weights, incoming, first):
    v = cuda.grid(1)
    if v >= choice.shape[0]:
        return
    a = choice[v]
    if a < 0 or a == labels[v]:
        return
    for c in range(vertex_weights.shape[1]):
        cuda.atomic.add(incoming, (a, c), vertex_weights[v, c])
    cuda.atomic.min(first, a, v)


@cuda.jit(cache=False)
def _accept(choice, labels, vertex_weights, cluster_weights, cap, incoming, first):
    v = cuda.grid(1)
    if v >= choice.shape[0]:
        return
    a = choice[v]
    if a < 0 or a == labels[v]:
        return
    all_fit = True
    alone_fits = True
    for c in range(vertex_weights.shape[1]):
        if cluster_weights[a, c] + incoming[a, c] > cap[c]:
            all_fit = False
        if cluster_weights[a, c] + vertex_weights[v, c] > cap[c]:
            alone_fits = False
    if not (all_fit or (first[a] == v and alone_fits)):
        choice[v] = -1


@cuda.jit(cache=False)
def _apply(choice, labels, vertex_weights, cluster_weights, incoming, first, moved):
    v = cuda.grid(1)
    if v >= choice.shape[0]:
        return
    # the request slots of cluster v are reset for the next sub-round (each thread its own row)
    for c in range(vertex_weights.shape[1]):
        incoming[v, c] = 0
    first[v] = _NOBODY
    a = choice[v]
    own = labels[v]
    if a < 0 or a == own:
        return
    for c in range(vertex_weights.shape[1]):
        cuda.atomic.add(cluster_weights, (a, c), vertex_weights[v, c])
        cuda.atomic.add(cluster_weights, (own, c), -vertex_weights[v, c])
    labels[v] = a
    cuda.atomic.add(moved, 0, 1)


#: rows longer than this find their neighbours' clusters with a hash table in scratch memory (O(degree)) instead
#: of rescanning the row (O(degree^2), cheaper for short rows: no scratch traffic)
HASH_MIN_DEGREE = 32


def label_propagation_cuda(indptr, indices, edge_weights, vertex_weights, cap, rounds: int, batches: int,
                           seed: int, stop_fraction: float, blocks=None, normalized: bool = False,
                           hash_min_degree: int = HASH_MIN_DEGREE, max_arcs: int = LP_MAX_ARCS, stream=0):
    """Cluster labels (int32 device array) of size-constrained label propagation on device arrays: every
    cluster weighs at most `cap` (int64 device array (ncon,)) in every constraint, or is one vertex. `blocks`
    (an int32 device array, or None) confines clusters to one block each (V-cycles). Deterministic for a seed;
    equal to `coarsen.label_propagation_clustering` with the same `max_arcs` whenever the cap never binds (a row
    of more than `max_arcs` arcs is rated on the same even sample of them)."""
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    size = max(n, 1)
    grid = blocks_for(n)
    labels = cuda.to_device(np.arange(size, dtype=np.int32), stream=stream)
    cluster_weights = cuda.device_array((size, ncon), dtype=np.int64, stream=stream)
    cluster_weights[:n].copy_to_device(vertex_weights, stream=stream)
    incoming = cuda.to_device(np.zeros((size, ncon), dtype=np.int64), stream=stream)
    first = cuda.to_device(np.full(size, _NOBODY, dtype=np.int32), stream=stream)
    choice = cuda.device_array(size, dtype=np.int32, stream=stream)
    constrained = blocks is not None
    if blocks is None:
        blocks = cuda.to_device(np.zeros(1, dtype=np.int32), stream=stream)
    labels_n, choice_n = labels[:n], choice[:n]
    scratch = max(2 * int(indices.shape[0]), 1)
    table_keys = cuda.device_array(scratch, dtype=np.int32, stream=stream)
    table_vals = cuda.device_array(scratch, dtype=np.int64, stream=stream)
    seed = int(seed)
    rating_seed = kernel_seed(seed)
    for r in range(rounds):
        batch_seed = kernel_seed(seed * 1000003 + r)
        moved = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        for batch in range(batches):
            _choose[grid, BLOCK, stream](indptr, indices, edge_weights, vertex_weights, cap, rating_seed, batch_seed,
                                         batches, batch, labels, cluster_weights, constrained, blocks,
                                         normalized, table_keys, table_vals, hash_min_degree, max_arcs,
                                         choice)
            _request[grid, BLOCK, stream](choice_n, labels, vertex_weights, incoming, first)
            _accept[grid, BLOCK, stream](choice_n, labels, vertex_weights, cluster_weights, cap, incoming, first)
            _apply[grid, BLOCK, stream](choice_n, labels, vertex_weights, cluster_weights, incoming, first, moved)
        if int(moved.copy_to_host(stream=stream)[0]) < max(1.0, stop_fraction * n):
            break
    return labels_n
