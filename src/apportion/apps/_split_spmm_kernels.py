"""Numba kernels of the heterogeneous sparse products A×B (seed 004 §IV Algorithm 2, §V Algorithm 3).

Row-by-row (Gustavson) products of CSR matrices with a dense accumulator. A side computes the rows
[lo, hi) of A, using only the nonzeros a_ij whose row j of B it owns (`keep[j]` = 1): Algorithm 2 keeps every
row of B and splits the rows of A; Algorithm 3 (HH-CPU) keeps every row of A and splits the rows of B into high
and low ones, so each side computes a partial product of every row and Phase IV adds them. Each call also
returns the products (multiply-adds) of every row computed, from which a simulated device's time is made.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def row_work(a_ptr, a_idx, b_ptr, out):
    """out[i] = Σ nnz(B_j) over the nonzeros a_ij of row i: the products row i of A×B costs (§IV, L_AB)."""
    for i in range(a_ptr.shape[0] - 1):
        total = 0
        for e in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[e]
            total += b_ptr[j + 1] - b_ptr[j]
        out[i] = total


@njit(cache=True, nogil=True)
def gustavson_rows(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, lo, hi, keep):
    """Rows [lo, hi) of A×B restricted to the rows j of B with keep[j] != 0, as CSR (ptr, idx, val; ptr
    starts at 0), plus the products of each row. Two passes: count each row's distinct columns, then fill."""
    rows = hi - lo
    marker = np.full(ncols, -1, np.int64)
    ptr = np.zeros(rows + 1, np.int64)
    products = np.zeros(rows, np.int64)
    for r in range(rows):
        i = lo + r
        distinct = 0
        work = 0
        for e in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[e]
            if keep[j] == 0:
                continue
            for f in range(b_ptr[j], b_ptr[j + 1]):
                k = b_idx[f]
                work += 1
                if marker[k] != i:
                    marker[k] = i
                    distinct += 1
        ptr[r + 1] = ptr[r] + distinct
        products[r] = work
    nnz = ptr[rows]
    idx = np.empty(nnz, np.int64)
    val = np.zeros(nnz, np.float64)
    position = np.full(ncols, -1, np.int64)
    for r in range(rows):
        i = lo + r
        end = ptr[r]
        for e in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[e]
            if keep[j] == 0:
                continue
            a = a_val[e]
            for f in range(b_ptr[j], b_ptr[j + 1]):
                k = b_idx[f]
                slot = position[k]
                if slot < ptr[r]:  # first time in this row (slots of earlier rows are smaller)
                    slot = end
                    position[k] = slot
                    idx[slot] = k
                    end += 1
                val[slot] += a * b_val[f]
    return ptr, idx, val, products


@njit(cache=True, nogil=True)
def warp_lane_operations(products, warp):
    """Σ over groups of `warp` consecutive rows of warp × (the largest products in the group): what a GPU that
    gives one row to each thread spends, its threads waiting in lock-step for the longest row of their warp."""
    total = 0
    n = products.shape[0]
    for start in range(0, n, warp):
        longest = 0
        for r in range(start, min(n, start + warp)):
            if products[r] > longest:
                longest = products[r]
        total += longest * warp
    return total
