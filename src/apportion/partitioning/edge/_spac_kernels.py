"""Numba kernel of SPAC's reconstruction step Ω (see spac.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.edge._part_sets import add_edge_to_part, find_slot


@njit(cache=True, nogil=True)
def _place_uncut_edges(clone_part, upper_entries, reverse, k):
    """First pass of Ω: an edge whose dominant edge is uncut goes to its clones' part; cut ones get -1.
    Returns (assignment, per-part loads, dominant edges cut)."""
    m = upper_entries.shape[0]
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    cut = 0
    for e in range(m):
        a = clone_part[upper_entries[e]]
        b = clone_part[reverse[upper_entries[e]]]
        if a == b:
            assignment[e] = a
            loads[a] += 1
        else:
            assignment[e] = -1
            cut += 1
    return assignment, loads, cut


@njit(cache=True, nogil=True)
def reconstruct_kernel(clone_part, upper_entries, reverse, k):
    """Edge e → the part of both clones of its dominant edge; a cut dominant edge → the lighter of its two parts.

    Uncut edges are placed first (their loads are final), then cut edges in canonical order, each to whichever
    of its two candidate parts holds fewer edges at that moment. Returns (assignment, dominant edges cut).
    """
    m = upper_entries.shape[0]
    assignment, loads, cut = _place_uncut_edges(clone_part, upper_entries, reverse, k)
    for e in range(m):
        if assignment[e] < 0:
            a = clone_part[upper_entries[e]]
            b = clone_part[reverse[upper_entries[e]]]
            q = a if loads[a] <= loads[b] else b
            assignment[e] = q
            loads[q] += 1
    return assignment, cut


@njit(cache=True, nogil=True)
def reconstruct_copy_aware_kernel(clone_part, upper_entries, reverse, u, v, k, slot_ptr):
    """Ω with a copy-aware choice for cut dominant edges: (assignment, dominant edges cut).

    Uncut edges go to their clones' part first; then each cut edge (canonical order) goes to whichever of its
    two candidate parts already holds more of its endpoints (fewer new copies), the lighter one on a tie.
    Also returns the part sets it built on the way (slot_part, slot_count, fill over `slot_ptr`, see
    _part_sets.py): those of the returned assignment, which the refinement reuses.
    """
    m = upper_entries.shape[0]
    n = slot_ptr.shape[0] - 1
    assignment, loads, cut = _place_uncut_edges(clone_part, upper_entries, reverse, k)
    slot_part = np.empty(slot_ptr[n], dtype=np.int32)
    slot_count = np.zeros(slot_ptr[n], dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    for e in range(m):
        if assignment[e] >= 0:
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], assignment[e])
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], assignment[e])
    for e in range(m):
        if assignment[e] < 0:
            a = clone_part[upper_entries[e]]
            b = clone_part[reverse[upper_entries[e]]]
            cost_a = (1 if find_slot(slot_ptr, slot_part, fill, u[e], a) < 0 else 0) + \
                (1 if find_slot(slot_ptr, slot_part, fill, v[e], a) < 0 else 0)
            cost_b = (1 if find_slot(slot_ptr, slot_part, fill, u[e], b) < 0 else 0) + \
                (1 if find_slot(slot_ptr, slot_part, fill, v[e], b) < 0 else 0)
            if cost_a < cost_b or (cost_a == cost_b and loads[a] <= loads[b]):
                q = a
            else:
                q = b
            assignment[e] = q
            loads[q] += 1
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], q)
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], q)
    return assignment, cut, slot_part, slot_count, fill


@njit(cache=True, nogil=True)
def psi_cut_kernel(indptr, clone_part, upper_entries, reverse):
    """(auxiliary edges cut, dominant edges cut) in Ψ (cycle variant) by a partition of its clones, O(m).

    Auxiliary edges: consecutive clones of a vertex and, for degree ≥ 3, its last and first clone (degree 2:
    one edge). Dominant edges: the two clones (entries) of every canonical edge."""
    dominant = 0
    for e in range(upper_entries.shape[0]):
        if clone_part[upper_entries[e]] != clone_part[reverse[upper_entries[e]]]:
            dominant += 1
    auxiliary = 0
    n = indptr.shape[0] - 1
    for x in range(n):
        start = indptr[x]
        end = indptr[x + 1]
        for j in range(start, end - 1):
            if clone_part[j] != clone_part[j + 1]:
                auxiliary += 1
        if end - start >= 3 and clone_part[end - 1] != clone_part[start]:
            auxiliary += 1
    return auxiliary, dominant


@njit(cache=True, nogil=True)
def clone_runs_kernel(indptr, indices, reverse, run_cap, dominant_weight):
    """CSR of Ψ pre-clustered into runs (see spac.clone_runs): (indptr, indices, vertex weights, edge weights,
    run of every clone).

    Vertex x of degree d has r = ⌈d / run_cap⌉ runs; its clone at position j goes to run ⌊j·r / d⌋. A run's
    neighbours, in increasing order: the runs of its clones' twins in vertices w < x (they come out sorted,
    because x's neighbours are sorted and the runs of w precede those of w' > w), then the other runs of x on
    its cycle, then the twins' runs in vertices w > x. O(n + m).
    """
    n = indptr.shape[0] - 1
    run_ptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        d = indptr[x + 1] - indptr[x]
        run_ptr[x + 1] = run_ptr[x] + (d + run_cap - 1) // run_cap
    count = run_ptr[n]
    clone_run = np.empty(indices.shape[0], dtype=np.int64)
    weights = np.zeros(count, dtype=np.int64)
    for x in range(n):
        d = indptr[x + 1] - indptr[x]
        r = run_ptr[x + 1] - run_ptr[x]
        for j in range(indptr[x], indptr[x + 1]):
            c = run_ptr[x] + ((j - indptr[x]) * r) // d
            clone_run[j] = c
            weights[c] += 1
    out_ptr = np.zeros(count + 1, dtype=np.int64)
    for x in range(n):
        r = run_ptr[x + 1] - run_ptr[x]
        cycle = 2 if r >= 3 else (1 if r == 2 else 0)
        for c in range(run_ptr[x], run_ptr[x + 1]):
            out_ptr[c + 1] = out_ptr[c] + weights[c] + cycle
    adjacency = np.empty(out_ptr[count], dtype=np.int32)
    edge_weights = np.empty(out_ptr[count], dtype=np.int64)
    for x in range(n):
        d = indptr[x + 1] - indptr[x]
        first = run_ptr[x]
        r = run_ptr[x + 1] - first
        j = indptr[x]
        for t in range(r):
            c = first + t
            pos = out_ptr[c]
            # this run's clones are the next weights[c] entries of x's row
            end = j + weights[c]
            k = j
            while k < end and indices[k] < x:
                adjacency[pos] = clone_run[reverse[k]]
                edge_weights[pos] = dominant_weight
                pos += 1
                k += 1
            if r == 2:
                adjacency[pos] = first + 1 - t
                edge_weights[pos] = 2 if d >= 3 else 1
                pos += 1
            elif r >= 3:
                before = first + (t - 1 + r) % r
                after = first + (t + 1) % r
                low = before if before < after else after
                high = after if before < after else before
                adjacency[pos] = low
                edge_weights[pos] = 1
                adjacency[pos + 1] = high
                edge_weights[pos + 1] = 1
                pos += 2
            while k < end:
                adjacency[pos] = clone_run[reverse[k]]
                edge_weights[pos] = dominant_weight
                pos += 1
                k += 1
            j = end
    return out_ptr, adjacency, weights, edge_weights, clone_run
