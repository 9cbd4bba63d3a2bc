"""Parallel k-way FM: the boundary cut into contiguous id ranges, one FM search per range, side by side.

Serial FM (`_refine_kernels.kway_fm`) is the finest level's largest cost on meshes at scale (a 2^21-vertex 3-D
grid at k = 64: eight passes over 300 k boundary vertices, 0.6-0.75 s each). Here S searches run at once on the
threads there are (S a power of two set by the number of seeds, `fm_searches`), search t owning the vertices of
the t-th of S id ranges holding equal shares of the seeds: it moves and lists only its own vertices and sees every
other vertex in its block at the start of the round (`frozen`), so its moves, its gains and therefore the whole
result depend on the seed and S alone, never on the thread count or the threads' timing.

Each search keeps block weights of its own under limits that give it a share of every block's room in
proportion to its seeds in or next to the block (`search_limits`), so that the searches' moves together never
overfill a block while a block inside one search's range keeps all of its room there (an even split of every
block's room cost a third of FM's gain on a 1024 x 1024 grid at k = 256). Their moves are merged and the cut
change recounted exactly (`merged_cut_decrease`: an edge whose two ends two searches moved is the case a search's
own count misses); a merge that would raise the cut is dropped whole, and that round's seeds go to one serial
search instead.

A second round shifts the ranges by half a range and is seeded with the boundary vertices next to the first
round's range borders, which no search could move together with their neighbours across the border; each border
now lies inside one search's range. Vertex ids are the locality this relies on: the input's own order or the
partitioner's breadth-first renumbering on the finest level (grids, meshes and road networks), the clusters' order
on the coarse levels. Where they carry none (more than MAX_BORDER_FRACTION of the seeds next to another range),
FM runs serially. KaMinPar and Mt-KaHyPar run localized FM searches that claim vertices as they go, whose result
depends on the threads' timing; these are static and deterministic.
"""

from __future__ import annotations

import numpy as np

from apportion._chunked import run_chunked
from apportion.partitioning.vertex._parallel_fm_kernels import (
    border_vertices, fm_searches_chunk, merged_cut_decrease, seed_block_counts)
from apportion.partitioning.vertex._refine_kernels import boundary_vertices, kway_fm, touched_vertices
from apportion.partitioning.vertex.contract import LevelGraph

#: searches at most (`fm_searches`)
MAX_SEARCHES = 64

#: where more than this fraction of the seeds have a neighbour in another search's range, the ids carry no
#: locality and FM runs serially: on rmat 2^18 at k = 256 (random ids; `default`'s hub-block rest, 117 k seeds)
#: two searches gained 6,988 where the serial kernel gained 11,915, in 0.66 against 0.74 s
MAX_BORDER_FRACTION = 0.25

#: rounds of searches (the second with the ranges shifted by half a range)
PARALLEL_FM_ROUNDS = 2


def _serial_fm(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray, passes: int,
               stop_fraction: float, max_patience: int, seed: int, seeds: np.ndarray, min_improvement: float) -> int:
    return int(kway_fm(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw, max_weights,
                       bw.shape[0], passes, stop_fraction, max_patience, seed, seeds, float(min_improvement), -1, 0,
                       seeds[:0], seeds[:0], -1))


