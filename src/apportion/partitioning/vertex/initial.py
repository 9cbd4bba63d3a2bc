"""Initial partitioning of the coarsest graph: recursive bisection by greedy graph growing + 2-way FM.

Seed 000 ch. 4.3.3 / 5.2.3 (recursive bisection, several tries, best kept) with unequal targets: each
bisection splits the target vector into its first half and the rest and grows block 0 to the first half's
share of the weight. A bisection with d bisection levels still below it may deviate by (1 + epsilon)^(1 / d) - 1
(the last one by the full epsilon); what compounds beyond epsilon the k-way rebalancer removes afterwards.
Each bisection is refined by `bisection_fm`, a 2-way FM with one queue per block that alternates sides under a
tight balance (the k-way FM would stall there: with 128 + 128 vertices and a 0.4 % tolerance no single move
fits)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from apportion._chunked import run_pair, using_threads
from apportion.partitioning.vertex._initial_kernels import (
    bisection_fm, grow_and_refine_tries)
from apportion._kernels.hashing import mix_hash
from apportion.partitioning.vertex._partition_kernels import block_weights
from apportion.partitioning.vertex._small_split_kernels import split_recursively
from apportion.partitioning.vertex.balance import EXACT_LIMITS_FROM, max_block_weights, rebalance_partition
from apportion.partitioning.vertex.coarsen import PARALLEL_MIN_VERTICES, coarsen
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph, induced_level, project_partition
from apportion.partitioning.vertex.options import PartitionOptions


#: the two halves of a split with at least this many vertices (and two or more blocks each to make) are split
#: further at the same time, each on its share of the threads (`_chunked.run_pair`); the result is the same
PAIR_MIN_VERTICES = 256


def _bisection_limits(graph: LevelGraph, share0: float, epsilon: float) -> np.ndarray:
    total = graph.vertex_weights.sum(axis=0)
    return max_block_weights(total, np.array([share0, 1.0 - share0]), epsilon)


def _targets(graph: LevelGraph, share0: float) -> np.ndarray:
    return np.outer([share0, 1.0 - share0], graph.vertex_weights.sum(axis=0).astype(np.float64))


def _patience(n: int) -> int:
    """Non-improving moves a bisection FM pass may make before it stops (METIS uses 1 % of n within 15-100)."""
    return int(min(max(0.01 * n, 25), 200))


def tries_for(n: int, tries: int) -> int:
    """Greedy-growing tries for a bisection of n vertices: `tries`, at least one, at most n (a graph of 2 or 3
    vertices has no more start vertices; the k - 1 tiny bisections of a very large k spent most of their time
    repeating them)."""
    return max(1, min(tries, n))


def grow_and_refine(graph: LevelGraph, share0: float, limits: np.ndarray, options: PartitionOptions,
                    seed: int) -> np.ndarray:
    """Flat bisection: `initial_tries` greedy-graph-growing tries from seeded random start vertices, each
    refined by `bisection_fm` (in one kernel call); the try with the least overload, then the smallest cut.
    A result still above a limit (vertex weights too coarse for FM alone) is rebalanced."""
    n = graph.n
    target0 = share0 * graph.vertex_weights.sum(axis=0).astype(np.float64)
    starts = np.array([mix_hash(a, seed) % n for a in range(tries_for(n, options.initial_tries))], dtype=np.int64)
    part = grow_and_refine_tries(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, target0,
                                 limits, _targets(graph, share0), starts, seed, options.initial_fm_passes,
                                 _patience(n))
    bw = block_weights(graph.vertex_weights, part, 2)
    if np.any(bw > limits):
        rebalance_partition(graph, part, bw, limits)
    return part


def bisect(graph: LevelGraph, share0: float, epsilon: float, options: PartitionOptions, seed: int) -> np.ndarray:
    """A 0/1 partition with block 0 holding about `share0` of the weight, block 1 the rest, each within
    (1 + epsilon) of its share where the vertex weights allow.

    Multilevel bisection (as METIS's initial partitioning does): the graph is coarsened by Suitor heavy-edge
    matching to about `bisection_coarsest` vertices, bisected there by `grow_and_refine`, and projected back
    with `bisection_fm` (which also removes overload) at every level.
    """
    limits = _bisection_limits(graph, share0, epsilon)
    targets = np.array([share0, 1.0 - share0])
    if graph.n <= 2 * options.bisection_coarsest:  # flat (`small_split_vertices` splits these in one kernel)
        return grow_and_refine(graph, share0, limits, options, seed)
    # Suitor matching is a serial kernel: no parallel-region start-ups on these many small graphs
    sub_options = replace(options, coarsest_per_block=0, coarsest_min=options.bisection_coarsest,
                          coarsening="matching", matching="suitor")
    bisection = PartitionContext(k=2, targets=targets, epsilon=epsilon, max_block_weights=limits,
                                 options=sub_options, seed=seed)
    hierarchy, cmaps, _ = coarsen(graph, bisection)
    part = grow_and_refine(hierarchy[-1], share0, limits, options, seed)
    for depth in range(len(hierarchy) - 2, -1, -1):
        level = hierarchy[depth]
        part = project_partition(cmaps[depth], part)
        bw = block_weights(level.vertex_weights, part, 2)
        bisection_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits,
                     _targets(level, share0), options.initial_fm_passes, _patience(level.n))
        if np.any(bw > limits):
            rebalance_partition(level, part, bw, limits)
    return part


def split_blocks(graph: LevelGraph, ids: np.ndarray, targets: np.ndarray, first_block: int, epsilon: float,
                 options: PartitionOptions, seed: int, out: np.ndarray, levels: int | None = None) -> None:
    """Blocks first_block .. first_block + len(targets) - 1 of `graph`'s vertices into out[ids]: a bisection
    (block 0 gets targets[:len // 2]), then each half split further as the subgraph it induces (built from its
    parent: O(its size), not O(the coarsest graph's)). A graph of at most `small_split_vertices` splits all the
    way in one kernel call.

    With `levels`, the recursion stops after that many bisection levels (deep multilevel's extension,
    `deep.py`): each vertex then gets the first block of the group of blocks its side stands for. The
    bisections' tolerances are those of the whole recursion either way."""
    k = targets.shape[0]
    if k == 1 or graph.n == 0 or levels == 0:
        out[ids] = first_block
        return
    whole = levels is None or levels >= math.ceil(math.log2(k))
    if whole and graph.n <= small_split_vertices(options) and _float_limits_suffice(graph):
        out[ids] = first_block + split_recursively(graph.indptr, graph.indices, graph.edge_weights,
                                                   graph.vertex_weights, np.ascontiguousarray(targets), epsilon,
                                                   seed, options.initial_tries, options.initial_fm_passes)
        return
    k0 = k // 2
    share0 = float(targets[:k0].sum() / targets.sum())
    depth = math.ceil(math.log2(k))
    level_epsilon = (1.0 + epsilon) ** (1.0 / depth) - 1.0
    with using_threads(None if graph.n >= PARALLEL_MIN_VERTICES else 1):  # a small bisection: one thread
        part = bisect(graph, share0, level_epsilon, options, seed)
    halves = [np.flatnonzero(part == side) for side in (0, 1)]

    def half_graph(side: int) -> LevelGraph:  # made by the half's own call: one side's subgraph at a time
        return induced_level(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, halves[side])

    below = None if levels is None else levels - 1

    def split_left():
        split_blocks(half_graph(0), ids[halves[0]], targets[:k0], first_block, epsilon, options,
                     (seed * 31 + 1) % (1 << 40), out, below)

    def split_right():
        split_blocks(half_graph(1), ids[halves[1]], targets[k0:], first_block + k0, epsilon, options,
                     (seed * 31 + 2) % (1 << 40), out, below)

    if k >= 4 and graph.n >= PAIR_MIN_VERTICES and below != 0:
        run_pair(split_left, split_right)  # the halves write disjoint entries of `out`
    else:
        split_left()
        split_right()


def small_split_vertices(options: PartitionOptions) -> int:
    """Graphs of at most this many vertices are bisected flat (`bisect`), and split recursively in one kernel
    call (`split_recursively`)."""
    return 2 * options.bisection_coarsest


def _float_limits_suffice(graph: LevelGraph) -> bool:
    """Every limit of every split below `graph` comes from `float_max_block_weights` (`max_block_weights`'
    float path): no weight total reaches `EXACT_LIMITS_FROM`."""
    return int(graph.vertex_weights.sum(axis=0).max(initial=0)) < EXACT_LIMITS_FROM


def initial_partition(graph: LevelGraph, ctx: PartitionContext, seed: int) -> np.ndarray:
    """A k-way partition (int32) of `graph` for the normalised `ctx.targets` by recursive bisection within
    `ctx.epsilon`, with `ctx.options`; every random choice derives from `seed`. The two halves of a split are
    split further at the same time on `ctx.threads` threads (None: Numba's setting); the result does not depend
    on the thread count."""
    out = np.zeros(graph.n, dtype=np.int32)
    with using_threads(ctx.threads):  # the whole budget, however small the coarsest graph
        split_blocks(graph, np.arange(graph.n, dtype=np.int64), np.asarray(ctx.targets, dtype=np.float64), 0,
                     ctx.epsilon, ctx.options, seed % (1 << 40), out)
    return out
