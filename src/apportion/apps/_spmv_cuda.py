"""numba-cuda kernels of locality-aware SpMV (seed 001 §4–5), the GPU companion of
_spmv_kernels.partitioned_spmv_kernel.

One thread block per part of the edge partition: its threads first gather the part's distinct x entries into
shared memory and zero a shared y buffer for its distinct rows, then each thread multiplies a strided share of
the part's nonzeros, adding into the shared y buffer (atomic adds in shared memory), and finally the block
writes its y buffer to its slice of `partial`. A second kernel sums each row's partials (one thread per row),
so no two blocks write the same global location. The loads a block makes from global memory are exactly the
part's distinct x and y entries — what the edge partition minimises.

A part with more distinct x or y entries than the shared buffers hold (SHARED_ENTRIES each) reads x from
global memory and adds into global `partial` with atomics instead: the same result, without the locality.
Sums in a different order than the CPU kernel: results agree to floating-point rounding, not bit for bit.
Imported only when a CUDA device runs SpMV (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block (one block per part)
BLOCK = 128
#: float64 entries of each shared buffer (x and y): 2 x 16 KiB of the 48 KiB a block may always use
SHARED_ENTRIES = 2048


@cuda.jit(cache=False)
def _parts_kernel(part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, x, partial):
    p = cuda.blockIdx.x
    t = cuda.threadIdx.x
    x0 = x_ptr[p]
    nx = x_ptr[p + 1] - x0
    y0 = y_ptr[p]
    ny = y_ptr[p + 1] - y0
    xbuf = cuda.shared.array(SHARED_ENTRIES, dtype=np.float64)
    ybuf = cuda.shared.array(SHARED_ENTRIES, dtype=np.float64)
    local = nx <= SHARED_ENTRIES and ny <= SHARED_ENTRIES
    if local:
        for i in range(t, nx, BLOCK):
            xbuf[i] = x[x_ids[x0 + i]]
        for i in range(t, ny, BLOCK):
            ybuf[i] = 0.0
    else:
        for i in range(t, ny, BLOCK):
            partial[y0 + i] = 0.0
    cuda.syncthreads()
    for e in range(part_ptr[p] + t, part_ptr[p + 1], BLOCK):
        if local:
            cuda.atomic.add(ybuf, local_row[e], values[e] * xbuf[local_col[e]])
        else:
            cuda.atomic.add(partial, y0 + local_row[e], values[e] * x[x_ids[x0 + local_col[e]]])
    cuda.syncthreads()
    if local:
        for i in range(t, ny, BLOCK):
            partial[y0 + i] = ybuf[i]


@cuda.jit(cache=False)
def _rows_kernel(row_ptr, row_partials, partial, y):
    r = cuda.grid(1)
    if r < y.shape[0]:
        total = 0.0
        for t in range(row_ptr[r], row_ptr[r + 1]):
            total += partial[row_partials[t]]
        y[r] = total


def partitioned_spmv_cuda(part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, y_ids, x, row_ptr,
                          row_partials, *, stream):
    """y = A·x part by part on the device (arguments as `SpmvPlan`'s arrays, on the device); returns y."""
    k = part_ptr.shape[0] - 1
    rows = row_ptr.shape[0] - 1
    partial = cuda.device_array(y_ids.shape[0], dtype=np.float64, stream=stream)
    y = cuda.device_array(rows, dtype=np.float64, stream=stream)
    if k and y_ids.shape[0]:
        _parts_kernel[k, BLOCK, stream](part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, x, partial)
    if rows:
        _rows_kernel[(rows + BLOCK - 1) // BLOCK, BLOCK, stream](row_ptr, row_partials, partial, y)
    return y
