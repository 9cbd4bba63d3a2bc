"""Numba kernels of the coarsening phase: heavy-edge matchings, 2-hop matching, label-propagation clustering.

Every kernel returns or updates `labels`: labels[v] is the id (a vertex id) of v's cluster; a matched pair or a
cluster shares one label. `labels_to_cmap` turns labels into the fine-to-coarse map. Ties are broken by
`mix_hash` of the seed, so results depend on the seed and never on thread timing.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from apportion._kernels.arrays import VERTEX_WEIGHTS
from apportion.graph._segmented_kernels import best_in_row
from apportion._kernels.hashing import mix_hash
from apportion._kernels.prefetch import ARCS_AHEAD, prefetch
from apportion.partitioning.vertex._partition_kernels import stable_argsort


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit((VERTEX_WEIGHTS, types.int64, types.int64, types.int64[::1]), cache=True, nogil=True)
def _pair_fits(vertex_weights, u, v, cap):
    for c in range(vertex_weights.shape[1]):
        if vertex_weights[u, c] + vertex_weights[v, c] > cap[c]:
            return False
    return True


@njit(cache=True, nogil=True)
def _cluster_fits(cluster_weights, a, vertex_weights, v, cap):
    for c in range(vertex_weights.shape[1]):
        if cluster_weights[a, c] + vertex_weights[v, c] > cap[c]:
            return False
    return True


@njit(cache=True, nogil=True)
def mutual_choices(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, room, mate, matched, seed,
                   choice):
    """One round of heavy-edge matching, first half (seed 000 ch. 4.3.2), for chunks first, first + stride, ...
    of `chunks` static slices of the vertices: choice[v] = the heaviest unmatched neighbour of an unmatched v
    whose merged weight stays within the cap (room[v] = cap - w(v) per constraint), -1 if none. The pick is
    the segmented arg-best shared with Borůvka's MST (`graph._segmented_kernels.best_in_row`, maximum mode):
    ties between equal edge weights go to the smaller seeded hash of the edge, the same from both ends, so
    mutual picks are likely."""
    n = indptr.shape[0] - 1
    for t in range(first, chunks, stride):
        for v in range((n * t) // chunks, (n * (t + 1)) // chunks):
            choice[v] = -1
            if mate[v] >= 0:
                continue
            p = best_in_row(v, indptr[v], indptr[v + 1], indices, edge_weights, -1, seed, n, matched, 1,
                            vertex_weights, room[v])
            if p >= 0:
                choice[v] = indices[p]


@njit(cache=True, nogil=True)
def mutual_pairs(first, stride, chunks, choice, mate, matched, found):
    """Second half of a matching round: vertices that chose each other are matched (mate, matched set for
    both, each from its own side); found[t] counts the matched vertices of chunk t."""
    n = choice.shape[0]
    for t in range(first, chunks, stride):
        count = 0
        for v in range((n * t) // chunks, (n * (t + 1)) // chunks):
            c = choice[v]
            if c >= 0 and choice[c] == v:
                mate[v] = c
                matched[v] = 1
                count += 1
        found[t] = count


@njit(cache=True, nogil=True)
def suitor_matching(indptr, indices, edge_weights, vertex_weights, cap, seed):
    """Suitor-style heavy-edge matching (seed 000 ch. 5.2.1; Manne and Halappanavar): a vertex proposes to the
    neighbour it weighs most whose current suitor it beats; the evicted suitor proposes again. With a total
    order on edges (weight, then a seeded hash) the result equals the parallel Suitor algorithm's and the
    sorted-greedy matching's, whatever the processing order, so this sequential kernel is deterministic.

    Returns labels as `mutual_matching` does.
    """
    n = indptr.shape[0] - 1
    suitor = np.full(n, -1, dtype=np.int32)
    offer_w = np.full(n, -1, dtype=np.int64)
    offer_h = np.full(n, -1, dtype=np.int64)
    for start in range(n):
        current = start
        while current >= 0:
            partner = -1
            pw = -1
            ph = -1
            for e in range(indptr[current], indptr[current + 1]):
                v = indices[e]
                w = edge_weights[e]
                if w < pw or w < offer_w[v]:
                    continue
                if not _pair_fits(vertex_weights, current, v, cap):
                    continue
                lo = min(current, v)
                hi = max(current, v)
                h = mix_hash(np.int64(lo) * n + hi, seed)
                beats_offer = w > offer_w[v] or h > offer_h[v]
                beats_best = w > pw or h > ph
                if beats_offer and beats_best:
                    partner = v
                    pw = w
                    ph = h
            if partner < 0:
                break
            evicted = suitor[partner]
            suitor[partner] = current
            offer_w[partner] = pw
            offer_h[partner] = ph
            current = evicted
    labels = np.empty(n, dtype=np.int32)
    for v in range(n):
        s = suitor[v]
        if s >= 0 and suitor[s] == v:
            labels[v] = min(v, s)
        else:
            labels[v] = v
    return labels


@njit(cache=True, nogil=True)
def two_hop_matching(indptr, indices, edge_weights, vertex_weights, labels, cap, seed):
    """Pair up vertices still alone in their cluster that share their heaviest neighbour (leaves of one hub,
    twins), and isolated vertices among themselves (METIS's 2-hop matching). Updates `labels` in place and
    returns the number of new pairs.
    """
    n = indptr.shape[0] - 1
    size = np.zeros(n, dtype=np.int64)
    for v in range(n):
        size[labels[v]] += 1
    favourite = np.full(n, -1, dtype=np.int64)
    count = 0
    for v in range(n):
        if size[labels[v]] != 1:
            continue
        best = -1
        best_w = -1
        for e in range(indptr[v], indptr[v + 1]):
            if edge_weights[e] > best_w:
                best_w = edge_weights[e]
                best = indices[e]
        favourite[v] = best + 1  # 0 = isolated
        count += 1
    if count < 2:
        return 0
    singles = np.empty(count, dtype=np.int64)
    keys = np.empty(count, dtype=np.int64)
    j = 0
    for v in range(n):
        if favourite[v] >= 0:
            singles[j] = v
            keys[j] = favourite[v] * (n + 1) + (mix_hash(v, seed) % (n + 1))
            j += 1
    order = stable_argsort(keys)
    pairs = 0
    i = 0
    while i + 1 < count:
        a = singles[order[i]]
        b = singles[order[i + 1]]
        if favourite[a] == favourite[b] and _pair_fits(vertex_weights, a, b, cap):
            labels[b] = labels[a]
            pairs += 1
            i += 2
        else:
            i += 1
    return pairs


#: vertices are visited in runs of this many consecutive ids (runs in seeded random order): neighbouring ids
#: share cache lines, so a round is faster than in a fully random order (docs/partition.md, coarsening)
ORDER_RUN = 512


@njit(cache=True, nogil=True)
def batched_order(n, run, batches, seed, round_index, order, batch_ptr):
    """order <- the ids 0..n-1 grouped into `batches` sub-rounds for round `round_index` of label propagation
    with `seed`; vertex v belongs to sub-round
    hash(v) mod batches, so neighbours land in the same sub-round (and see each other's stale labels) only
    with probability 1/batches, as with a fully random order; inside a sub-round the vertices come as runs
    of `run` consecutive ids, the runs in a seeded random order, for cache locality.
    batch_ptr (batches + 1) receives the sub-round boundaries in `order`."""
    seed = seed * 1000003 + round_index  # in int64 arithmetic (wraps), as every seed here
    runs = (n + run - 1) // run
    keys = np.empty(runs, dtype=np.int64)
    for b in range(runs):
        keys[b] = mix_hash(b, seed)
    by_key = stable_argsort(keys)
    counts = np.zeros((batches, runs), dtype=np.int64)
    for i in range(runs):
        b = by_key[i]
        for v in range(b * run, min(n, (b + 1) * run)):
            counts[mix_hash(v, seed + 1) % batches, i] += 1
    offsets = np.zeros((batches, runs), dtype=np.int64)
    total = 0
    for j in range(batches):
        batch_ptr[j] = total
        for i in range(runs):
            offsets[j, i] = total
            total += counts[j, i]
    batch_ptr[batches] = total
    for i in range(runs):
        b = by_key[i]
        for v in range(b * run, min(n, (b + 1) * run)):
            j = mix_hash(v, seed + 1) % batches
            order[offsets[j, i]] = v
            offsets[j, i] += 1


#: label propagation rates the clusters around a vertex of higher degree on an even sample of this many of its
#: arcs (`lp_choices`, and the GPU's `_gpu_clustering_cuda` alike): a hub's choice hardly depends on the rest,
#: yet its row was most of the work — on rmat 2^21's core 59 % of the arcs belong to the 2 % of vertices of degree
#: > 256, and the clustering of its first level took 1.71 -> 0.85 s, of the second 1.08 -> 0.33 s (`fast`,
#: k = 64, 2 threads; its cut 19,235,912 -> 19,236,755). Over R-MAT 2^14-2^19 (seeds 0-1), Barabasi-Albert 2^16 /
#: 2^18 and six social graphs at k = 2-256 (79 instances) the geometric mean of `fast`'s and `default`'s cuts moved
#: by -0.07 % and 0.00 % (single instances -3 % ... +4 %, as label propagation's order moves them), at 0.88 x the
#: time; 128 arcs gave no more speed (0.98 x, 0.93 x) and meshes have no such vertices.
LP_MAX_ARCS = 256


@njit(cache=True, nogil=True, inline="always")
def table_size(degree):
    """The open-addressing table size for a vertex of this degree: the smallest power of two of at least 16
    slots above twice the degree (at most half full)."""
    size = 16
    while size < 2 * degree + 2:
        size *= 2
    return size


@njit(cache=True, nogil=True)
def lp_choices(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, cap, seed, labels,
               cluster_weights, order, lo, hi, constrained, blocks, table_keys, table_vals, touched, choice,
               normalized, dense, max_arcs):
    """One synchronous sub-round of label propagation, for chunks first, first + stride, ... of `chunks` static
    slices of order[lo:hi] (`apportion._chunked`): choice[v] = the cluster v would join, computed from the
    labels and cluster weights at the start of the sub-round; the call's thread (`first`) uses row
    `first` of the tables, so they need a row per thread, not per chunk.

    The connection to each neighbouring cluster is summed in an open-addressing hash table (`table_keys`,
    `table_vals`), or with `dense` in a row of `table_vals` indexed by the cluster id itself (an entry per
    vertex of the level; `table_keys` unused): no probing and no unpredictable branch per arc, which pays on small
    levels of high degree (`dense_rating`). The same choices either way.

    A vertex of more than `max_arcs` arcs rates the clusters on every ceil(degree / max_arcs)-th arc of its row,
    from the first (at most `max_arcs` arcs; `LP_MAX_ARCS`), so the tables need at most 2 * max_arcs + 2
    slots."""
    span = hi - lo
    m = indices.shape[0]
    row = first  # this thread's row of the tables (its chunks run one after the other)
    for t in range(first, chunks, stride):
        for i in range(lo + (span * t) // chunks, lo + (span * (t + 1)) // chunks):
            v = order[i]
            own = labels[v]
            nt = 0
            # v's table is the row's first power of two above twice its degree: a low-degree vertex probes a few
            # cache lines, not the whole row sized for the graph's largest degree (a hub's, on rmat 2^21 a
            # row of 2^17 slots)
            start, end = indptr[v], indptr[v + 1]
            step = 1
            if end - start > max_arcs:  # a high-degree vertex rates the clusters on an even sample of its row
                step = (end - start + max_arcs - 1) // max_arcs
            mask = table_size((end - start + step - 1) // step) - 1
            if dense:
                for e in range(start, end, step):
                    if constrained and blocks[indices[e]] != blocks[v]:
                        continue
                    a = labels[indices[e]]
                    old = table_vals[row, a]
                    touched[row, nt] = a  # kept only when a is new (branch-free; a zero-weight arc may repeat a)
                    nt += old == 0
                    table_vals[row, a] = old + edge_weights[e]
            else:
                ahead = ARCS_AHEAD * step
                for e in range(start, end, step):
                    if e + ahead < m:  # the label of the neighbour a few arcs on (a random read)
                        prefetch(labels, indices[e + ahead])
                    if constrained and blocks[indices[e]] != blocks[v]:
                        continue
                    a = labels[indices[e]]
                    slot = (a * 40503) & mask
                    while table_keys[row, slot] != -1 and table_keys[row, slot] != a:
                        slot = (slot + 1) & mask
                    if table_keys[row, slot] == -1:
                        table_keys[row, slot] = a
                        table_vals[row, slot] = 0
                        touched[row, nt] = slot
                        nt += 1
                    table_vals[row, slot] += edge_weights[e]
            # the best cluster ignoring the weight limit first: when it fits (nearly always), it is the best that
            # fits, and the limit was read once instead of once per candidate (a random read of cluster_weights
            # per arc: 2/3 of the kernel's time on delaunay 2^21's first level)
            best = _best_cluster(row, nt, touched, table_keys, table_vals, own, v, seed, cluster_weights,
                                 vertex_weights, cap, normalized, False, dense)
            if best != own and not _cluster_fits(cluster_weights, best, vertex_weights, v, cap):
                best = _best_cluster(row, nt, touched, table_keys, table_vals, own, v, seed, cluster_weights,
                                     vertex_weights, cap, normalized, True, dense)
            if dense:
                for j in range(nt):
                    table_vals[row, touched[row, j]] = 0
            else:
                for j in range(nt):
                    table_keys[row, touched[row, j]] = -1
            choice[v] = best


@njit(cache=True, nogil=True, inline="always")
def _best_cluster(row, nt, touched, table_keys, table_vals, own, v, seed, cluster_weights, vertex_weights, cap,
                  normalized, check_limit, dense):
    """The cluster v joins among the nt candidates in row `row` of the tables (`lp_choices`; with `dense` the
    touched entries are the cluster ids themselves): the highest rating, v's own cluster on a tie with it, else
    the highest `mix_hash`; with `check_limit`, only clusters that stay within `cap` with v. The same cluster
    whatever the candidates' order (and if a candidate repeats)."""
    best = own
    best_val = -1
    best_w = 1
    best_h = -1
    for j in range(nt):
        slot = touched[row, j]
        a = slot if dense else table_keys[row, slot]
        val = table_vals[row, slot]
        # rating val / wa (normalized: the cluster's weight without v) or val (wa = 1); compared as
        # val * best_w against best_val * wa, exact in integers
        wa = 1
        if normalized:
            wa = cluster_weights[a, 0] - (vertex_weights[v, 0] if a == own else 0)
            wa = max(wa, 1)
        lhs = val * best_w
        rhs = best_val * wa
        if a == own:
            if lhs >= rhs:
                if lhs > rhs or best != own:
                    best_val = val
                    best_w = wa
                    best = own
                    best_h = 9223372036854775807
        elif lhs >= rhs:
            if not check_limit or _cluster_fits(cluster_weights, a, vertex_weights, v, cap):
                h = mix_hash(a, seed + v)
                if lhs > rhs or h > best_h:
                    best_val = val
                    best_w = wa
                    best = a
                    best_h = h
    return best


@njit(cache=True, nogil=True)
def apply_lp_choices(order, lo, hi, choice, labels, cluster_weights, vertex_weights, cap):
    """Apply a sub-round's choices in order, re-checking each cluster's weight limit against the moves
    applied before it; returns the number of vertices moved."""
    ncon = vertex_weights.shape[1]
    moved = 0
    for i in range(lo, hi):
        v = order[i]
        a = choice[v]
        own = labels[v]
        if a == own:
            continue
        if _cluster_fits(cluster_weights, a, vertex_weights, v, cap):
            for c in range(ncon):
                cluster_weights[a, c] += vertex_weights[v, c]
                cluster_weights[own, c] -= vertex_weights[v, c]
            labels[v] = a
            moved += 1
    return moved


@njit(cache=True, nogil=True)
def labels_to_cmap(labels):
    """Renumber cluster labels to 0..nc-1 (in order of the smallest label); returns (cmap int32, nc)."""
    n = labels.shape[0]
    new_id = np.full(n, -1, dtype=np.int32)
    for v in range(n):
        new_id[labels[v]] = 0
    nc = 0
    for a in range(n):
        if new_id[a] == 0:
            new_id[a] = nc
            nc += 1
    cmap = np.empty(n, dtype=np.int32)
    for v in range(n):
        cmap[v] = new_id[labels[v]]
    return cmap, nc
