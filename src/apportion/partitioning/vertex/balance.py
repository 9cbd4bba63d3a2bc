"""Balance: the block weight limits and the explicit rebalancer run at every level.

The thesis never enforces balance at the finest level; this project does (notes, part B): after every
projection and after refinement, vertices leave overloaded blocks at the least cut cost, so the final
partition always has block_weight[b, c] <= max_block_weight[b, c] for every block b and every vertex-weight
constraint c, where

    max_block_weight[b, c] = floor((1 + epsilon) * ceil(targets[b] * W[c]))

(METIS's and KaMinPar's limit, (1 + epsilon) * ceil(W / k) for equal blocks: the share is rounded up to a whole
weight first, then the tolerance applies, so with unit weights every k <= n has a partition even at epsilon = 0).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from apportion.errors import InputError
from apportion.graph.metrics import whole_target_weights
from apportion.partitioning.vertex._balance_kernels import descend_overload, pack_greedily, place_isolated, rebalance
from apportion.partitioning.vertex._partition_kernels import block_weights
from apportion.partitioning.vertex.contract import LevelGraph


#: whole targets from this weight up get their limits in exact arithmetic (below it the float product's 1e-12
#: tolerance is under a thousandth of a unit)
EXACT_LIMITS_FROM = 1 << 30


def max_block_weights(total: np.ndarray, targets: np.ndarray, epsilon: float) -> np.ndarray:
    """(k, ncon) int64 limits floor((1 + epsilon) * ceil(share[b] * total[c])) (METIS's and KaMinPar's
    definition), share[b] = targets[b] / sum(targets) (relative sizes as the caller gave them: normalised here, and
    exactly in the integer path, so that targets 5 and 8 of a total of 13 w are 5 w and 8 w, not one more from
    the float 5 / 13 written as 0.38461538461538464), capped for a huge epsilon at max(total[c], 2^62 / k) so that they and their sum stay within int64
    (a finite epsilon of 1e16 overflowed and was refused). The inner ceilings are `whole_target_weights`, raised by
    a unit where float rounding left their sum under the total (weights beyond 2^53: ceil(W / 3) of W = 3e16 + 1
    came out 1e16, so exact balance was refused); epsilon counts as the decimal it was written as (0.15, not the
    float below it), in floats with a 1e-12 relative tolerance for small weights (so 1.15 * 100 is 115) and exactly
    in integers from `EXACT_LIMITS_FROM` on."""
    total = np.asarray(total, dtype=np.int64)
    sizes = np.asarray(targets, dtype=np.float64)
    targets = sizes / sizes.sum() if sizes.size else sizes
    whole = whole_target_weights(np.outer(targets, total.astype(np.float64)))
    exact = bool(whole.size) and int(whole.max()) >= EXACT_LIMITS_FROM
    if exact:  # each relative size as the decimal it prints as (0.1 as 1/10), their ratios in integers
        decimals = [Fraction(repr(float(t))) for t in sizes]
        shares = [d / sum(decimals) for d in decimals]
        whole = np.array([[math.ceil(share * int(w)) for w in total.tolist()] for share in shares],
                         dtype=np.int64).reshape(whole.shape)
    by_target = np.argsort(-targets, kind="stable")
    for c in range(total.shape[0]):
        deficit = int(total[c]) - int(whole[:, c].sum())
        if deficit > 0:  # rounding left the sum under the total: a unit more for the largest targets' blocks
            np.add.at(whole[:, c], by_target[np.arange(deficit) % len(targets)], 1)
    # the cap: the formula's value wherever it can be held; for a huge ε the total or 2^62 / k, whichever is
    # larger, so that the limits and their sum stay within int64
    cap = np.maximum(total, (1 << 62) // max(len(targets), 1))
    if exact:
        rate = Fraction(repr(float(epsilon)))
        return np.array([[min(int(cap[c]), w + math.floor(rate * w)) for c, w in enumerate(row)]
                         for row in whole.tolist()], dtype=np.int64).reshape(whole.shape)
    with np.errstate(over="ignore"):  # a huge ε: inf, capped below
        allowed = np.floor((1.0 + epsilon) * whole.astype(np.float64) * (1.0 + 1e-12) + 1e-9)
    return np.minimum(np.minimum(allowed, float(1 << 62)).astype(np.int64), cap[None, :])


def check_feasible(vertex_weights: np.ndarray, total: np.ndarray, max_weights: np.ndarray,
                   epsilon: float) -> None:
    """Raise InputError when no partition can meet the limits: a vertex heavier than every block's limit, or
    limits that add up to less than the total weight."""
    ncon = total.shape[0]
    for c in range(ncon):
        where = f" (constraint {c})" if ncon > 1 else ""
        limit_sum = sum(int(w) for w in max_weights[:, c])  # Python ints: no overflow
        if limit_sum < int(total[c]):
            raise InputError(f"no partition can be within imbalance {epsilon:g} of the targets{where}: the block "
                             f"limits add up to {limit_sum} < total weight {int(total[c])}; "
                             "allow a larger imbalance")
        if vertex_weights.shape[0]:
            heaviest = int(np.argmax(vertex_weights[:, c]))
            if vertex_weights[heaviest, c] > max_weights[:, c].max():
                raise InputError(f"vertex {heaviest} weighs {int(vertex_weights[heaviest, c])}{where}, more than "
                                 f"any block may hold within imbalance {epsilon:g} (largest limit "
                                 f"{int(max_weights[:, c].max())}); no valid partition exists")


#: `descend_overload`'s swaps try this many vertices of the overloaded blocks (those relieving them most), each
#: against every vertex of the other blocks
DESCENT_SWAP_CANDIDATES = 64
#: ... and takes at most this many steps (each costs O(n k) or more: a bound on the time spent before an
#: infeasible instance is refused; the chains that repair a partition are tens to hundreds of moves)
DESCENT_MOVES = 20_000


def _pack_from_scratch(vertex_weights: np.ndarray, part: np.ndarray, bw: np.ndarray,
                       max_weights: np.ndarray) -> bool:
    """The last resort when repairing the partition failed: pack every vertex anew, largest share of a
    constraint's total first, into the block with the most relative room (`place_isolated`), then descend the
    overload. Balance only, the cut ignored: the refinement that follows on the finest level repairs what it
    can. On METIS's two-constraint example this found the exact partitions (k = 2 at ε = 0, k = 24 and 32 at
    ε = 0.01) that a repair of the multilevel partition missed, and an integer program confirmed exist. Updates
    part and bw only when it succeeds."""
    total = np.maximum(np.asarray(vertex_weights).sum(axis=0), 1)
    share = (np.asarray(vertex_weights) / total).max(axis=1)
    order = np.argsort(-share, kind="stable").astype(np.int64)
    fresh = np.zeros_like(part)
    fresh_bw = np.zeros_like(bw)
    place_isolated(vertex_weights, order, fresh, fresh_bw, max_weights)
    if not descend_overload(vertex_weights, fresh, fresh_bw, max_weights, DESCENT_MOVES, DESCENT_SWAP_CANDIDATES):
        return False
    part[:] = fresh
    bw[:] = fresh_bw
    return True


def is_balanced(bw: np.ndarray, max_weights: np.ndarray) -> bool:
    return bool(np.all(bw <= max_weights))


def rebalance_partition(graph: LevelGraph, part: np.ndarray, bw: np.ndarray, max_weights: np.ndarray,
                        *, final: bool = False, rounds: int = 4) -> bool:
    """Move vertices out of overloaded blocks until every block meets its limits; returns success.

    Updates `part` and `bw` in place. On the finest level (`final=True`) a failure falls back to greedy
    packing (`pack_greedily`: the vertex relieving the overloaded constraints most goes first), then to a descent
    of the total overload that lets moves pass through other blocks (`descend_overload`: the chains several
    constraints need), then to a packing from scratch (`_pack_from_scratch`); if even that fails, InputError:
    the vertex weights are too coarse for the requested imbalance.
    """
    if is_balanced(bw, max_weights):
        return True
    ok = rebalance(graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights, part, bw, max_weights,
                   rounds)
    if ok or not final:
        return ok
    ok = pack_greedily(graph.vertex_weights, part, bw, max_weights, max(1000, 4 * graph.n))
    if not ok:
        ok = descend_overload(graph.vertex_weights, part, bw, max_weights, DESCENT_MOVES, DESCENT_SWAP_CANDIDATES)
    if not ok:
        ok = _pack_from_scratch(graph.vertex_weights, part, bw, max_weights)
    if not ok:
        bw[:] = block_weights(graph.vertex_weights, part, bw.shape[0])
        raise InputError("could not find a partition within the allowed imbalance: the vertex weights are too "
                         "coarse for these targets (try a larger imbalance)")
    return True
