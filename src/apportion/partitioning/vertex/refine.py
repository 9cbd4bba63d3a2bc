"""Refinement: the two-direction request-buffer refiner (seed 000 ch. 4.3.4, with Jet's afterburner), k-way FM
(KaFFPa-style; as deterministic searches side by side on large levels, `parallel_fm.py`) and flow-based refinement
of block pairs (`flow.py`), used as preset data says."""

from __future__ import annotations

import numpy as np

from apportion._chunked import run_chunked, thread_budget, using_threads
from apportion._memory import release_free_memory
from apportion.graph._degree_kernels import degree_extremes
from apportion.partitioning.vertex._fm_gain_cache_kernels import fill_gain_cache_chunk, kway_fm_cached
from apportion.partitioning.vertex._refine_kernels import (
    EXACT_UPDATE_DEGREE, accept_requests, afterburner, apply_if_not_worse, boundary_vertices, file_requests,
    kway_fm, touched_vertices)
from apportion.partitioning.vertex.boundary import all_boundary_vertices
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.flow import refine_flows
from apportion.partitioning.vertex.parallel_fm import fm_searches, parallel_fm


def refine_two_direction(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray,
                         passes: int, seed: int, boundary: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """Parallel label-propagation-style refinement with one move direction per half-pass and per-block
    acceptance under the maximum weight. Never increases the cut; never pushes a block above its limit.

    Only boundary vertices file requests: `boundary` (increasing ids; computed when None) is kept up to date
    after every half-pass from the moved vertices' neighbourhoods, so a half-pass costs O(boundary volume),
    not O(m). Updates part and bw; returns (number of moves kept, the boundary afterwards).
    """
    if boundary is None:
        boundary = all_boundary_vertices(graph, part)
    if passes <= 0 or graph.n == 0:
        return 0, boundary
    request = np.full(graph.n, -1, dtype=np.int32)  # position of a vertex's request in the boundary, or -1
    chunks = 4 * thread_budget()
    filed = np.zeros(chunks, dtype=np.int64)
    moved = 0
    for p in range(passes):
        moved_in_pass = 0
        for direction in (0, 1):
            if boundary.shape[0] == 0:
                break
            half_seed = seed * 7919 + 2 * p + direction
            req_block = np.empty(boundary.shape[0], dtype=np.int32)
            req_gain = np.empty(boundary.shape[0], dtype=np.int64)
            run_chunked(file_requests, chunks, graph.indptr, graph.indices, graph.edge_weights,
                        graph.vertex_weights, part, bw, max_weights, bw.shape[0], direction, half_seed, request,
                        req_block, req_gain, boundary, filed)
            accepted = None
            if filed.any():
                keep = np.empty(boundary.shape[0], dtype=np.bool_)
                run_chunked(afterburner, chunks, graph.indptr, graph.indices, graph.edge_weights, part, request,
                            req_block, req_gain, half_seed, boundary, keep)
                kept = np.flatnonzero(keep)
                if kept.shape[0]:
                    accepted, blocks = accept_requests(graph.vertex_weights, bw, max_weights, boundary, kept,
                                                       req_block, req_gain)
                    if accepted.shape[0] == 0 or apply_if_not_worse(
                            graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                            accepted, blocks, request) < 0:
                        accepted = None
            request[boundary] = -1
            if accepted is not None:
                moved_in_pass += accepted.shape[0]
                boundary = boundary_vertices(graph.indptr, graph.indices, part,
                                             touched_vertices(graph.indptr, graph.indices, boundary, accepted))
        moved += moved_in_pass
        if moved_in_pass == 0:
            break
    return moved, boundary


#: the gain cache (n · k entries) is used only while it takes at most this many bytes per arc of the graph (8 int32
#: entries), for k up to GAIN_CACHE_WIDE_K (R-MAT 2^14-2^18, seeds 0-2, k = 8 / 16 / 64: 8 int32 entries per arc
#: against 2 gave the same cuts to +-0.07 % and times within noise; rmat 2^21 at k = 64, whose hub block's rest
#: (895 k vertices, 6.4 entries per arc) then gets the cache: that level's FM 4.0 -> 2.85 s for 4.5 % more gain,
#: peak memory +2.4 %). Entries are int16 where every vertex's edge weight fits (`gain_cache_dtype`), so such a
#: graph gets the cache up to 16 entries per arc: Barabási-Albert 2^19 at k = 64 (8.0 per arc, just over the 8
#: int32 entries) took 19.0 s in the plain kernel's eight passes on its finest level and 8.6 s with the cache, the
#: same gain to 0.4 % (2026-11-28) ...
GAIN_CACHE_BYTES_PER_ARC = 32.0
#: ... and this many above it (rows of k entries span k / 16 cache lines in int32, and at k = 256 the limit of 8
#: int32 entries made rmat 2^18 up to 30 % slower)
GAIN_CACHE_BYTES_PER_ARC_WIDE = 8.0
GAIN_CACHE_WIDE_K = 64


def gain_cache_dtype(graph: LevelGraph, max_degree: int) -> type:
    """The narrowest of int16, int32 and int64 that holds every entry of the gain cache and every gain: int16
    when the heaviest edge times the largest degree (a bound on any vertex's edge weight) is below 2^15, int32
    when the total edge weight is below 2^31."""
    weights = graph.edge_weights
    if weights.shape[0] == 0:
        return np.int16
    if int(weights.max()) * max_degree < 2**15 - 1:
        return np.int16
    return np.int32 if int(weights.sum()) < 2**31 - 1 else np.int64


def gain_cache_plan(graph: LevelGraph, k: int) -> type | None:
    """The dtype of the gain cache k-way FM keeps on this level (`_fm_gain_cache_kernels`), or None where it
    keeps none: a cache is kept where the graph has hubs (a vertex of degree above EXACT_UPDATE_DEGREE, whose key
    the plain kernel can only keep towards one block), k ≥ 3 (with two blocks that one block is the only other,
    so the plain kernel's keys are exact) and the cache's n · k entries (`gain_cache_dtype`) take at most
    GAIN_CACHE_BYTES_PER_ARC bytes per arc (GAIN_CACHE_BYTES_PER_ARC_WIDE for k above GAIN_CACHE_WIDE_K).
    Without hubs the plain kernel's keys are exact already and its O(deg) recount is cheaper than an O(k) row
    scan."""
    arcs = graph.indices.shape[0]
    if k < 3 or graph.n == 0 or arcs == 0:
        return None
    per_arc = GAIN_CACHE_BYTES_PER_ARC if k <= GAIN_CACHE_WIDE_K else GAIN_CACHE_BYTES_PER_ARC_WIDE
    if graph.n * k * 2 > per_arc * arcs:  # not even int16 entries fit: no need to look at the degrees
        return None
    max_degree = int(degree_extremes(graph.indptr)[0])
    if max_degree <= EXACT_UPDATE_DEGREE:
        return None
    dtype = gain_cache_dtype(graph, max_degree)
    return dtype if graph.n * k * np.dtype(dtype).itemsize <= per_arc * arcs else None


def use_gain_cache(graph: LevelGraph, k: int) -> bool:
    """Whether k-way FM keeps a gain cache on this level (`gain_cache_plan`)."""
    return gain_cache_plan(graph, k) is not None


def gain_cache(graph: LevelGraph, part: np.ndarray, k: int, dtype: type | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(conn, degree_weight): every vertex's edge weight into each block (n · k entries, row-major, of `dtype`;
    None: `gain_cache_dtype`) and into all blocks, filled in parallel."""
    if dtype is None:
        dtype = gain_cache_dtype(graph, int(degree_extremes(graph.indptr)[0]))
    conn = np.zeros(graph.n * k, dtype=dtype)
    degree_weight = np.empty(graph.n, dtype=np.int64)
    chunks = max(1, min(64, graph.n // 4096))
    run_chunked(fill_gain_cache_chunk, chunks, graph.indptr, graph.indices, graph.edge_weights, part, k, conn,
                degree_weight)
    return conn, degree_weight


def refine_fm(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray, passes: int,
              stop_fraction: float, seed: int, vertices: np.ndarray | None = None,
              min_improvement: float = 0.0, cached: bool | None = None, give_up_above: int = -1,
              search_seeds: int = 0, max_patience: int = 0) -> int:
    """k-way FM with rollback to the best prefix, seeded from `vertices` (a superset of the boundary, increasing;
    all vertices when None); passes stop early once one gains less than `min_improvement` of the cut, or once
    the cut is predicted not to reach `give_up_above` (an alternative's cut; -1: none; `fm_passes_end`). Never
    increases the cut; every move fits its block. A pass gives up after `stop_fraction` of its boundary moves
    without a new best, at most `max_patience` of them (0: no cap; `fm_patience`). With a gain cache where
    `use_gain_cache` says (or as `cached` forces); else as one search per `search_seeds` seeds side by side where
    that makes two or more and no `give_up_above` is set (`parallel_fm`; 0: one search). Updates part and bw;
    returns the cut decrease."""
    if passes <= 0 or graph.n == 0:
        return 0
    if vertices is None:
        vertices = np.arange(graph.n, dtype=np.int32)
    k = bw.shape[0]
    dtype = gain_cache_plan(graph, k) if cached is None else None
    if dtype is not None or cached:
        conn, degree_weight = gain_cache(graph, part, k, dtype)
        return int(kway_fm_cached(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                                  max_weights, k, passes, stop_fraction, max_patience, vertices,
                                  float(min_improvement), conn, degree_weight, int(give_up_above)))
    searches = fm_searches(vertices.shape[0], search_seeds)
    if searches >= 2 and give_up_above < 0:
        return parallel_fm(graph, part, bw, max_weights, passes, stop_fraction, seed, vertices, min_improvement,
                           searches, max_patience=max_patience)
    return int(kway_fm(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw,
                       max_weights, k, passes, stop_fraction, max_patience, seed, vertices, float(min_improvement),
                       int(give_up_above), 0, vertices[:0], vertices[:0], -1))


def refine(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, ctx: PartitionContext, seed: int,
           finest: bool = True, give_up_above: int = -1) -> None:
    """The refinement of one level under `ctx.max_block_weights` as `ctx.options` say: two-direction passes,
    then FM passes (on the `finest` level only under `options.fm_finest_only`), both on the boundary only;
    then, on levels of at least `options.flow_min_vertices` vertices (and only on the `finest` level under
    `options.flow_finest_only`), `options.flow_rounds` rounds of flow refinement of block pairs, followed by FM
    once more when the flows lowered the cut. FM gives up early when it cannot bring the cut to `give_up_above`
    (the cut of an alternative the caller will keep instead; -1: none; `refine_fm`). Updates part and bw."""
    max_weights, options = ctx.max_block_weights, ctx.options
    _, boundary = refine_two_direction(graph, part, bw, max_weights, options.lp_refine_passes, seed)
    if finest or not options.fm_finest_only:
        refine_fm(graph, part, bw, max_weights, options.fm_passes, options.fm_stop_fraction, seed + 1, boundary,
                  options.fm_min_improvement, give_up_above=give_up_above, search_seeds=options.fm_search_seeds,
                  max_patience=options.fm_max_patience)
    flows = options.flow_rounds > 0 and graph.n >= options.flow_min_vertices
    if flows and (finest or not options.flow_finest_only):
        before = part.copy()
        with using_threads(ctx.threads):  # a batch's pairs are coarse work: every thread, however small the level
            gain = refine_flows(graph, part, bw, max_weights, options.flow_rounds, options.flow_region_fraction,
                                seed + 2, max_depth=options.flow_region_depth,
                                max_flow_piercings=options.flow_max_piercings)
        if gain > 0:
            # FM once more around what the flows moved (a flow cut is a minimum cut of its region only)
            moved = np.flatnonzero(part != before).astype(np.int32)
            del before  # n entries: not held through the FM below (the finest level's peak)
            release_free_memory()  # what the flows freed, handed back before FM allocates its own
            around = boundary_vertices(graph.indptr, graph.indices, part,
                                       touched_vertices(graph.indptr, graph.indices, moved[:0], moved))
            refine_fm(graph, part, bw, max_weights, options.fm_passes, options.fm_stop_fraction, seed + 3,
                      around, options.fm_min_improvement, give_up_above=give_up_above,
                      search_seeds=options.fm_search_seeds, max_patience=options.fm_max_patience)
