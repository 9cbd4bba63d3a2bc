"""Numba kernels of the one-pass streaming edge partitioners (see streaming.py).

All kernels read the edge stream (u[e], v[e]) in order, keep every part's load below `upper`, and write
assignment[e]. The least-loaded part is found in O(log k) with a min segment tree over the loads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.edge._part_sets import add_edge_to_part, find_slot


@njit(cache=True, nogil=True)
def _tree_new(k):
    size = 1
    while size < k:
        size *= 2
    tree = np.full(2 * size, np.iinfo(np.int64).max, dtype=np.int64)
    arg = np.full(2 * size, -1, dtype=np.int64)
    for q in range(k):
        tree[size + q] = 0
        arg[size + q] = q
    for i in range(size - 1, 0, -1):
        left, right = 2 * i, 2 * i + 1
        if tree[right] < tree[left]:
            tree[i] = tree[right]
            arg[i] = arg[right]
        else:
            tree[i] = tree[left]
            arg[i] = arg[left]
    return tree, arg, size


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[::1], int64[::1], int64, int64, int64)", cache=True, nogil=True)
def _tree_set(tree, arg, size, q, value):
    i = size + q
    tree[i] = value
    i //= 2
    while i >= 1:
        left, right = 2 * i, 2 * i + 1
        if tree[right] < tree[left]:
            tree[i] = tree[right]
            arg[i] = arg[right]
        else:
            tree[i] = tree[left]
            arg[i] = arg[left]
        i //= 2


@njit("(int64, int64, int64[::1], int64[::1], int32[::1], int64[::1], "
      "int64[::1], int64[::1], int64, int64[::1], int32[::1], int32[::1], int32[::1], int64)", cache=True, nogil=True)
def _place(e, q, u, v, assignment, loads, tree, arg, size, slot_ptr, slot_part, slot_count, fill, upper):
    assignment[e] = q
    loads[q] += 1
    # a full part leaves the tree so the minimum is always a part with room
    _tree_set(tree, arg, size, q, loads[q] if loads[q] < upper else np.iinfo(np.int64).max)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], q)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], q)


@njit(cache=True, nogil=True)
def dbh_kernel(u, v, degrees, vertex_hash, k, upper):
    """Degree-based hashing: edge → hash(lower-degree endpoint); a full part → the least-loaded part."""
    m = u.shape[0]
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    tree, arg, size = _tree_new(k)
    for e in range(m):
        a, b = u[e], v[e]
        pick = a if degrees[a] < degrees[b] or (degrees[a] == degrees[b] and a < b) else b
        q = vertex_hash[pick]
        if loads[q] >= upper:
            q = arg[1]
        assignment[e] = q
        loads[q] += 1
        _tree_set(tree, arg, size, q, loads[q] if loads[q] < upper else np.iinfo(np.int64).max)
    return assignment


@njit(cache=True, nogil=True)
def _least_loaded_in(vertex, slot_ptr, slot_part, fill, loads, upper, priority, other, must_share):
    """Least-loaded part with room among the parts of `vertex` (and of `other` too when must_share)."""
    best = -1
    for s in range(slot_ptr[vertex], slot_ptr[vertex] + fill[vertex]):
        q = slot_part[s]
        if loads[q] >= upper:
            continue
        if must_share and find_slot(slot_ptr, slot_part, fill, other, q) < 0:
            continue
        if best < 0 or loads[q] < loads[best] or (loads[q] == loads[best] and priority[q] < priority[best]):
            best = q
    return best


@njit(cache=True, nogil=True)
def greedy_kernel(u, v, degrees, priority, k, upper, slot_ptr):
    """PowerGraph's greedy placement (Gonzalez et al., OSDI'12 §5.2) with a capacity per part.

    1. A(u) ∩ A(v) ≠ ∅ → the least-loaded shared part; 2. both non-empty, disjoint → a part of the endpoint
    with more unassigned edges; 3. one non-empty → its least-loaded part; 4. otherwise the least-loaded part.
    Parts at capacity are skipped; when no rule leaves a candidate, the least-loaded part is used.
    """
    m = u.shape[0]
    n = degrees.shape[0]
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    tree, arg, size = _tree_new(k)
    total = slot_ptr[n]
    slot_part = np.empty(total, dtype=np.int32)
    slot_count = np.zeros(total, dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    remaining = degrees.copy()
    for e in range(m):
        a, b = u[e], v[e]
        q = _least_loaded_in(a, slot_ptr, slot_part, fill, loads, upper, priority, b, True)
        if q < 0:
            if fill[a] > 0 and fill[b] > 0:
                first, second = (a, b) if remaining[a] >= remaining[b] else (b, a)
                q = _least_loaded_in(first, slot_ptr, slot_part, fill, loads, upper, priority, second, False)
                if q < 0:
                    q = _least_loaded_in(second, slot_ptr, slot_part, fill, loads, upper, priority, first, False)
            elif fill[a] > 0:
                q = _least_loaded_in(a, slot_ptr, slot_part, fill, loads, upper, priority, b, False)
            elif fill[b] > 0:
                q = _least_loaded_in(b, slot_ptr, slot_part, fill, loads, upper, priority, a, False)
        if q < 0:
            q = arg[1]
        remaining[a] -= 1
        remaining[b] -= 1
        _place(e, q, u, v, assignment, loads, tree, arg, size, slot_ptr, slot_part, slot_count, fill, upper)
    return assignment


@njit(cache=True, nogil=True)
def hdrf_kernel(u, v, priority, k, upper, lam, slot_ptr, n):
    """HDRF (Petroni et al., CIKM'15): maximise C_rep + λ·C_bal over the parts with room.

    C_rep(p) = g(u, p) + g(v, p), g(x, p) = 1 + (1 − θ_x) when x already has an edge in p, θ_x = δ_x/(δ_u+δ_v)
    with δ the partial degrees seen so far; C_bal(p) = (maxload − load_p) / (1 + maxload − minload).
    Only the parts holding u or v and the least-loaded part can win, so only they are scored.
    """
    m = u.shape[0]
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    tree, arg, size = _tree_new(k)
    total = slot_ptr[n]
    slot_part = np.empty(total, dtype=np.int32)
    slot_count = np.zeros(total, dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    partial = np.zeros(n, dtype=np.int64)
    in_a = np.zeros(k, dtype=np.bool_)
    in_b = np.zeros(k, dtype=np.bool_)
    max_load = 0
    for e in range(m):
        a, b = u[e], v[e]
        partial[a] += 1
        partial[b] += 1
        theta_a = partial[a] / (partial[a] + partial[b])
        theta_b = 1.0 - theta_a
        for s in range(slot_ptr[a], slot_ptr[a] + fill[a]):
            in_a[slot_part[s]] = True
        for s in range(slot_ptr[b], slot_ptr[b] + fill[b]):
            in_b[slot_part[s]] = True
        least = arg[1]
        min_load = loads[least]
        best = -1
        best_score = -1.0
        for side in range(3):
            if side == 0:
                lo, hi = slot_ptr[a], slot_ptr[a] + fill[a]
            elif side == 1:
                lo, hi = slot_ptr[b], slot_ptr[b] + fill[b]
            else:
                lo, hi = 0, 1
            for s in range(lo, hi):
                q = least if side == 2 else slot_part[s]
                if loads[q] >= upper:
                    continue
                score = lam * (max_load - loads[q]) / (1.0 + max_load - min_load)
                if in_a[q]:
                    score += 2.0 - theta_a
                if in_b[q]:
                    score += 2.0 - theta_b
                if (score > best_score or (score == best_score and (loads[q] < loads[best] or (
                        loads[q] == loads[best] and priority[q] < priority[best])))):
                    best_score = score
                    best = q
        for s in range(slot_ptr[a], slot_ptr[a] + fill[a]):
            in_a[slot_part[s]] = False
        for s in range(slot_ptr[b], slot_ptr[b] + fill[b]):
            in_b[slot_part[s]] = False
        _place(e, best, u, v, assignment, loads, tree, arg, size, slot_ptr, slot_part, slot_count, fill, upper)
        if loads[best] > max_load:
            max_load = loads[best]
    return assignment


@njit(cache=True, nogil=True)
def greedy_between_kernel(u, v, first_choice, second_choice, fixed, k, upper, priority, rng_bits, slot_ptr, n,
                          greedy):
    """WVP's placement of edges: `fixed` edges keep first_choice; the others go to first or second choice.

    greedy=False: a seeded coin (rng_bits) picks one of the two; greedy=True: the choice holding more of the
    edge's endpoints, then the lighter one. A full choice falls back to the other, then to the least-loaded
    part. Fixed (internal) edges are placed first, then the cut edges in stream order.
    """
    m = u.shape[0]
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    tree, arg, size = _tree_new(k)
    total = slot_ptr[n]
    slot_part = np.empty(total, dtype=np.int32)
    slot_count = np.zeros(total, dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    for e in range(m):
        if fixed[e]:
            q = first_choice[e]
            if loads[q] >= upper:
                q = arg[1]
            _place(e, q, u, v, assignment, loads, tree, arg, size, slot_ptr, slot_part, slot_count, fill, upper)
    for e in range(m):
        if fixed[e]:
            continue
        a, b = u[e], v[e]
        p, q = first_choice[e], second_choice[e]
        if greedy:
            score_p = (1 if find_slot(slot_ptr, slot_part, fill, a, p) >= 0 else 0) + \
                (1 if find_slot(slot_ptr, slot_part, fill, b, p) >= 0 else 0)
            score_q = (1 if find_slot(slot_ptr, slot_part, fill, a, q) >= 0 else 0) + \
                (1 if find_slot(slot_ptr, slot_part, fill, b, q) >= 0 else 0)
            if score_q > score_p or (score_q == score_p and (loads[q] < loads[p] or (
                    loads[q] == loads[p] and priority[q] < priority[p]))):
                p, q = q, p
        elif rng_bits[e]:
            p, q = q, p
        choice = p
        if loads[choice] >= upper:
            choice = q
            if loads[choice] >= upper:
                choice = arg[1]
        _place(e, choice, u, v, assignment, loads, tree, arg, size, slot_ptr, slot_part, slot_count, fill, upper)
    return assignment
