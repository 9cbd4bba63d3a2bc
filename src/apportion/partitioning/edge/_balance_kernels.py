"""Numba kernel of the edge-balancing step (see balance.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.edge._part_sets import add_edge_to_part, find_slot, remove_edge_from_part


@njit(cache=True, nogil=True)
def _least_loaded_below(loads, limit):
    best = -1
    for q in range(loads.shape[0]):
        if loads[q] < limit and (best < 0 or loads[q] < loads[best]):
            best = q
    return best


@njit(cache=True, nogil=True)
def _best_move(a, b, p, loads, limit, fallback, slot_ptr, slot_part, slot_count, fill, count_a, count_b):
    """Cheapest target q ≠ p with loads[q] < limit for an edge (a, b) in part p: returns (delta, q).

    delta = new copies created in q minus copies freed in p. Candidates: the parts already holding a or b,
    and `fallback` (the least-loaded eligible part), which is the best of all parts holding neither.
    """
    if fill[a] == 1 and fill[b] == 1:
        # an interior edge (both endpoints only in p, the common case): the fallback is the only candidate
        freed = (1 if slot_count[slot_ptr[a]] == 1 else 0) + (1 if slot_count[slot_ptr[b]] == 1 else 0)
        if fallback >= 0 and fallback != p and loads[fallback] < limit:
            return 2 - freed, fallback
        return 3 - freed, -1
    for s in range(slot_ptr[a], slot_ptr[a] + fill[a]):
        count_a[slot_part[s]] = slot_count[s]
    for s in range(slot_ptr[b], slot_ptr[b] + fill[b]):
        count_b[slot_part[s]] = slot_count[s]
    freed = (1 if count_a[p] == 1 else 0) + (1 if count_b[p] == 1 else 0)
    best_q = -1
    best_cost = 3
    for side in range(3):
        if side == 2:
            lo, hi = 0, 1
        elif side == 0:
            lo, hi = slot_ptr[a], slot_ptr[a] + fill[a]
        else:
            lo, hi = slot_ptr[b], slot_ptr[b] + fill[b]
        for s in range(lo, hi):
            q = fallback if side == 2 else slot_part[s]
            if q < 0 or q == p or loads[q] >= limit:
                continue
            cost = (1 if count_a[q] == 0 else 0) + (1 if count_b[q] == 0 else 0)
            if cost < best_cost or (cost == best_cost and loads[q] < loads[best_q]):
                best_cost = cost
                best_q = q
    for s in range(slot_ptr[a], slot_ptr[a] + fill[a]):
        count_a[slot_part[s]] = 0
    for s in range(slot_ptr[b], slot_ptr[b] + fill[b]):
        count_b[slot_part[s]] = 0
    return best_cost - freed, best_q


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[::1], int32[::1], int32[::1], int32[::1], int64, int64)", cache=True, nogil=True)
def _count_in(slot_ptr, slot_part, slot_count, fill, x, p):
    s = find_slot(slot_ptr, slot_part, fill, x, p)
    return 0 if s < 0 else slot_count[s]


@njit(cache=True, nogil=True)
def _move(e, p, q, u, v, assignment, loads, slot_ptr, slot_part, slot_count, fill):
    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, u[e], p)
    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, v[e], p)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], q)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], q)
    assignment[e] = q
    loads[p] -= 1
    loads[q] += 1


@njit(cache=True, nogil=True)
def _follow(first, p, q, u, v, assignment, loads, source_limit, target_limit, slot_ptr, slot_part, slot_count,
            fill, indptr, targets, edge_of_entry, stack, stamp, chain, hub_degree):
    """After an edge moved p → q, keep moving the edges around it that now move for free (delta ≤ 0).

    This grows the moved set as a connected region (a path moves as one segment, not as scattered edges).
    Vertices of degree above `hub_degree` are not scanned. Returns the number of extra moves.
    """
    moves = 0
    top = 0
    for x in (u[first], v[first]):
        if stamp[x] != chain:
            stamp[x] = chain
            stack[top] = x
            top += 1
    while top > 0 and loads[p] > source_limit and loads[q] < target_limit:
        top -= 1
        x = stack[top]
        if indptr[x + 1] - indptr[x] > hub_degree:
            continue   # a hub's edges are not scanned (each scan costs O(degree · parts); hubs are replicated anyway)
        for i in range(indptr[x], indptr[x + 1]):
            if loads[p] <= source_limit or loads[q] >= target_limit:
                break
            e = edge_of_entry[i]
            if assignment[e] != p:
                continue
            y = targets[i]
            cost = (1 if _count_in(slot_ptr, slot_part, slot_count, fill, x, q) == 0 else 0) + \
                (1 if _count_in(slot_ptr, slot_part, slot_count, fill, y, q) == 0 else 0)
            freed = (1 if _count_in(slot_ptr, slot_part, slot_count, fill, x, p) == 1 else 0) + \
                (1 if _count_in(slot_ptr, slot_part, slot_count, fill, y, p) == 1 else 0)
            if cost - freed > 0:
                continue
            _move(e, p, q, u, v, assignment, loads, slot_ptr, slot_part, slot_count, fill)
            moves += 1
            if stamp[y] != chain:
                stamp[y] = chain
                stack[top] = y
                top += 1
    return moves


@njit(cache=True, nogil=True)
def _order_by_price(price):
    """Stable order of the candidates by price (a counting sort: prices lie in −2..2, new copies − freed)."""
    low = 0
    high = 0
    for i in range(price.shape[0]):
        if price[i] < low:
            low = price[i]
        if price[i] > high:
            high = price[i]
    start = np.zeros(high - low + 2, dtype=np.int64)
    for i in range(price.shape[0]):
        start[price[i] - low + 1] += 1
    for b in range(1, start.shape[0]):
        start[b] += start[b - 1]
    order = np.empty(price.shape[0], dtype=np.int64)
    for i in range(price.shape[0]):
        b = price[i] - low
        order[start[b]] = i
        start[b] += 1
    return order


@njit(cache=True, nogil=True)
def rebalance_kernel(u, v, assignment, k, lower, upper, slot_ptr, slot_part, slot_count, fill, indptr, targets,
                     edge_of_entry):
    """Move edges until every part holds between `lower` and `upper` edges; returns the number of moves.

    Rounds: while a part is above `upper`, sources are those parts and targets the parts below `upper`;
    then, while a part is below `lower`, sources are parts above `lower` and targets the parts below it.
    Each round scores the edges of the sources by their cheapest move, sorts, and applies moves in that
    order, re-scoring each one live and skipping it when its price went up (it is retried next round). A round
    first scores only the edges at vertices held by several parts or of degree 1 (every other edge costs two
    new copies wherever it goes), found from the vertex side in O(n + their edges), when their incidence
    entries are fewer than m/2 (meshes); when those do not restore the round's bound, the next round scores
    every edge of the sources.
    """
    m = u.shape[0]
    loads = np.zeros(k, dtype=np.int64)
    for e in range(m):
        loads[assignment[e]] += 1
    count_a = np.zeros(k, dtype=np.int32)
    count_b = np.zeros(k, dtype=np.int32)
    n = indptr.shape[0] - 1
    stack = np.empty(n, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    hub_degree = max(64, (4 * 2 * m) // max(n, 1))
    chain = 0
    moves = 0
    cand_all = np.empty(m, dtype=np.int64)
    price_all = np.empty(m, dtype=np.int64)
    edge_stamp = np.full(m, -1, dtype=np.int64)
    round_id = 0
    boundary_only = True
    while True:
        over = False
        under = False
        for q in range(k):
            if loads[q] > upper:
                over = True
            if loads[q] < lower:
                under = True
        if not over and not under:
            break
        if over:
            source_limit = upper
            target_limit = upper
        else:
            source_limit = lower
            target_limit = lower
        fallback = _least_loaded_below(loads, target_limit)
        round_id += 1
        ncand = 0
        if boundary_only:
            # worth it only when the boundary is a small part of the graph (meshes); on social graphs nearly
            # every vertex is held by several parts and the plain scan over the edges is cheaper
            boundary_entries = 0
            for x in range(n):
                if fill[x] >= 2 or indptr[x + 1] - indptr[x] == 1:
                    boundary_entries += indptr[x + 1] - indptr[x]
            if 2 * boundary_entries > m:
                boundary_only = False
        if boundary_only:
            # the cheap moves: edges at a vertex held by several parts, or at a degree-1 vertex (an interior
            # edge of two inner vertices costs 2 wherever it goes); found from the vertices, not all m edges
            for x in range(n):
                if fill[x] < 2 and indptr[x + 1] - indptr[x] != 1:
                    continue
                for j in range(indptr[x], indptr[x + 1]):
                    e = edge_of_entry[j]
                    p = assignment[e]
                    if edge_stamp[e] != round_id and loads[p] > source_limit:
                        edge_stamp[e] = round_id
                        delta, q = _best_move(u[e], v[e], p, loads, target_limit, fallback, slot_ptr, slot_part,
                                              slot_count, fill, count_a, count_b)
                        cand_all[ncand] = e
                        price_all[ncand] = delta
                        ncand += 1
        else:
            for e in range(m):
                p = assignment[e]
                if loads[p] > source_limit:
                    delta, q = _best_move(u[e], v[e], p, loads, target_limit, fallback, slot_ptr, slot_part,
                                          slot_count, fill, count_a, count_b)
                    cand_all[ncand] = e
                    price_all[ncand] = delta
                    ncand += 1
        cand = cand_all[:ncand]
        price = price_all[:ncand]
        order = _order_by_price(price)
        moved_this_round = 0
        for i in range(ncand):
            e = cand[order[i]]
            p = assignment[e]
            if loads[p] <= source_limit:
                continue
            if fallback < 0 or loads[fallback] >= target_limit:
                fallback = _least_loaded_below(loads, target_limit)
                if fallback < 0:
                    break
            delta, q = _best_move(u[e], v[e], p, loads, target_limit, fallback, slot_ptr, slot_part,
                                  slot_count, fill, count_a, count_b)
            if q < 0 or (delta > price[order[i]] and moved_this_round > 0):
                continue
            _move(e, p, q, u, v, assignment, loads, slot_ptr, slot_part, slot_count, fill)
            moves += 1
            moved_this_round += 1
            chain += 1
            moves += _follow(e, p, q, u, v, assignment, loads, source_limit, target_limit, slot_ptr, slot_part,
                             slot_count, fill, indptr, targets, edge_of_entry, stack, stamp, chain, hub_degree)
        if boundary_only:
            # the next round scans every edge when the boundary edges did not finish this round's job
            unfinished = False
            for q in range(k):
                if loads[q] > upper or (not over and loads[q] < lower):
                    unfinished = True
            boundary_only = not unfinished
            continue
        if moved_this_round == 0:
            break
        boundary_only = True
    return moves
