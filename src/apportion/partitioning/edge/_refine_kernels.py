"""Numba kernel of the edge-partition refinement (see refine.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.edge._part_sets import add_edge_to_part, find_slot, remove_edge_from_part


@njit(cache=True, nogil=True)
def _count_in(slot_ptr, slot_part, slot_count, fill, x, p):
    s = find_slot(slot_ptr, slot_part, fill, x, p)
    return 0 if s < 0 else slot_count[s]


@njit(cache=True, nogil=True)
def _group_gain(x, p, group_size, group_edges, group_other, loads, lower, upper, slot_ptr, slot_part, slot_count,
                fill, present, marked, touched, balance_moves):
    """Best target part for moving the `group_size` edges of vertex x that lie in part p.

    Moving the group frees x's copy in p (+1), creates one in q unless x is already there (−1), frees every
    neighbour w whose only edge in p is the moved one (+1 each) and creates w in q unless w is already there
    (−1 each). With present[q] = number of group neighbours already in q and freed = neighbours freed in p:
        gain(q) = 1 − [x ∉ q] + freed − group_size + present[q].
    Only parts holding x or a group neighbour can have a positive gain, so only those are scanned.
    Returns (gain, q); q = −1 when no move is allowed (balance bounds) or none gains (with `balance_moves`,
    a zero-gain move from a heavier part to a lighter one is allowed: it can only help the later balancing).
    """
    freed = 0
    ntouched = 0
    for j in range(group_size):
        w = group_other[j]
        start = slot_ptr[w]
        for s in range(start, start + fill[w]):
            q = slot_part[s]
            if q == p:
                if slot_count[s] == 1:
                    freed += 1
                continue
            if marked[q] == 0:
                marked[q] = 1
                touched[ntouched] = q
                ntouched += 1
            present[q] += 1
    start = slot_ptr[x]
    for s in range(start, start + fill[x]):
        q = slot_part[s]
        if q != p and marked[q] == 0:
            marked[q] = 1
            touched[ntouched] = q
            ntouched += 1
    best_gain = 0
    best_q = -1
    for t in range(ntouched):
        q = touched[t]
        if loads[q] + group_size <= upper:
            holds_x = 1 if _count_in(slot_ptr, slot_part, slot_count, fill, x, q) > 0 else 0
            gain = holds_x + freed - group_size + present[q]
            better = False
            if gain > best_gain:
                better = True
            elif gain == best_gain:
                if best_q >= 0:
                    better = loads[q] < loads[best_q]
                elif balance_moves and gain == 0 and loads[q] + group_size < loads[p]:
                    better = True
            if better:
                best_gain = gain
                best_q = q
        present[q] = 0
        marked[q] = 0
    return best_gain, best_q


@njit(cache=True, nogil=True)
def refine_kernel(u, v, assignment, k, lower, upper, slot_ptr, slot_part, slot_count, fill, indptr, targets,
                  edge_of_entry, order, passes, max_group, min_pass_gain, balance_moves):
    """Label-propagation passes of vertex-group moves; `assignment` and the part sets are updated in place.

    A pass visits the vertices in `order`; for every vertex x held by at least two parts and every part p
    holding x (at most `max_group` of x's edges), the edges of x in p move together to the part q of
    largest positive gain (see _group_gain) when q stays within `upper` and p within `lower`. Every applied
    move lowers the copies by its gain, so the copies never increase. Stops after `passes` passes or when a
    pass gains less than `min_pass_gain`. Returns (total gain = copies removed, edges moved).
    """
    m = u.shape[0]
    loads = np.zeros(k, dtype=np.int64)
    for e in range(m):
        loads[assignment[e]] += 1
    present = np.zeros(k, dtype=np.int64)
    marked = np.zeros(k, dtype=np.int8)
    touched = np.empty(k, dtype=np.int64)
    own_parts = np.empty(k, dtype=np.int64)
    max_degree = 0
    n = indptr.shape[0] - 1
    for x in range(n):
        if indptr[x + 1] - indptr[x] > max_degree:
            max_degree = indptr[x + 1] - indptr[x]
    group_edges = np.empty(max_degree, dtype=np.int64)
    group_other = np.empty(max_degree, dtype=np.int64)
    total_gain = 0
    moved = 0
    for _ in range(passes):
        pass_gain = 0
        for i in range(order.shape[0]):
            x = order[i]
            if fill[x] < 2:
                continue
            nown = fill[x]
            for s in range(nown):
                own_parts[s] = slot_part[slot_ptr[x] + s]
            for t in range(nown):
                p = own_parts[t]
                size = _count_in(slot_ptr, slot_part, slot_count, fill, x, p)
                if size == 0 or size > max_group or fill[x] < 2 or loads[p] - size < lower:
                    continue
                g = 0
                for j in range(indptr[x], indptr[x + 1]):
                    e = edge_of_entry[j]
                    if assignment[e] == p:
                        group_edges[g] = e
                        group_other[g] = targets[j]
                        g += 1
                gain, q = _group_gain(x, p, g, group_edges, group_other, loads, lower, upper, slot_ptr, slot_part,
                                      slot_count, fill, present, marked, touched, balance_moves)
                if q < 0:
                    continue
                for j in range(g):
                    e = group_edges[j]
                    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, u[e], p)
                    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, v[e], p)
                    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], q)
                    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], q)
                    assignment[e] = q
                loads[p] -= g
                loads[q] += g
                moved += g
                pass_gain += gain
        total_gain += pass_gain
        if pass_gain < min_pass_gain:
            break
    return total_gain, moved
