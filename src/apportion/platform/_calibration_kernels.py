"""The calibration kernel: a dense multiply-accumulate whose FLOP count is exact (apportion.platform.calibrate)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def multiply_accumulate(a, b, out):
    """out = a @ b by the naive i-k-j loop (2·n·m·k FLOPs, the inner loop streaming over contiguous rows, as
    the matmul workload's kernel does). Returns out."""
    n, m = a.shape
    k = b.shape[1]
    for i in range(n):
        for j in range(k):
            out[i, j] = 0.0
        for p in range(m):
            aip = a[i, p]
            for j in range(k):
                out[i, j] += aip * b[p, j]
    return out
