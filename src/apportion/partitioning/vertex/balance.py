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
from apportion.partitioning.vertex._small_split_kernels import LIMIT_CEILING, float_max_block_weights
from apportion.partitioning.vertex.contract import LevelGraph


#: whole targets from this weight up get their limits in exact arithmetic (below it the float product's 1e-12
#: tolerance is under a thousandth of a unit)
EXACT_LIMITS_FROM = 1 << 30


def max_block_weights(total: np.ndarray, targets: np.ndarray, epsilon: float) -> np.ndarray:
    """(k, ncon) int64 limits floor((1 + epsilon) * ceil(share[b] * total[c])) (METIS's and KaMinPar's
    definition) with share[b] = targets[b] / sum(targets), the relative sizes as the caller gave them; capped for
    a huge epsilon at max(total[c], 2^62 / k) so that they and their sum stay within int64 (a finite epsilon of
    1e16 overflowed and was refused).

    Below `EXACT_LIMITS_FROM` in floats (`float_max_block_weights`: relative 1e-12 tolerances, so 0.1 · 30 is 3
    and 1.15 · 100 is 115). From it on exactly, in integers: every size and epsilon count as the decimals they
    print as (0.15, not the float below it) and the shares as their exact ratios, so targets 5 and 8 of a total
    of 13 w are 5 w and 8 w (the float 5 / 13 put a limit one unit too high at 1e11 weights) and ceil(W / 3) of
    W = 3e16 + 1 is 1e16 + 1 (floats made it 1e16, and exact balance was refused)."""
    total = np.asarray(total, dtype=np.int64)
    sizes = np.asarray(targets, dtype=np.float64)
    shares = sizes / sizes.sum() if sizes.size else sizes
    whole = whole_target_weights(np.outer(shares, total.astype(np.float64)))
    if not (whole.size and int(whole.max()) >= EXACT_LIMITS_FROM):
        return float_max_block_weights(total, np.ascontiguousarray(shares), float(epsilon))
    decimals = [Fraction(repr(float(t))) for t in sizes]
    ratios = [d / sum(decimals) for d in decimals]  # exact: their ceilings add up to the total or more
    cap = np.maximum(total, LIMIT_CEILING // len(ratios))
    rate = Fraction(repr(float(epsilon)))
    whole_rows = [[math.ceil(ratio * int(w)) for w in total.tolist()] for ratio in ratios]
    return np.array([[min(int(cap[c]), w + math.floor(rate * w)) for c, w in enumerate(row)] for row in whole_rows],
                    dtype=np.int64).reshape(whole.shape)


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
