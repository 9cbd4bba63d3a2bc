"""Core-periphery candidates for heavy-tailed graphs (this project's additions).

Power-law graphs from R-MAT-like generators and crawls have a dense core, a sparse periphery of low-degree
vertices hanging off the core, and isolated vertices. When the isolated vertices are a large share of the
weight, one block can hold them together with the whole periphery, and the cut is then only the periphery's
edges into the core: a split that multilevel coarsening cannot find (matching a leaf to its hub puts periphery and core in one cluster).
`periphery_candidate` builds that split directly: the largest-target block takes the isolated vertices and
the lowest-degree others up to its limit; the remaining (high-degree) vertices are partitioned into the other
k - 1 blocks by the multilevel partitioner. The caller keeps whichever of this and its ordinary result cuts
less, so the candidate can only help. What it gains, and why the thresholds below are where they are: docs/partition.md, "Measurements behind the defaults".

`hub_block_candidate` is its mirror image for any k: the hubs of a heavy-tailed graph are densely connected
among themselves, so the largest-target block takes the highest-degree vertices up to its limit, the other
k - 1 blocks split the rest (a sparse periphery whose edges mostly lead into the hubs) and the isolated
vertices fill the room left. Coarsening cannot find it either: clusters form around each hub with its
periphery, which scatters the hubs over the blocks and cuts their dense core apart (rmat 2^18 at k = 8: every
hub of degree 64 or more in one block cuts 0.50 x METIS's edges, the multilevel result with its hubs over
five blocks 0.79 x). Again the caller keeps whichever cuts less.
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.vertex._balance_kernels import place_isolated
from apportion.partitioning.vertex._partition_kernels import hub_block_bound
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
    part[core] = _split_among(fine, core, core_weight, others, targets, limits, partition_core)
    return part


def _split_among(fine: LevelGraph, vertices: np.ndarray, weight: int, others: np.ndarray, targets: np.ndarray,
                 limits: np.ndarray, partition_others) -> np.ndarray:
    """The blocks `others` for `vertices` (increasing ids, total weight `weight`): all of them in the one block
    when there is one, else `partition_others(subgraph, len(others), their shares, epsilon, their limits)` on
    the subgraph they induce, with the epsilon their limits leave (at most 4)."""
    if others.shape[0] == 1 or vertices.shape[0] == 0:
        return np.full(vertices.shape[0], others[0], dtype=np.int32)
    sub = induced_level(fine.indptr, fine.indices, fine.edge_weights, fine.vertex_weights, vertices)
    sub_targets = targets[others] / targets[others].sum()
    wanted = sub_targets * weight
    epsilon = float(max(0.0, (limits[others, 0] / np.maximum(wanted, 1e-12)).min() - 1.0))
    sub_part = partition_others(sub, others.shape[0], sub_targets, min(epsilon, 4.0), limits[others])
    return others[sub_part].astype(np.int32)


#: the hub-block candidate is considered on graphs whose maximum degree is at least this many times the
#: average (`multilevel.is_skewed`): meshes never pay for its degree sort; on the shared social and
#: collaboration networks (ratios 25-45) its estimate turns it down at once, on small R-MAT graphs (ratio 46
#: at 2^12 vertices) it halves the cut
HUB_BLOCK_MIN_RATIO = 10.0


def hub_block_candidate(fine: LevelGraph, k: int, targets: np.ndarray, limits: np.ndarray, partition_rest,
                        current: np.ndarray | None = None, current_cut: int = 0) -> np.ndarray | None:
    """A k-way partition of `fine` in which block p = argmax(targets) holds the highest-degree vertices (ties
    by id) up to its limit, `partition_rest(graph, k - 1, targets, epsilon, limits)` splits the other
    non-isolated vertices among the other blocks, and the remaining isolated vertices go where most room is
    left (`place_isolated`).

    None when it does not apply (k < 2, several constraints, fewer other connected vertices than blocks but
    some, more weight than the other blocks can hold) or, given the `current` partition and its cut, when it
    would not pay: the edges between the hubs and the rest, which it cuts for sure, plus the edges among the
    rest that `current` cuts (about what splitting the rest again cuts) reach `current_cut`
    (`_partition_kernels.hub_block_bound`; on rmat 2^18 this estimate came within 1.5 % of the candidate's
    cut, and it turns the candidate down on Barabasi-Albert graphs, where it loses). The caller checks the
    limits: the isolated vertices may not fit when they are heavy."""
    if k < 2 or fine.vertex_weights.shape[1] != 1:
        return None
    weights = fine.vertex_weights[:, 0]
    degrees = np.diff(fine.indptr)
    p = int(np.argmax(targets))
    others = np.array([b for b in range(k) if b != p], dtype=np.int64)
    # highest degree first, ties by id; block p takes a prefix up to its limit
    order = np.lexsort((np.arange(fine.n), -degrees))
    taken = int(np.searchsorted(np.cumsum(weights[order]), int(limits[p, 0]), side="right"))
    part = np.full(fine.n, -1, dtype=np.int32)
    part[order[:taken]] = p
    outside = part < 0
    rest = np.flatnonzero(outside & (degrees > 0)).astype(np.int64)
    rest_weight = int(weights[rest].sum())
    if taken == 0 or 0 < rest.shape[0] < others.shape[0] or rest_weight > int(limits[others, 0].sum()):
        return None
    if current is not None:
        across, rest_cut = hub_block_bound(fine.indptr, fine.indices, fine.edge_weights, ~outside, current)
        if across + rest_cut >= current_cut:
            return None
    part[rest] = _split_among(fine, rest, rest_weight, others, targets, limits, partition_rest)
    loose = np.flatnonzero(outside & (degrees == 0))
    loose = loose[np.argsort(-np.asarray(weights[loose]), kind="stable")]
    assigned = np.flatnonzero(part >= 0)
    bw = np.zeros((k, 1), dtype=np.int64)
    np.add.at(bw[:, 0], part[assigned], np.asarray(weights[assigned], dtype=np.int64))
    place_isolated(fine.vertex_weights, loose, part, bw, limits)
    return part
