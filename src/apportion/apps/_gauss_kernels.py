"""Numba kernels of Gaussian elimination with partial pivoting (seed 002 §5.5, Algorithms 5-2/5-3)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def eliminate_block(block, row0, col0, k, multipliers, pivot_row):
    """Update one block (global origin row0, col0) for elimination step k: for global rows i > k and columns
    j > k, a[i, j] −= l_i · u_j; column k below the pivot stores l_i. `multipliers` and `pivot_row` are indexed
    by global row / column. Returns the block."""
    h, w = block.shape
    for a in range(h):
        i = row0 + a
        if i <= k:
            continue
        li = multipliers[i]
        for b in range(w):
            j = col0 + b
            if j > k:
                block[a, b] -= li * pivot_row[j]
            elif j == k:
                block[a, b] = li
    return block


def lu_reference(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed LU with partial pivoting by NumPy (first largest |a_ik| wins): (LU, row permutation)."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(min(a.shape) - 1):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if p != k:
            a[[k, p]] = a[[p, k]]
            perm[[k, p]] = perm[[p, k]]
        if a[k, k] == 0:
            continue
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a, perm
