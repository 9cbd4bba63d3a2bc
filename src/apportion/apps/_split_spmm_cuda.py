"""numba-cuda row-by-row sparse product: the GPU side of the heterogeneous SpMM and HH-SpMM (seed 004 §IV–V),
the CUDA twin of `_split_spmm_kernels.gustavson_rows`.

One thread per row of A in [lo, hi) (the row-per-thread GPU kernel whose lock-step cost `warp_lane_operations`
models), using only the nonzeros a_ij whose row j of B is kept:

1. each thread counts its row's products (Σ nnz(B_j)), the row's slot in a scratch buffer follows by a prefix
   sum (on the host: one number per row);
2. each thread writes its products (column k, a_ij · b_jk) to its slots in the order the CPU kernel meets
   them, sorts them by column with a stable insertion sort and adds up the runs of equal columns in that order
   — so every value is summed in the same order as on the CPU and comes out bit for bit the same;
3. a second prefix sum of the distinct columns per row places each row in the output, and each thread copies
   its merged run there.

The output's columns within a row are sorted (the CPU kernel lists them in first-appearance order): the same
matrix. The insertion sort costs the square of a row's products, so rows with very many products are the
CPU's (what HH-CPU's threshold is for). Imported only when a CUDA device runs the GPU side (this module imports
numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _count(a_ptr, a_idx, b_ptr, lo, hi, keep, products):
    r = cuda.grid(1)
    i = lo + r
    if i < hi:
        work = 0
        for e in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[e]
            if keep[j] != 0:
                work += b_ptr[j + 1] - b_ptr[j]
        products[r] = work


@cuda.jit(cache=False)
def _multiply(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, lo, hi, keep, bounds, cols, vals, distinct):
    r = cuda.grid(1)
    i = lo + r
    if i < hi:
        start = bounds[r]
        end = start
        for e in range(a_ptr[i], a_ptr[i + 1]):
            j = a_idx[e]
            if keep[j] == 0:
                continue
            a = a_val[e]
            for f in range(b_ptr[j], b_ptr[j + 1]):
                cols[end] = b_idx[f]
                vals[end] = a * b_val[f]
                end += 1
        for s in range(start + 1, end):  # stable insertion sort by column
            col = cols[s]
            val = vals[s]
            t = s - 1
            while t >= start and cols[t] > col:
                cols[t + 1] = cols[t]
                vals[t + 1] = vals[t]
                t -= 1
            cols[t + 1] = col
            vals[t + 1] = val
        out = start - 1
        for s in range(start, end):  # add up the runs of equal columns, in order
            if out >= start and cols[out] == cols[s]:
                vals[out] += vals[s]
            else:
                out += 1
                cols[out] = cols[s]
                if out == s:
                    continue
                vals[out] = vals[s]
        distinct[r] = out + 1 - start


@cuda.jit(cache=False)
def _compact(lo, hi, bounds, cols, vals, ptr, idx, val):
    r = cuda.grid(1)
    if lo + r < hi:
        source = bounds[r]
        for s in range(ptr[r + 1] - ptr[r]):
            idx[ptr[r] + s] = cols[source + s]
            val[ptr[r] + s] = vals[source + s]


def _launch(count: int, stream) -> tuple:
    threads = min(BLOCK, 32 * ((count + 31) // 32)) or 32
    return (count + threads - 1) // threads, threads, stream


def _prefix(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


def gustavson_rows_cuda(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, lo, hi, keep, *, stream):
    """Rows [lo, hi) of A×B restricted to the kept rows of B, on device arrays: (ptr, idx, val, products) as
    `gustavson_rows` returns them (ptr from 0; columns sorted within a row)."""
    lo, hi = int(lo), int(hi)
    rows = max(hi - lo, 0)
    products = cuda.device_array(max(rows, 1), dtype=np.int64, stream=stream)
    if rows:
        _count[_launch(rows, stream)](a_ptr, a_idx, b_ptr, lo, hi, keep, products)
    host_products = products.copy_to_host(stream=stream)[:rows]
    bounds = _prefix(host_products)
    scratch = max(int(bounds[-1]), 1)
    cols = cuda.device_array(scratch, dtype=np.int64, stream=stream)
    vals = cuda.device_array(scratch, dtype=np.float64, stream=stream)
    distinct = cuda.device_array(max(rows, 1), dtype=np.int64, stream=stream)
    d_bounds = cuda.to_device(bounds, stream=stream)
    if rows:
        _multiply[_launch(rows, stream)](a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, lo, hi, keep, d_bounds, cols,
                                         vals, distinct)
    ptr = _prefix(distinct.copy_to_host(stream=stream)[:rows])
    nnz = int(ptr[-1])
    idx = cuda.device_array(max(nnz, 1), dtype=np.int64, stream=stream)
    val = cuda.device_array(max(nnz, 1), dtype=np.float64, stream=stream)
    if nnz:
        _compact[_launch(rows, stream)](lo, hi, d_bounds, cols, vals, cuda.to_device(ptr, stream=stream), idx, val)
    return ptr, idx.copy_to_host(stream=stream)[:nnz], val.copy_to_host(stream=stream)[:nnz], host_products
