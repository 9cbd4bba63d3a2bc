"""Numba kernel of the entry ↔ edge correspondence (see incidence.py)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def twin_entries_kernel(indptr, indices):
    """(reverse, edge_of_entry, upper_entries) of a CSR graph with sorted neighbour lists and no self-loops.

    Visiting the rows in order, the entries (u→v) with v > u meet v's row in increasing u, and v's row lists
    its smaller neighbours first, in increasing order — so the twin of (u→v) is the next unused entry of v's
    row: one cursor per vertex, O(n + m). Canonical edge ids follow the upper entries in CSR order.
    """
    n = indptr.shape[0] - 1
    entries = indices.shape[0]
    reverse = np.empty(entries, dtype=np.int64)
    edge_of_entry = np.empty(entries, dtype=np.int64)
    upper_entries = np.empty(entries // 2, dtype=np.int64)
    cursor = indptr[:-1].copy()
    edge = 0
    for x in range(n):
        for j in range(indptr[x], indptr[x + 1]):
            y = indices[j]
            if y > x:
                twin = cursor[y]
                cursor[y] = twin + 1
                reverse[j] = twin
                reverse[twin] = j
                edge_of_entry[j] = edge
                edge_of_entry[twin] = edge
                upper_entries[edge] = j
                edge += 1
    return reverse, edge_of_entry, upper_entries
