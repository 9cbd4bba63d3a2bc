"""Local search on an edge partition: move a vertex's edges of one part as a group to cut vertex copies.

A vertex x held by parts P_x pays |P_x| − 1 copies. Moving *all* of x's edges in part p to another part q
removes x's copy in p; the moved edges' other endpoints may be freed from p too, or need a new copy in q.
The exact change (gain) of such a group move is cheap to evaluate from the per-vertex part sets
(_refine_kernels._group_gain), so refinement runs label-propagation passes over the vertices in a seeded
order and applies every move of positive gain that keeps the parts within the balance bounds — the
vertex-centric counterpart of the boundary label-propagation refinement of multilevel vertex partitioners
(seed 000 ch. 4.3.4), applied to the copy objective of seed 001 Definition 3.1 (the "connectivity − 1" of the
hypergraph whose nets are the vertices). A group may also be split, each edge going to its own part among
those already holding x. Then *region moves* (FM-like, with rollback): starting from a vertex's smallest
group, move the groups of the vertices reached breadth-first from p to q even at a temporary loss, and keep
the best prefix — this crosses the zero-gain plateaus (e.g. smoothing a mesh boundary) that single group
moves cannot. Copies never increase.

`refine_balanced` is what `partition_edges(..., refine=True)` runs after a method, twice by default: refine
within relaxed bounds (±`slack` of the average; group and region moves), restore the requested balance with
the copy-aware balancing step (balance.py), and refine again within the requested bounds.
"""

from __future__ import annotations

import time

import numpy as np

from apportion.partitioning.edge._refine_kernels import mark_near_changes, refine_kernel, region_kernel
from apportion.partitioning.edge.balance import edge_move_state, rebalance_within
from apportion.partitioning.edge.metrics import balanced_capacity

DEFAULT_PASSES = 6
DEFAULT_SLACK = 0.03
DEFAULT_ROUNDS = 2
DEFAULT_REGION_ROUNDS = 1   # region moves in the first round only: a second search found < 0.1 % more (k = 16)
REGION_PATIENCE = 16
REGION_STEPS = 256
REGION_SCAN_BUDGET = 1024   # incidence entries one region search may scan (bounds it on dense graphs)
MIN_PASS_GAIN = 0.01        # a pass removing fewer than this fraction of the copies ends the passes (0.2 %: 1 % more time for < 1 % fewer copies)
REGION_WINDOW_GAIN = 0.005  # region search stops after m scanned incidence entries gaining < 0.5 % of the copies
REGION_TOTAL_SCAN = 1.0    # region search scans at most 2m incidence entries in all (astro-ph k=4: half the time, +1.7 % copies)
REGION_HUB_FACTOR = 2   # region search skips vertices of degree above this many times the average (at least 64)


def refine(u: np.ndarray, v: np.ndarray, assignment: np.ndarray, n: int, k: int, lower: int, upper: int, *,
           seed: int = 0, passes: int = DEFAULT_PASSES, balance_moves: bool = False,
           regions: bool = False, lists: tuple | None = None, state=None,
           since: np.ndarray | None = None) -> tuple[np.ndarray, int, int]:
    """Return (refined assignment, copies removed, edges moved); `assignment` itself is not modified.

    Contract: every edge keeps exactly one part in 0..k−1; the copies Σ(p_v − 1) never increase (they drop
    by exactly the returned gain); a part's edge count never leaves [lower, upper] by a move (parts already
    outside stay outside no further: moves into a part need room below `upper`, moves out need to stay at or
    above `lower`). Same seed, same result. `balance_moves` also allows zero-gain moves from a heavier to a
    lighter part. `lists`: balance.incidence_lists(u, v, n) when the caller already has them. With `state`
    (balance.edge_move_state of this very int32 `assignment`) the assignment and the state are updated in
    place instead (the caller keeps them together across steps) and the assignment itself is returned.
    `since`: an earlier assignment that was already refined within these bounds; then the first pass only
    visits the vertices near the edges that changed since (an incremental refinement; O(m) to find them).
    """
    out = assignment if state is not None else np.array(assignment, dtype=np.int32, copy=True)
    m = out.shape[0]
    if m == 0 or k < 2 or passes < 1:
        return out, 0, 0
    st = state if state is not None else edge_move_state(u, v, out, n, k, lists)
    u64, v64, degrees, slot_ptr, slot_part, slot_count, fill = st[:7]
    indptr, targets, edge_of_entry = st.indptr, st.targets, st.edge_of_entry
    order = np.random.default_rng(seed).permutation(n).astype(np.int64)
    order = order[degrees[order] >= 2]
    max_group = max(1, int(upper) - int(lower))
    hub_degree = max(64, int(REGION_HUB_FACTOR * 2 * m / max(n, 1)))
    copies = int(np.maximum(fill.astype(np.int64) - 1, 0).sum())
    min_pass_gain = max(1, int(MIN_PASS_GAIN * copies))
    if since is None:
        active = np.ones(n, dtype=np.int8)
    else:
        active = mark_near_changes(since, out, u64, v64, indptr, targets, hub_degree)
    gain, moved = refine_kernel(u64, v64, out, k, int(lower), int(upper), slot_ptr, slot_part, slot_count, fill,
                                indptr, targets, edge_of_entry, order, int(passes), max_group, min_pass_gain,
                                bool(balance_moves), hub_degree, active)
    if regions:
        before_regions = out.copy()
        more, more_moved = region_kernel(u64, v64, out, k, int(lower), int(upper), slot_ptr, slot_part, slot_count,
                                         fill, indptr, targets, edge_of_entry, order, max_group, REGION_PATIENCE,
                                         REGION_STEPS, hub_degree, REGION_SCAN_BUDGET, max(1, m),
                                         max(1, int(REGION_WINDOW_GAIN * (copies - gain))),
                                         int(REGION_TOTAL_SCAN * 2 * m))
        gain += more
        moved += more_moved
        if more > 0:
            # group moves again, around the region moves only
            active = mark_near_changes(before_regions, out, u64, v64, indptr, targets, hub_degree)
            again, again_moved = refine_kernel(u64, v64, out, k, int(lower), int(upper), slot_ptr, slot_part,
                                               slot_count, fill, indptr, targets, edge_of_entry, order, int(passes),
                                               max_group, min_pass_gain, False, hub_degree, active)
            gain += again
            moved += again_moved
    return out, int(gain), int(moved)


