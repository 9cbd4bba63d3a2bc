"""Numba kernels of the recursive bisection's small subproblems: the block weight limits in floats, and every
split of a small graph, its halves', their halves' and so on, in one call.

In Python every split cost about 0.2 ms around a kernel of 30 µs (a subgraph, limits, tries, a rebalance
check), and a large k makes k - 1 splits: k = 5·10^4 blocks of a 10^5-vertex path took 12 s of initial
partitioning. Up to `initial.small_split_vertices` vertices a bisection is flat (`initial.grow_and_refine`), so
the whole subtree of splits runs here with the same steps: the same limits, tries, FM and rebalance.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from apportion._kernels.hashing import mix_hash
from apportion.partitioning.vertex._balance_kernels import rebalance
from apportion.partitioning.vertex._initial_kernels import grow_and_refine_tries, induced_subgraph
from apportion.partitioning.vertex._partition_kernels import block_weights, stable_argsort

#: the largest int64 a limit may take (`balance.max_block_weights`' cap)
LIMIT_CEILING = 1 << 62


@njit(cache=True, nogil=True)
def float_max_block_weights(total, shares, epsilon):
    """(k, ncon) limits floor((1 + epsilon) * ceil(shares[b] * total[c])) in floats, with the relative 1e-12
    tolerances of `graph.metrics.whole_target_weights` (0.1 · 30 is 3) and of the tolerance's product (1.15 · 100
    is 115); the ceilings raised by a unit for the largest shares where their sum fell under the total, and the
    limits capped at max(total[c], 2^62 / k). `balance.max_block_weights` below `EXACT_LIMITS_FROM`."""
    k = shares.shape[0]
    ncon = total.shape[0]
    whole = np.empty((k, ncon), dtype=np.int64)
    for b in range(k):
        for c in range(ncon):
            whole[b, c] = np.int64(math.ceil(shares[b] * np.float64(total[c]) * (1.0 - 1e-12) - 1e-9))
    by_share = stable_argsort(-shares)
    limits = np.empty((k, ncon), dtype=np.int64)
    for c in range(ncon):
        deficit = total[c]
        for b in range(k):
            deficit -= whole[b, c]
        for i in range(max(deficit, 0)):
            whole[by_share[i % k], c] += 1
        cap = max(total[c], LIMIT_CEILING // max(k, 1))
        for b in range(k):
            allowed = np.floor((1.0 + epsilon) * np.float64(whole[b, c]) * (1.0 + 1e-12) + 1e-9)
            limits[b, c] = min(np.int64(min(allowed, np.float64(LIMIT_CEILING))), cap)
    return limits


@njit(cache=True, nogil=True)
def split_recursively(indptr, indices, edge_weights, vertex_weights, targets, epsilon, seed, tries, fm_passes):
    """int32 blocks 0 .. len(targets) - 1 of every vertex of a small graph by recursive bisection: each split
    hands the first half of its targets (k // 2 of them) to block 0, takes its limits within (1 + epsilon)^(1 / d)
    - 1 for d bisection levels still below it, grows `tries` bisections from start vertices hashed from its seed,
    refines each by `bisection_fm`, keeps the best (`grow_and_refine_tries`) and rebalances one still over a limit;
    the halves split further with seeds (seed * 31 + 1) and (seed * 31 + 2) mod 2^40, as `initial._split` does."""
    n = indptr.shape[0] - 1
    part = np.zeros(n, dtype=np.int32)
    order = np.arange(n).astype(np.int64)  # the vertices of every pending split, in ascending ids
    capacity = 2 * targets.shape[0] + 2
    lows = np.empty(capacity, dtype=np.int64)
    highs = np.empty(capacity, dtype=np.int64)
    first = np.empty(capacity, dtype=np.int64)
    last = np.empty(capacity, dtype=np.int64)
    seeds = np.empty(capacity, dtype=np.int64)
    lows[0], highs[0], first[0], last[0], seeds[0] = 0, n, 0, targets.shape[0], seed
    pending = 1
    while pending > 0:
        pending -= 1
        lo, hi, t_lo, t_hi, s = lows[pending], highs[pending], first[pending], last[pending], seeds[pending]
        k = t_hi - t_lo
        if k == 1 or hi == lo:
            for i in range(lo, hi):
                part[order[i]] = t_lo
            continue
        vertices = order[lo:hi].copy()
        sub_ptr, sub_idx, sub_w, sub_vw = induced_subgraph(indptr, indices, edge_weights, vertex_weights, vertices,
                                                           True, True)
        m = hi - lo
        k0 = k // 2
        head = 0.0
        for b in range(t_lo, t_lo + k0):
            head += targets[b]
        whole = head
        for b in range(t_lo + k0, t_hi):
            whole += targets[b]
        share0 = head / whole
        depth = math.ceil(math.log2(k))
        level_epsilon = (1.0 + epsilon) ** (1.0 / depth) - 1.0
        ncon = sub_vw.shape[1]
        total = np.zeros(ncon, dtype=np.int64)
        for i in range(m):
            for c in range(ncon):
                total[c] += sub_vw[i, c]
        both = share0 + (1.0 - share0)  # normalised as `balance.max_block_weights` normalises them
        shares = np.array([share0 / both, (1.0 - share0) / both])
        limits = float_max_block_weights(total, shares, level_epsilon)
        halves = np.empty((2, ncon), dtype=np.float64)  # the target weights of the two sides
        for c in range(ncon):
            halves[0, c] = share0 * np.float64(total[c])
            halves[1, c] = (1.0 - share0) * np.float64(total[c])
        target0 = halves[0].copy()
        starts = np.empty(max(1, min(tries, m)), dtype=np.int64)  # `initial.tries_for`
        for a in range(starts.shape[0]):
            starts[a] = mix_hash(a, s) % m
        patience = np.int64(min(max(0.01 * m, 25.0), 200.0))
        split = grow_and_refine_tries(sub_ptr, sub_idx, sub_w, sub_vw, target0, limits, halves, starts, s,
                                      fm_passes, patience)
        bw = block_weights(sub_vw, split, np.int64(2))
        if np.any(bw > limits):
            rebalance(sub_ptr, sub_idx, sub_w, sub_vw, split, bw, limits, 4)
        left = 0
        for i in range(m):  # block 0's vertices first, both sides kept in ascending order
            if split[i] == 0:
                order[lo + left] = vertices[i]
                left += 1
        right = lo + left
        for i in range(m):
            if split[i] != 0:
                order[right] = vertices[i]
                right += 1
        lows[pending], highs[pending], first[pending], last[pending] = lo + left, hi, t_lo + k0, t_hi
        seeds[pending] = (s * 31 + 2) % (1 << 40)
        lows[pending + 1], highs[pending + 1], first[pending + 1], last[pending + 1] = lo, lo + left, t_lo, t_lo + k0
        seeds[pending + 1] = (s * 31 + 1) % (1 << 40)
        pending += 2
    return part
