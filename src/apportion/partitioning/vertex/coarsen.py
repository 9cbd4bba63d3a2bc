"""Coarsening: build the multilevel hierarchy by matching or size-constrained label-propagation clustering.

Seed 000 ch. 4.3.2 (mutual-choice heavy-edge matching) and ch. 5.2.1 (Suitor-style proposals), with the
additions this project takes from METIS (a cap on coarse vertex weight, 2-hop matching of leaves and twins when
matching stalls) and from KaMinPar / Mt-KaHyPar (size-constrained label-propagation clustering, which keeps
shrinking power-law graphs where matchings stall).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from apportion._chunked import run_chunked, thread_budget
from apportion.graph._degree_kernels import degree_extremes
from apportion.partitioning.vertex._coarsen_kernels import (
    LP_MAX_ARCS, ORDER_RUN, apply_lp_choices, batched_order, labels_to_cmap, lp_choices, mutual_choices, mutual_pairs,
    suitor_matching, table_size, two_hop_matching)
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph, contract_graph
from apportion.partitioning.vertex.options import PartitionOptions


#: graphs smaller than this run their parallel steps on one thread: handing chunks to other threads costs more
#: than it saves there, and much more on a machine whose cores are shared
PARALLEL_MIN_VERTICES = 20_000


def level_threads(n: int, threads: int) -> None:
    """Use `threads` Numba threads for a level with n vertices (one thread for small levels). Results never
    depend on the thread count, only the speed does."""
    numba.set_num_threads(threads if n >= PARALLEL_MIN_VERTICES else 1)


def mutual_matching(indptr, indices, edge_weights, vertex_weights, cap, rounds, seed) -> np.ndarray:
    """Heavy-edge matching in parallel rounds (seed 000 ch. 4.3.2): each unmatched vertex picks its heaviest
    unmatched neighbour whose merged weight stays within `cap`; mutual picks are matched. The hash that breaks
    ties between equal edge weights changes every round (seed + round). Stops after `rounds` rounds or a
    round that matched nothing; the result does not depend on the thread count.

    Returns labels (int32): labels[v] = min(v, mate) for matched vertices, v otherwise.
    """
    n = indptr.shape[0] - 1
    chunks = 4 * thread_budget()
    mate = np.full(n, -1, dtype=np.int32)
    matched = np.zeros(n, dtype=np.int64)  # 1 once matched: best_in_row skips these neighbours
    room = np.ascontiguousarray(cap[np.newaxis, :] - vertex_weights)  # the most a partner of v may weigh
    choice = np.full(n, -1, dtype=np.int32)
    found = np.zeros(chunks, dtype=np.int64)
    for r in range(rounds):
        run_chunked(mutual_choices, chunks, indptr, indices, edge_weights, vertex_weights, room, mate, matched,
                    seed + r, choice)
        run_chunked(mutual_pairs, chunks, choice, mate, matched, found)
        if not found.any():
            break
    ids = np.arange(n, dtype=np.int32)
    return np.where(mate < 0, ids, np.minimum(ids, mate)).astype(np.int32)


def label_propagation_clustering(indptr, indices, edge_weights, vertex_weights, cap, rounds, batches, seed,
                                 stop_fraction, blocks, normalized=False, max_arcs=None) -> np.ndarray:
    """Size-constrained label propagation (Meyerhenke et al.; KaMinPar's coarsening): every vertex joins the
    neighbouring cluster it is most strongly connected to, if the cluster stays within `cap` in every
    constraint. Each round visits the vertices in `batches` synchronous sub-rounds (`batched_order`: seeded
    random membership, runs of consecutive ids inside): choices are computed in parallel from the state at
    the start of the sub-round (`lp_choices`) and applied in order with the weight limit re-checked
    (`apply_lp_choices`), so the result depends only on the seed, never on the thread count. Stops early after
    a round that moved fewer than `stop_fraction * n` vertices.

    With `normalized`, a vertex rates a cluster by its connection divided by the cluster's weight (KaHyPar's
    w(u, v) / (c(u) c(v)) rating, first constraint) instead of the plain connection, so hubs' clusters do not
    swallow their periphery on power-law graphs.

    `blocks` (int32, length n, or empty for none) restricts clusters to one block each: a vertex only looks
    at neighbours of its own block (the V-cycle of KaFFPa / KaMinPar: coarsening that keeps a partition).

    A vertex of more than `max_arcs` arcs (None: `LP_MAX_ARCS`) rates the clusters on an even sample of that
    many of them.

    Returns labels (int32).
    """
    n = indptr.shape[0] - 1
    chunks = 4 * thread_budget()
    labels = np.arange(n, dtype=np.int32)
    cluster_weights = vertex_weights.copy()
    max_arcs = LP_MAX_ARCS if max_arcs is None else max(1, int(max_arcs))
    read = min(int(degree_extremes(indptr)[0]), max_arcs)  # the most arcs a vertex reads
    size = table_size(read)  # one open-addressing table row per thread; a vertex uses its first slots
    dense = dense_rating(n, int(indptr[n]) if n else 0)
    rows = max(1, min(thread_budget(), chunks))  # as many as run_chunked's threads
    table_keys = np.full((rows, 0 if dense else size), -1, dtype=np.int32)
    table_vals = np.zeros((rows, n if dense else size), dtype=np.int64)
    touched = np.zeros((rows, size), dtype=np.int64)
    choice = np.empty(n, dtype=np.int32)
    order = np.empty(n, dtype=np.int32)
    batch_ptr = np.zeros(batches + 1, dtype=np.int64)
    constrained = blocks.shape[0] == n
    for r in range(rounds):
        batched_order(n, ORDER_RUN, batches, seed, r, order, batch_ptr)
        moved = 0
        for batch in range(batches):
            lo, hi = int(batch_ptr[batch]), int(batch_ptr[batch + 1])
            run_chunked(lp_choices, chunks, indptr, indices, edge_weights, vertex_weights, cap, seed, labels,
                        cluster_weights, order, lo, hi, constrained, blocks, table_keys, table_vals, touched,
                        choice, normalized, dense, max_arcs)
            moved += apply_lp_choices(order, lo, hi, choice, labels, cluster_weights, vertex_weights, cap)
        if moved < max(1.0, stop_fraction * n):
            break
    return labels


#: label propagation sums connections in dense rows (one entry per vertex of the level and per thread, 8 bytes
#: each) on levels of at most this many vertices whose average degree is at least DENSE_RATING_MIN_DEGREE: the
#: clustering of rmat 2^21's second level (133 k vertices, average degree 345) 0.85 -> 0.50 s; on rmat's
#: first level (1.24 M vertices) the rows no longer stay in cache (0.91 -> 1.15 s), nor on delaunay's sparse
#: levels (0.48 -> 0.79 s at 2^21, 0.09 -> 0.17 s on its second level)
DENSE_RATING_MAX_VERTICES = 1 << 18
DENSE_RATING_MIN_DEGREE = 16


def dense_rating(n: int, arcs: int) -> bool:
    """Whether label propagation on a level of n vertices and `arcs` adjacency entries sums connections in
    dense rows indexed by cluster id (`lp_choices`): on small levels of high average degree."""
    return n <= DENSE_RATING_MAX_VERTICES and arcs >= DENSE_RATING_MIN_DEGREE * n


def coarsest_size(k: int, options: PartitionOptions) -> int:
    """Coarsening stops once a graph has at most this many vertices."""
    return max(options.coarsest_per_block * k, options.coarsest_min)


def cluster_weight_cap(graph: LevelGraph, k: int, targets: np.ndarray, epsilon: float,
                       options: PartitionOptions, per_block: int | None = None) -> np.ndarray:
    """Maximum weight of a coarse vertex per constraint (KaMinPar's max cluster weight, scaled to the smallest
    target so a coarse vertex always fits the smallest block's slack, and METIS's 1.5 W / CoarsenTo)."""
    total = graph.vertex_weights.sum(axis=0)
    heaviest = graph.vertex_weights.max(axis=0) if graph.n else np.zeros_like(total)
    return cluster_weight_cap_of(graph.n, total, heaviest, k, targets, epsilon, options, per_block)


def cluster_weight_cap_of(n: int, total: np.ndarray, heaviest: np.ndarray, k: int, targets: np.ndarray,
                          epsilon: float, options: PartitionOptions, per_block: int | None = None) -> np.ndarray:
    """`cluster_weight_cap` of a graph with n vertices, total vertex weight `total` and heaviest vertex weight
    `heaviest` per constraint (the GPU coarsening keeps its graph on the device and reads back only these).

    The cap is sized for the blocks a level of n vertices is partitioned into: k, or fewer on small levels (n /
    `coarsest_per_block`). With `per_block` (deep multilevel, `deep.py`), a level of n vertices is partitioned
    into about n / per_block groups of blocks, and the cap is sized for those."""
    total = np.asarray(total).astype(np.float64)
    heaviest = np.asarray(heaviest)
    deep = per_block is not None
    per_block = options.coarsest_per_block if per_block is None else per_block
    k_eff = min(k, max(2.0, n / max(per_block, 1)))
    with np.errstate(over="ignore"):  # a huge ε: inf, capped at the total below
        by_epsilon = options.cluster_weight_fraction * epsilon * float(targets.min()) * k * total / k_eff
    coarsest = max(options.coarsest_per_block * k_eff, options.coarsest_min) if deep else coarsest_size(k, options)
    by_size = 1.5 * total / coarsest
    # never above the total (a huge epsilon made it overflow int64 and the coarsening took garbage caps)
    cap = np.maximum(np.floor(np.minimum(np.maximum(by_epsilon, by_size), total)), heaviest)
    return np.maximum(cap, 1).astype(np.int64)


NO_BLOCKS = np.zeros(0, dtype=np.int32)


def cluster_level(graph: LevelGraph, cap: np.ndarray, method: str, options: PartitionOptions,
                  seed: int, blocks: np.ndarray | None = None) -> np.ndarray:
    """Cluster labels for one level by `method` ("matching" or "clustering"), with 2-hop matching of the
    vertices left alone when the level would shrink too little. With `blocks` (a partition of this level),
    clustering only merges vertices of one block and no 2-hop matching runs (V-cycles)."""
    if method == "matching":
        if options.matching == "suitor":
            labels = suitor_matching(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, cap,
                                     seed)
        else:
            labels = mutual_matching(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, cap,
                                     options.matching_rounds, seed)
    else:
        rounds = options.clustering_rounds
        if graph.n >= options.large_level:
            rounds = min(rounds, options.large_level_clustering_rounds)
        labels = label_propagation_clustering(graph.indptr, graph.indices, graph.edge_weights,
                                              graph.vertex_weights, cap, rounds,
                                              options.clustering_batches, seed, options.clustering_stop_fraction,
                                              NO_BLOCKS if blocks is None else blocks,
                                              options.clustering_rating == "normalized")
    if blocks is not None:
        return labels
    clusters = labels_to_cmap(labels)[1] if graph.n else 0
    if graph.n and clusters > options.two_hop_threshold * graph.n:
        two_hop_matching(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, labels, cap,
                         seed + 1)
    return labels


def first_method(options: PartitionOptions, n: int, blocks) -> str:
    """The coarsening method of the first level of an n-vertex graph: matching for "matching", and for "auto"
    on graphs of at most `matching_first_max_n` vertices (0: any); clustering otherwise and always in a
    V-cycle (`blocks` given: clusters must stay inside blocks). The CPU and GPU drivers share this rule."""
    if blocks is not None or options.coarsening == "clustering":
        return "clustering"
    if options.coarsening == "auto" and 0 < options.matching_first_max_n < n:
        return "clustering"
    return "matching"


#: what to do with a clustered level (`level_verdict`)
KEEP, RETRY, STOP = "keep", "retry", "stop"


def level_verdict(options: PartitionOptions, method: str, n: int, coarse_n: int) -> tuple[str, str]:
    """After clustering a level of n vertices into coarse_n: (the method from now on, KEEP | RETRY | STOP).

    With coarsening "auto", matching gives way to clustering for good once a level shrinks by less than a third
    (the level is retried with clustering unless it shrank too little to keep anyway); a level that keeps more
    than `min_shrink` of its vertices ends the coarsening. The CPU and GPU drivers share this rule."""
    shrink = coarse_n / max(n, 1)
    if options.coarsening == "auto" and method == "matching" and shrink > 2 / 3:
        method = "clustering"
        if shrink > options.min_shrink:
            return method, RETRY
    if coarse_n >= n or shrink > options.min_shrink:
        return method, STOP
    return method, KEEP


def max_levels(n: int) -> float:
    """The number of levels after which coarsening stops whatever the shrink (a guard against slow levels)."""
    return 4 * math.log2(max(n, 2)) + 8


def coarsen(graph: LevelGraph, ctx: PartitionContext, blocks: np.ndarray | None = None, limit: int | None = None,
            per_block: int | None = None) -> tuple[list[LevelGraph], list[np.ndarray], np.ndarray | None]:
    """The hierarchy [G0, G1, ...], the maps cmaps[i] from G_i to G_{i+1}, and (with `blocks`, a partition of
    G0 that every cluster must respect, for V-cycles) that partition carried to the coarsest graph.

    Reads k, targets, epsilon, options, seed and threads (None: leave Numba's setting alone) from `ctx`.

    Stops when a graph has at most `limit` (None: `coarsest_size`) vertices or a level keeps more than
    `min_shrink` of its vertices; `per_block` sizes the cluster-weight cap for deep multilevel's groups
    (`cluster_weight_cap_of`). With coarsening "auto", levels use matching while it shrinks the graph by at
    least a third and switch to label-propagation clustering for good once it does not (matching stalls on
    power-law graphs).
    """
    k, options, threads = ctx.k, ctx.options, ctx.threads
    levels = [graph]
    cmaps: list[np.ndarray] = []
    limit = coarsest_size(k, options) if limit is None else limit
    method = first_method(options, graph.n, blocks)
    current_blocks = None if blocks is None else np.ascontiguousarray(blocks, dtype=np.int32)
    level = 0
    while levels[-1].n > limit:
        current = levels[-1]
        if threads is not None:
            level_threads(current.n, threads)
        cap = cluster_weight_cap(current, k, ctx.targets, ctx.epsilon, options, per_block)
        labels = cluster_level(current, cap, method, options, ctx.seed * 7919 + level, current_blocks)
        cmap, coarse_n = labels_to_cmap(labels)
        del labels  # n entries, not held through the contraction (the peak of a mesh's first level)
        method, verdict = level_verdict(options, method, current.n, coarse_n)
        if verdict == RETRY:
            continue
        if verdict == STOP:
            break
        levels.append(contract_graph(current, cmap, coarse_n))
        cmaps.append(cmap)
        if current_blocks is not None:
            coarse_blocks = np.empty(coarse_n, dtype=np.int32)
            coarse_blocks[cmap] = current_blocks
            current_blocks = coarse_blocks
        level += 1
        if level > max_levels(graph.n):
            break
    return levels, cmaps, current_blocks