def fm_searches(seeds: int, seeds_per_search: int) -> int:
    """How many searches k-way FM with this many seeds runs as (1: the serial kernel): the largest power of two
    with at least `seeds_per_search` seeds each (0: always 1), at most MAX_SEARCHES. A number of the input and
    the options alone, so that the partition does not depend on the thread count: the searches are spread over
    the threads there are (one after another on one thread), and a power of two shares evenly among 2, 4, 8 ...
    threads (5 searches on 2 threads: one thread ran 3 of them, the other 2)."""
    if seeds_per_search <= 0 or seeds < 2 * seeds_per_search:
        return 1
    return min(MAX_SEARCHES, 1 << ((seeds // seeds_per_search).bit_length() - 1))


def search_limits(bw: np.ndarray, max_weights: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(searches, k, ncon) limits of the searches' own block weights: each block's room above its weight now
    (max_weights - bw) shared among the searches in proportion to `counts` (searches x k: each search's seeds in
    or next to the block, `seed_block_counts`; rounded down; a block no seed touches shares it evenly), so
    that the searches' moves together keep it within max_weights, and a block inside one search's range keeps
    all of its room there. A block above its limit keeps that limit (no search may move into it until moves out
    have made room)."""
    counts = counts.copy()
    counts[:, counts.sum(axis=0) == 0] = 1
    totals = counts.sum(axis=0)
    room = np.maximum(max_weights - bw, 0)  # (k, ncon)
    share = room[None, :, :] * counts[:, :, None] // totals[None, :, None]
    return np.where(max_weights >= bw, bw + share, max_weights)


def owner_ranges(n: int, seeds: np.ndarray, searches: int, shift: float) -> np.ndarray:
    """owner[v] (int32) for v < n: search t owns the ids from the (t + shift)-th T-quantile of the sorted seeds
    up to the next one, the last range wrapping around to the first."""
    owner = np.empty(n, dtype=np.int32)
    ns = seeds.shape[0]
    starts = [int(seeds[min(ns - 1, int((t + shift) * ns / searches))]) for t in range(searches)]
    starts[0] = 0 if shift == 0 else starts[0]
    for t in range(searches):
        lo, hi = starts[t], starts[t + 1] if t + 1 < searches else starts[0]
        if lo < hi:
            owner[lo:hi] = t
        elif lo > hi:
            owner[lo:] = t
            owner[:hi] = t
    return owner


def parallel_fm(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray, passes: int,
                stop_fraction: float, seed: int, vertices: np.ndarray, min_improvement: float, searches: int,
                rounds: int = PARALLEL_FM_ROUNDS, max_border_fraction: float = MAX_BORDER_FRACTION,
                max_patience: int = 0) -> int:
    """k-way FM in `searches` (>= 2) searches at once, `rounds` rounds (see the module's docstring), seeded from
    `vertices` (increasing ids, a superset of the boundary); serially where more than `max_border_fraction` of
    the seeds have a neighbour in another range. Each search's passes give up as `fm_patience` says, after at
    most `max_patience` moves without a new best (0: no cap). Never increases the cut; every block ends within
    max_weights.
    Updates part and bw; returns the cut decrease."""
    total = 0
    seeds = spread = vertices  # the round's seeds, and the vertices whose quantiles set its ranges
    for r in range(rounds):
        if seeds.shape[0] == 0 or spread.shape[0] < searches:
            break
        owner = owner_ranges(graph.n, spread, searches, 0.5 * r)
        if r == 0 and border_vertices(graph.indptr, graph.indices, owner, seeds).shape[0] > \
                max_border_fraction * seeds.shape[0]:
            return _serial_fm(graph, part, bw, max_weights, passes, stop_fraction, max_patience, seed, seeds,
                              min_improvement)
        mine = owner[seeds]
        order = np.argsort(mine, kind="stable")
        seed_ptr = np.searchsorted(mine[order], np.arange(searches + 1)).astype(np.int64)
        frozen = part.copy()
        bws = np.broadcast_to(bw, (searches,) + bw.shape).copy()
        limits = search_limits(bw, max_weights, seed_block_counts(graph.indptr, graph.indices, part, seeds, mine,
                                                                  searches, bw.shape[0]))
        gains = np.zeros(searches, dtype=np.int64)
        run_chunked(fm_searches_chunk, searches, graph.indptr, graph.indices, graph.edge_weights,
                    graph.vertex_weights, part, frozen, owner, bws, limits, bw.shape[0], passes, stop_fraction,
                    max_patience, seed + 101 * r, np.ascontiguousarray(seeds[order]), seed_ptr, float(min_improvement),
                    gains)
        decrease, moved = merged_cut_decrease(graph.indptr, graph.indices, graph.edge_weights, frozen, part)
        if decrease < 0:  # the searches' moves undid each other's gains: this round's seeds in one search
            part[:] = frozen
            return total + _serial_fm(graph, part, bw, max_weights, passes, stop_fraction, max_patience,
                                      seed + 101 * r, seeds, min_improvement)
        bw += (bws - bw).sum(axis=0)
        total += int(decrease)
        # the next round: the boundary vertices where this round's searches met, inside the shifted ranges
        boundary = boundary_vertices(graph.indptr, graph.indices, part,
                                     touched_vertices(graph.indptr, graph.indices, spread, moved))
        seeds = border_vertices(graph.indptr, graph.indices, owner, boundary)
        spread = boundary
    return total
