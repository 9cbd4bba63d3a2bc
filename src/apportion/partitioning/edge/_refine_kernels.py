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
        if q != p:
            if marked[q] == 0:
                touched[ntouched] = q
                ntouched += 1
            marked[q] = 2          # 2: x is in q (1: only a group neighbour is)
    best_gain = 0
    best_q = -1
    for t in range(ntouched):
        q = touched[t]
        if loads[q] + group_size <= upper:
            holds_x = 1 if marked[q] == 2 else 0
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
def _split_gain(x, p, group_size, group_other, group_target, loads, upper, slot_ptr, slot_part, slot_count, fill,
                holds_x, extra):
    """Gain of emptying x's part p by sending each group edge (x, w) to its own part among those holding x.

    x is freed from p (+1) and needs no new copy (every target already holds x). Edge (x, w) goes to the
    lightest part holding both x and w that has room (w gains no copy), else to the lightest part holding x
    with room (w gets a new copy, −1); w is freed from p when this was its only edge there (+1). Targets are
    written to group_target. Returns the gain, or −(group_size + 2) when some edge finds no part with room.
    """
    start = slot_ptr[x]
    for s in range(start, start + fill[x]):
        if slot_part[s] != p:
            holds_x[slot_part[s]] = 1
    gain = 1
    feasible = True
    for j in range(group_size):
        w = group_other[j]
        best = -1
        freed = 0
        ws = slot_ptr[w]
        for s in range(ws, ws + fill[w]):
            q = slot_part[s]
            if q == p:
                if slot_count[s] == 1:
                    freed = 1
                continue
            if holds_x[q] == 1 and loads[q] + extra[q] + 1 <= upper:
                if best < 0 or loads[q] + extra[q] < loads[best] + extra[best]:
                    best = q
        if best >= 0:
            gain += freed
        else:
            for s in range(start, start + fill[x]):
                q = slot_part[s]
                if q != p and loads[q] + extra[q] + 1 <= upper:
                    if best < 0 or loads[q] + extra[q] < loads[best] + extra[best]:
                        best = q
            if best < 0:
                feasible = False
                break
            gain += freed - 1
        group_target[j] = best
        extra[best] += 1
    for s in range(start, start + fill[x]):
        holds_x[slot_part[s]] = 0
        extra[slot_part[s]] = 0
    if not feasible:
        return -(group_size + 2)
    return gain


