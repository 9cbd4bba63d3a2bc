"""Numba kernel of SPAC's reconstruction step Ω (see spac.py)."""

from __future__ import annotations

import numpy as np
from numba import njit


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
