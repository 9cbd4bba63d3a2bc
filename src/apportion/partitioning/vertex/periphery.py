"""Core-periphery candidate for graphs with many isolated vertices (this project's addition).

Power-law graphs from R-MAT-like generators and crawls have a dense core, a sparse periphery of low-degree
vertices hanging off the core, and isolated vertices. When the isolated vertices are a large share of the
weight, one block can hold them together with the whole periphery, and the cut is then only the periphery's
edges into the core: a split that multilevel coarsening cannot find (matching a leaf to its hub puts periphery and core in one cluster).
`periphery_candidate` builds that split directly: the largest-target block takes the isolated vertices and
the lowest-degree others up to its limit; the remaining (high-degree) vertices are partitioned into the other
k - 1 blocks by the multilevel partitioner. The caller keeps whichever of this and its ordinary result cuts
less, so the candidate can only help. What it gains, and why the thresholds below are where they are: docs/partition.md, "Measurements behind the defaults".
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.vertex.contract import LevelGraph, induced_level

#: the candidate is tried when the isolated vertices let the rest deviate from its targets by at least this
PERIPHERY_MIN_SLACK = 0.25
#: ... and the largest block may hold at least this share of the weight (with a small periphery block the
#: candidate cuts more than the ordinary result, at twice the time)
PERIPHERY_MIN_SHARE = 0.45


def periphery_candidate(fine: LevelGraph, k: int, targets: np.ndarray, limits: np.ndarray,
                        partition_core) -> np.ndarray | None:
    """A k-way partition of `fine` in which block p = argmax(targets) holds the isolated and the lowest-degree
    vertices up to its limit and `partition_core(graph, k - 1, targets, epsilon, limits)` splits the rest among
    the other blocks; None when it does not apply (k < 2, several constraints, the largest share below
    PERIPHERY_MIN_SHARE, or no room for the rest).
    The result respects `limits` whenever partition_core respects the limits it is given."""
    if k < 2 or fine.vertex_weights.shape[1] != 1 or float(targets.max()) < PERIPHERY_MIN_SHARE:
        return None
    weights = fine.vertex_weights[:, 0]
    degrees = np.diff(fine.indptr)
    total = int(weights.sum())
    p = int(np.argmax(targets))
    others = np.array([b for b in range(k) if b != p], dtype=np.int64)
    # lowest degree first (isolated vertices lead), ties by id; block p takes a prefix up to its limit
    order = np.lexsort((np.arange(fine.n), degrees))
    prefix = np.cumsum(weights[order])
    taken = int(np.searchsorted(prefix, int(limits[p, 0]), side="right"))
    core = np.sort(order[taken:]).astype(np.int64)
    core_weight = total - (int(prefix[taken - 1]) if taken else 0)
    if core.shape[0] < others.shape[0] or core_weight > int(limits[others, 0].sum()):
        return None
    part = np.full(fine.n, p, dtype=np.int32)
    if others.shape[0] == 1:
        part[core] = others[0]
        return part
    sub = induced_level(fine.indptr, fine.indices, fine.edge_weights, fine.vertex_weights, core)
    sub_targets = targets[others] / targets[others].sum()
    wanted = sub_targets * core_weight
    epsilon = float(max(0.0, (limits[others, 0] / np.maximum(wanted, 1e-12)).min() - 1.0))
    sub_part = partition_core(sub, others.shape[0], sub_targets, min(epsilon, 4.0), limits[others])
    part[core] = others[sub_part].astype(np.int32)
    return part
