"""Numba kernels of part-by-part SpMV (see spmv.py)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, parallel=True)
def partitioned_spmv_kernel(part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, y_ids, x,
                            partial, row_ptr, row_partials, y):
    """y = A·x part by part, then reduced per row.

    Part p (one parallel task, like one thread block) gathers its distinct x entries x[x_ids[x_ptr[p]:…]] into
    a private buffer, accumulates its nonzeros into a private y buffer indexed by local row, and writes that
    buffer to `partial[y_ptr[p]:…]`. A second parallel pass sums each row's partials (row_partials lists, per
    row, the positions in `partial` that belong to it), so no two tasks ever write the same location.
    """
    k = part_ptr.shape[0] - 1
    for p in prange(k):
        x0, x1 = x_ptr[p], x_ptr[p + 1]
        y0, y1 = y_ptr[p], y_ptr[p + 1]
        xbuf = np.empty(x1 - x0, dtype=np.float64)
        for i in range(x1 - x0):
            xbuf[i] = x[x_ids[x0 + i]]
        ybuf = np.zeros(y1 - y0, dtype=np.float64)
        for t in range(part_ptr[p], part_ptr[p + 1]):
            ybuf[local_row[t]] += values[t] * xbuf[local_col[t]]
        for i in range(y1 - y0):
            partial[y0 + i] = ybuf[i]
    rows = row_ptr.shape[0] - 1
    for r in prange(rows):
        total = 0.0
        for t in range(row_ptr[r], row_ptr[r + 1]):
            total += partial[row_partials[t]]
        y[r] = total