def relaxed_capacity(m: int, k: int, imbalance: float, slack: float) -> tuple[int, int]:
    """Bounds widened by `slack` around the average m/k (never narrower than balanced_capacity's)."""
    lower, upper = balanced_capacity(m, k, imbalance)
    allowed = (1.0 + imbalance + slack) * m / k  # inf for a huge ε: no part needs more than all m edges
    wide_upper = max(upper, m if allowed >= m else int(np.floor(allowed)))
    wide_lower = min(lower, max(0, int(np.ceil((1.0 - slack) * m / k))))
    return wide_lower, wide_upper


def refine_balanced(u: np.ndarray, v: np.ndarray, assignment: np.ndarray, n: int, k: int, imbalance: float, *,
                    seed: int = 0, passes: int = DEFAULT_PASSES, slack: float = DEFAULT_SLACK,
                    regions: bool = True, rounds: int = DEFAULT_ROUNDS,
                    region_rounds: int = DEFAULT_REGION_ROUNDS,
                    lists: tuple | None = None, part_sets=None) -> tuple[np.ndarray, dict]:
    """`rounds` times: refine within relaxed bounds (group moves, then region moves with rollback when
    `regions`, in the first `region_rounds` rounds), balance to `imbalance`, refine within the requested
    bounds. Returns (assignment, stats).

    The result satisfies balanced_capacity(m, k, imbalance) whatever the input. stats: copies removed by the
    relaxed and the strict refinement and edges moved in all (`refine_gain_relaxed`, `refine_gain_strict`,
    `refine_moves`), the balancing moves in between (`refine_balance_moves`), the copies of the input
    (`copies_before_refine`) and the seconds spent in the balancing steps (`balance_s`). `lists`: the incidence
    lists (balance.incidence_lists, or the graph's own CSR with canonical edge ids) when the caller has them;
    `part_sets`: the part sets (_part_sets.PartSets) of `assignment` when the caller has them (used in place).
    """
    m = u.shape[0]
    lower, upper = balanced_capacity(m, k, imbalance)
    wide_lower, wide_upper = relaxed_capacity(m, k, imbalance, slack)
    out = np.array(assignment, dtype=np.int32, copy=True)
    if m == 0 or k < 2:
        return out, {"refine_gain_relaxed": 0, "refine_gain_strict": 0, "refine_moves": 0,
                     "refine_balance_moves": 0, "copies_before_refine": 0, "balance_s": 0.0}
    # one move state for every step below: the kernels keep `out` and the per-vertex part sets in step
    state = edge_move_state(u, v, out, n, k, lists, part_sets)
    stats = {"refine_gain_relaxed": 0, "refine_gain_strict": 0, "refine_moves": 0, "refine_balance_moves": 0,
             "copies_before_refine": int(np.maximum(state.fill.astype(np.int64) - 1, 0).sum()), "balance_s": 0.0}
    # after the first relaxed refinement every step is incremental: it starts from the vertices near the edges
    # moved since the last refined assignment (a refined assignment stays refined within tighter bounds)
    refined = None
    for r in range(max(1, rounds)):
        started = time.perf_counter()
        out, moves_a = rebalance_within(u, v, out, n, k, wide_lower, wide_upper, state=state)
        stats["balance_s"] += time.perf_counter() - started
        out, gain_relaxed, moved_relaxed = refine(u, v, out, n, k, wide_lower, wide_upper, seed=seed + 2 * r,
                                                  passes=passes, balance_moves=True,
                                                  regions=regions and r < region_rounds, state=state,
                                                  since=refined)
        refined = out.copy()
        started = time.perf_counter()
        out, moves_b = rebalance_within(u, v, out, n, k, lower, upper, state=state)
        stats["balance_s"] += time.perf_counter() - started
        out, gain_strict, moved_strict = refine(u, v, out, n, k, lower, upper, seed=seed + 2 * r + 1,
                                                passes=passes, state=state, since=refined)
        stats["refine_gain_relaxed"] += gain_relaxed
        stats["refine_gain_strict"] += gain_strict
        stats["refine_moves"] += moved_relaxed + moved_strict
        stats["refine_balance_moves"] += moves_a + moves_b
    return np.array(out, dtype=np.int32, copy=True), stats