@njit(cache=True, nogil=True)
def refine_kernel(u, v, assignment, k, lower, upper, slot_ptr, slot_part, slot_count, fill, indptr, targets,
                  edge_of_entry, order, passes, max_group, min_pass_gain, balance_moves, hub_degree, active):
    """Label-propagation passes of vertex-group moves; `assignment` and the part sets are updated in place.

    A pass visits the vertices in `order`; for every vertex x held by at least two parts and every part p
    holding x (at most `max_group` of x's edges), the edges of x in p move together to the part q of
    largest positive gain (see _group_gain) when q stays within `upper` and p within `lower` — or, when that
    gains more, each edge to its own part among those already holding x (_split_gain). Every applied
    move lowers the copies by its gain, so the copies never increase. Stops after `passes` passes or when a
    pass gains less than `min_pass_gain`. The first pass visits the vertices marked in `active` (int8, n; all
    of them for a fresh refinement, only those near the edges a balancing step moved for an incremental one;
    the array is consumed). After the first pass only vertices near a change are revisited: the
    moved group's vertices and their neighbours (a vertex of degree above `hub_degree` does not wake its
    neighbours). Returns (total gain = copies removed, edges moved).
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
    bucket_edges = np.empty(max_degree, dtype=np.int64)
    bucket_other = np.empty(max_degree, dtype=np.int64)
    offset = np.zeros(k, dtype=np.int64)
    cursor = np.zeros(k, dtype=np.int64)
    group_target = np.empty(max_degree, dtype=np.int64)
    holds_x = np.zeros(k, dtype=np.int8)
    extra = np.zeros(k, dtype=np.int64)
    stale = np.zeros(k, dtype=np.int8)
    stale_parts = np.empty(k, dtype=np.int64)
    next_active = np.zeros(n, dtype=np.int8)
    total_gain = 0
    moved = 0
    for _ in range(passes):
        pass_gain = 0
        for i in range(order.shape[0]):
            x = order[i]
            if fill[x] < 2 or active[x] == 0:
                continue
            # bucket x's edges by part once (O(deg + parts)); a move p → q leaves the buckets of the other
            # parts valid, so only the parts that received edges in this visit are skipped from then on (x is
            # active again in the next pass)
            nown = fill[x]
            position = 0
            for s in range(nown):
                own_parts[s] = slot_part[slot_ptr[x] + s]
                offset[own_parts[s]] = position
                cursor[own_parts[s]] = position
                position += slot_count[slot_ptr[x] + s]
            for j in range(indptr[x], indptr[x + 1]):
                e = edge_of_entry[j]
                c = cursor[assignment[e]]
                bucket_edges[c] = e
                bucket_other[c] = targets[j]
                cursor[assignment[e]] = c + 1
            nstale = 0
            for t in range(nown):
                p = own_parts[t]
                size = cursor[p] - offset[p]
                if stale[p] == 1 or size == 0 or size > max_group or fill[x] < 2 or loads[p] - size < lower:
                    continue
                g = size
                group_edges = bucket_edges[offset[p]:offset[p] + g]
                group_other = bucket_other[offset[p]:offset[p] + g]
                gain, q = _group_gain(x, p, g, group_edges, group_other, loads, lower, upper, slot_ptr, slot_part,
                                      slot_count, fill, present, marked, touched, balance_moves)
                split = False
                if g > 1:
                    split_gain = _split_gain(x, p, g, group_other, group_target, loads, upper, slot_ptr,
                                             slot_part, slot_count, fill, holds_x, extra)
                    if split_gain > 0 and split_gain > gain:
                        split = True
                        gain = split_gain
                if q < 0 and not split:
                    continue
                for j in range(g):
                    e = group_edges[j]
                    target = group_target[j] if split else q
                    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, u[e], p)
                    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, v[e], p)
                    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], target)
                    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], target)
                    assignment[e] = target
                    loads[target] += 1
                    if stale[target] == 0:
                        stale[target] = 1
                        stale_parts[nstale] = target
                        nstale += 1
                loads[p] -= g
                moved += g
                pass_gain += gain
                next_active[x] = 1
                for j in range(g):
                    w = group_other[j]
                    next_active[w] = 1
                    if indptr[w + 1] - indptr[w] <= hub_degree:
                        for jj in range(indptr[w], indptr[w + 1]):
                            next_active[targets[jj]] = 1
            for t in range(nstale):
                stale[stale_parts[t]] = 0
        for y in range(n):
            active[y] = next_active[y]
            next_active[y] = 0
        total_gain += pass_gain
        if pass_gain < min_pass_gain:
            break
    return total_gain, moved


@njit(cache=True, nogil=True)
def mark_near_changes(before, after, u, v, indptr, targets, hub_degree):
    """int8 marks of the endpoints of the edges whose part differs between `before` and `after`, and of their
    neighbours (through endpoints of degree ≤ `hub_degree`): where an incremental refinement starts."""
    n = indptr.shape[0] - 1
    marks = np.zeros(n, dtype=np.int8)
    for e in range(u.shape[0]):
        if before[e] != after[e]:
            for x in (u[e], v[e]):
                if marks[x] == 2:
                    continue
                marks[x] = 2
                if indptr[x + 1] - indptr[x] <= hub_degree:
                    for j in range(indptr[x], indptr[x + 1]):
                        if marks[targets[j]] == 0:
                            marks[targets[j]] = 1
    for x in range(n):
        if marks[x] != 0:
            marks[x] = 1
    return marks


@njit(cache=True, nogil=True)
def _move_edge(e, p, q, u, v, assignment, slot_ptr, slot_part, slot_count, fill):
    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, u[e], p)
    remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, v[e], p)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], q)
    add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], q)
    assignment[e] = q


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64, int64, int64, int64, int64[::1], int64[::1], int32[::1], "
      "int32[::1], int32[::1])", cache=True, nogil=True)
def _gain_to(x, p, q, group_size, group_other, slot_ptr, slot_part, slot_count, fill):
    """Exact copy change of moving x's `group_size` edges in p (other endpoints group_other) all to q."""
    gain = 1 - (1 if _count_in(slot_ptr, slot_part, slot_count, fill, x, q) == 0 else 0) - group_size
    for j in range(group_size):
        w = group_other[j]
        ws = slot_ptr[w]
        for s in range(ws, ws + fill[w]):
            t = slot_part[s]
            if t == p:
                if slot_count[s] == 1:
                    gain += 1
            elif t == q:
                gain += 1
    return gain


