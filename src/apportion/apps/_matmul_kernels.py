"""Numba kernels for dense matrix multiplication by row blocks (seed 000 ch. 3.4 benchmark)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def matmul_rows(block, b):
    """block (r x n) @ b (n x p) in block's dtype (both must share it), i-k-j loop order."""
    rows, inner = block.shape
    cols = b.shape[1]
    out = np.zeros((rows, cols), dtype=block.dtype)
    for i in range(rows):
        for k in range(inner):
            a = block[i, k]
            for j in range(cols):
                out[i, j] += a * b[k, j]
    return out


@njit(cache=True, nogil=True, parallel=True)
def matmul_rows_parallel(block, b):
    """Same as matmul_rows, rows spread over Numba threads."""
    rows, inner = block.shape
    cols = b.shape[1]
    out = np.zeros((rows, cols), dtype=block.dtype)
    for i in prange(rows):
        for k in range(inner):
            a = block[i, k]
            for j in range(cols):
                out[i, j] += a * b[k, j]
    return out
