"""Numba kernel of the grid metrics: boundary lengths between processors from the rectangles' edges
(seed 002 §3.1), O(pieces²) with no rows × cols array."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def owner_boundaries(owner, row, col, height, width, p):
    """(p, p) int64: entry [i, j] is the length of boundary processor i's pieces share with processor j's
    (symmetric, zero diagonal). Two pieces share an edge when one's right (bottom) side is the other's left
    (top) side; the shared length is the overlap of their row (column) ranges."""
    m = owner.shape[0]
    matrix = np.zeros((p, p), dtype=np.int64)
    for a in range(m):
        ra0 = row[a]
        ra1 = ra0 + height[a]
        ca0 = col[a]
        ca1 = ca0 + width[a]
        oa = owner[a]
        for b in range(a + 1, m):
            ob = owner[b]
            if oa == ob:
                continue
            rb0 = row[b]
            rb1 = rb0 + height[b]
            cb0 = col[b]
            cb1 = cb0 + width[b]
            length = 0
            if ca1 == cb0 or cb1 == ca0:
                overlap = min(ra1, rb1) - max(ra0, rb0)
                if overlap > 0:
                    length += overlap
            if ra1 == rb0 or rb1 == ra0:
                overlap = min(ca1, cb1) - max(ca0, cb0)
                if overlap > 0:
                    length += overlap
            if length:
                matrix[oa, ob] += length
                matrix[ob, oa] += length
    return matrix