@njit(cache=True, nogil=True)
def region_kernel(u, v, assignment, k, lower, upper, slot_ptr, slot_part, slot_count, fill, indptr, targets,
                  edge_of_entry, order, max_group, patience, max_steps, max_degree_scanned, scan_budget, window,
                  min_window_gain, total_budget):
    """Region moves with rollback (an FM-style search that can cross zero- and negative-gain plateaus).

    For every vertex x held by ≥ 2 parts, take its smallest group (edges in part p) and the part q holding
    most of x's edges; move x's group p → q, then keep moving the p-groups of the vertices reached (breadth
    first from x) to q, even at a loss, tracking the cumulative gain; stop after `patience` moves without a
    new best or `max_steps` moves, and roll back to the best prefix (kept only when it gains > 0). Vertices
    of degree above `max_degree_scanned` (hubs, replicated anyway) neither start nor join a region, and a
    region stops once it has scanned `scan_budget` incidence entries (dense graphs). The search as a whole
    stops after a `window` of scanned incidence entries that gained less than `min_window_gain` (on social
    graphs region moves find almost nothing: MIT8 k = 4 scanned 8 × 2m entries for 5 copies), and after
    `total_budget` scanned entries in all. Balance bounds hold after every single move. Returns (total gain,
    edges moved).
    """
    m = u.shape[0]
    n = indptr.shape[0] - 1
    loads = np.zeros(k, dtype=np.int64)
    for e in range(m):
        loads[assignment[e]] += 1
    max_degree = 0
    for y in range(n):
        if indptr[y + 1] - indptr[y] > max_degree:
            max_degree = indptr[y + 1] - indptr[y]
    group_edges = np.empty(max_degree, dtype=np.int64)
    group_other = np.empty(max_degree, dtype=np.int64)
    log_edge = np.empty(max_steps * max_group + 1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    total_gain = 0
    moved = 0
    window_scanned = 0
    window_gain = 0
    for i in range(order.shape[0]):
        x = order[i]
        if fill[x] < 2 or indptr[x + 1] - indptr[x] > max_degree_scanned:
            continue
        p = -1
        q = -1
        start = slot_ptr[x]
        for s in range(start, start + fill[x]):
            if p < 0 or slot_count[s] < slot_count[slot_ptr[x] + p]:
                p = s - start
            if q < 0 or slot_count[s] > slot_count[slot_ptr[x] + q]:
                q = s - start
        if p == q:
            continue
        p = slot_part[start + p]
        q = slot_part[start + q]
        head = 0
        tail = 0
        queue[tail] = x
        tail += 1
        stamp[x] = i
        logged = 0
        best_logged = 0
        cumulative = 0
        best = 0
        steps = 0
        since_best = 0
        scanned = 0
        while head < tail and steps < max_steps and since_best < patience and scanned < scan_budget:
            y = queue[head]
            head += 1
            if indptr[y + 1] - indptr[y] > max_degree_scanned:
                continue
            scanned += indptr[y + 1] - indptr[y]
            g = 0
            for j in range(indptr[y], indptr[y + 1]):
                e = edge_of_entry[j]
                if assignment[e] == p:
                    group_edges[g] = e
                    group_other[g] = targets[j]
                    g += 1
            if g == 0 or g > max_group or loads[q] + g > upper or loads[p] - g < lower:
                continue
            gain = _gain_to(y, p, q, g, group_other, slot_ptr, slot_part, slot_count, fill)
            for j in range(g):
                _move_edge(group_edges[j], p, q, u, v, assignment, slot_ptr, slot_part, slot_count, fill)
                log_edge[logged] = group_edges[j]
                logged += 1
                w = group_other[j]
                if stamp[w] != i:
                    stamp[w] = i
                    queue[tail] = w
                    tail += 1
            loads[p] -= g
            loads[q] += g
            steps += 1
            cumulative += gain
            if cumulative > best:
                best = cumulative
                best_logged = logged
                since_best = 0
            else:
                since_best += 1
        for j in range(logged - 1, best_logged - 1, -1):
            _move_edge(log_edge[j], q, p, u, v, assignment, slot_ptr, slot_part, slot_count, fill)
            loads[q] -= 1
            loads[p] += 1
        total_gain += best
        moved += best_logged
        window_scanned += scanned
        window_gain += best
        total_budget -= scanned
        if total_budget <= 0:
            break
        if window_scanned >= window:
            if window_gain < min_window_gain:
                break
            window_scanned = 0
            window_gain = 0
    return total_gain, moved
