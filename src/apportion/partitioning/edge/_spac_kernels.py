"""Numba kernel of SPAC's reconstruction step Ω (see spac.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.partitioning.edge._part_sets import add_edge_to_part, find_slot


@njit(cache=True, nogil=True)
def reconstruct_kernel(clone_part, upper_entries, reverse, k):
    """Edge e → the part of both clones of its dominant edge; a cut dominant edge → the lighter of its two parts.

    Uncut edges are placed first (their loads are final), then cut edges in canonical order, each to whichever
    of its two candidate parts holds fewer edges at that moment. Returns (assignment, dominant edges cut).
    """
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
    """
    m = upper_entries.shape[0]
    n = slot_ptr.shape[0] - 1
    assignment = np.empty(m, dtype=np.int32)
    loads = np.zeros(k, dtype=np.int64)
    slot_part = np.empty(slot_ptr[n], dtype=np.int32)
    slot_count = np.zeros(slot_ptr[n], dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    cut = 0
    for e in range(m):
        a = clone_part[upper_entries[e]]
        b = clone_part[reverse[upper_entries[e]]]
        if a == b:
            assignment[e] = a
            loads[a] += 1
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], a)
            add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], a)
        else:
            assignment[e] = -1
            cut += 1
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
    return assignment, cut
