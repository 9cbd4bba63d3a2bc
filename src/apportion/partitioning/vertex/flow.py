"""Flow-based refinement: max-flow / min-cut improvement of pairs of adjacent blocks.

KaFFPa's flow refinement (Sanders and Schulz, "Engineering Multilevel Graph Partitioning Algorithms", ESA 2011,
section 5) with the balanced-cut search of FlowCutter (Hamann and Strasser 2018) as Mt-KaHyPar uses it
(Gottesbüren, Heuer and Sanders, "Advanced Flow-Based Multilevel Hypergraph Partitioning", SEA 2020): for a
pair of adjacent blocks (A, B), a region around their common boundary is grown inside both, the rest of A is
contracted into a source and the rest of B into a sink, and a minimum cut of that region graph that keeps both
blocks within their limits replaces the current split when it cuts less. Unlike FM's single-vertex moves, a
cut moves a whole set of vertices at once, so blocks sitting at their weight limits can still trade vertices.
"""

from __future__ import annotations

import numpy as np

from apportion._chunked import run_chunked
from apportion._kernels.hashing import mix_hash
from apportion.partitioning.vertex._flow_kernels import quotient_edges, refine_pairs_chunk
from apportion.partitioning.vertex._partition_kernels import vertices_by_block
from apportion.partitioning.vertex.boundary import all_boundary_vertices
from apportion.partitioning.vertex.contract import LevelGraph


def block_pairs(graph: LevelGraph, part: np.ndarray, k: int, boundary: np.ndarray) -> np.ndarray:
    """The adjacent block pairs as an int64 (p, 3) array of (a, b, cut weight between them), a < b, heaviest
    first (ties by (a, b)): the edges of the quotient graph in KaFFPa's scheduling order."""
    block_a, block_b, weight = quotient_edges(graph.indptr, graph.indices, graph.edge_weights, part, k, boundary)
    order = np.lexsort((block_b, block_a, -weight))
    return np.stack([block_a[order].astype(np.int64), block_b[order].astype(np.int64), weight[order]], axis=1)


def disjoint_batches(pairs: np.ndarray, k: int) -> list[np.ndarray]:
    """The rows of `pairs` (block pairs in their scheduling order) cut into batches of pairs without a block in
    common, so that running the batches one after the other, each batch's pairs at the same time, gives what the
    pairs one after the other in their order give: a pair goes into the batch after the latest one holding an
    earlier pair with a block in common (the first batch when there is none). Returns index arrays into
    `pairs`, in order within each batch."""
    last = np.zeros(k, dtype=np.int64)  # per block: the latest batch (1-based) holding one of its pairs
    number = np.empty(pairs.shape[0], dtype=np.int64)
    for i in range(pairs.shape[0]):
        a, b = pairs[i, 0], pairs[i, 1]
        number[i] = last[a] = last[b] = max(last[a], last[b]) + 1
    order = np.argsort(number, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(number[order])) + 1) if pairs.shape[0] else []


def refine_flows(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray, rounds: int,
                 region_fraction: float, seed: int, boundary: np.ndarray | None = None, retries: int = 1,
                 retry_shrink: float = 0.25, max_flow_piercings: int = 1 << 30, max_depth: int = 0) -> int:
    """Rounds of flow refinement over the quotient graph's edges (KaFFPa's active-block scheduling): round one
    visits every adjacent pair, heaviest cut first; later rounds only pairs with a block that changed in the
    round before; stops after `rounds` rounds or a round without improvement.

    Each pair is improved by `_flow_kernels.refine_pair` with regions of up to `region_fraction` of the other
    block's limit beyond its free room; when that finds nothing, up to `retries` more tries with the fraction
    multiplied by `retry_shrink` each time (KaFFPa's adaptive region size: in a large region the minimum cuts
    are often unbalanced and the search for a balanced one exceeds the current cut, where a smaller region
    finds one). `max_flow_piercings` bounds the piercings that need more flow per pair; `max_depth` (> 0)
    bounds the region's distance in hops from the common boundary (on large blocks the weight bound alone
    allows very large regions); measured effects in docs/partition.md, "Measurements behind the defaults". Never
    increases the cut; never pushes a block above `max_weights` (in any constraint). The pairs of a round run in
    batches of pairs without a common block (`disjoint_batches`), each batch's pairs on every thread at once,
    with the result of the pairs one after the other. Deterministic for a given seed, whatever the thread
    count. Updates part and bw; returns the cut decrease.
    """
    k = bw.shape[0]
    if rounds <= 0 or graph.n == 0 or k < 2:
        return 0
    local = np.full(graph.n, -1, dtype=np.int32)
    total_gain = 0
    active = np.ones(k, dtype=np.bool_)
    for r in range(rounds):
        if boundary is None or r > 0:
            boundary = all_boundary_vertices(graph, part)
        if boundary.shape[0] == 0:
            break
        pairs = block_pairs(graph, part, k, boundary)
        pairs = pairs[active[pairs[:, 0]] | active[pairs[:, 1]], :2]
        seeds = np.array([mix_hash(seed * 65_537 + r, a * k + b) for a, b in pairs], dtype=np.int64)
        changed = np.zeros(k, dtype=np.bool_)
        round_gain = 0
        for batch in disjoint_batches(pairs, k):
            gains = np.zeros(batch.shape[0], dtype=np.int64)
            # grouped by the blocks of now: a batch's pairs move vertices only between their own two blocks
            by_block, block_ptr = vertices_by_block(boundary, part, k)
            run_chunked(refine_pairs_chunk, batch.shape[0], graph.indptr, graph.indices, graph.edge_weights,
                        graph.vertex_weights, part, bw, max_weights, pairs[batch], float(region_fraction),
                        int(retries), float(retry_shrink), int(max_depth), by_block, block_ptr, local, seeds[batch],
                        int(max_flow_piercings), gains)
            improved = batch[gains > 0]
            round_gain += int(gains.sum())
            changed[pairs[improved, 0]] = True
            changed[pairs[improved, 1]] = True
        total_gain += round_gain
        if round_gain == 0:
            break
        active = changed
    return total_gain
