"""WVP — weighted vertex partition edge partitioning (Bourse, Lelarge & Vojnovic, KDD'14; seed 001 §3.3.3).

Partition the vertices with vertex weight = degree (so block weights measure edges), put every internal edge
into its block, and give every cut edge to one of its endpoints' blocks: at random (`wvp-random`) or greedily
(`wvp-greedy`: the block already holding more of the edge's endpoints, then the lighter one), never beyond the
capacity of metrics.balanced_capacity.
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.edge._part_sets import slot_offsets
from apportion.partitioning.edge._streaming_kernels import greedy_between_kernel
from apportion.partitioning.edge.metrics import balanced_capacity
from apportion.partitioning.edge.vertex_partitioner import partition_vertices


def wvp(graph, k: int, imbalance: float, seed: int, *, greedy: bool,
        vertex_partitioner: str = "apportion", vertex_imbalance: float | None = None,
        vertex_preset: str = "default") -> tuple[np.ndarray, dict]:
    """Return (assignment in canonical edge order, details)."""
    degrees = graph.degrees().astype(np.int64)
    weighted = graph.with_weights(vertex_weights=degrees, edge_weights=None)  # every edge is one unit of work
    eps = max(imbalance, 0.01) if vertex_imbalance is None else float(vertex_imbalance)
    part, used = partition_vertices(weighted, k, imbalance=eps, seed=seed, which=vertex_partitioner,
                                      preset=vertex_preset)
    u, v, _ = graph.edges()
    u = np.ascontiguousarray(u, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.int64)
    first = part[u].astype(np.int32)
    second = part[v].astype(np.int32)
    fixed = first == second
    rng = np.random.default_rng(seed)
    coin = rng.integers(0, 2, size=u.shape[0]).astype(np.bool_)
    priority = rng.permutation(k).astype(np.int64)
    _, upper = balanced_capacity(graph.m, k, imbalance)
    assignment = greedy_between_kernel(u, v, first, second, fixed, k, upper, priority, coin,
                                       slot_offsets(degrees, k), graph.n, greedy)
    return assignment, {"vertex_partitioner": used, "cut_edges": int(np.count_nonzero(~fixed))}
