"""numba-cuda kernel of one Gaussian-elimination update, the GPU companion of _gauss_kernels.eliminate_block.

One thread per element of the block (a 2-D grid of 16 x 16 blocks): for global row i > k it writes
a[i, j] − l_i · u_j where j > k, and l_i where j = k — the same operation as the CPU kernel, the product unfused
(`_exact_cuda.mul_rn`), so the results are bit-identical. Imported only when a CUDA device runs an elimination
step (this module imports numba.cuda).
"""

from __future__ import annotations

from numba import cuda

from apportion.apps._exact_cuda import mul_rn

#: threads per block side
TILE = 16


@cuda.jit(cache=False)
def _eliminate_kernel(block, row0, col0, k, multipliers, pivot_row):
    a, b = cuda.grid(2)
    if a < block.shape[0] and b < block.shape[1]:
        i = row0 + a
        j = col0 + b
        if i > k:
            if j > k:
                block[a, b] -= mul_rn(multipliers[i], pivot_row[j])
            elif j == k:
                block[a, b] = multipliers[i]


def eliminate_block_cuda(block, row0, col0, k, multipliers, pivot_row, *, stream):
    """The CUDA twin of `eliminate_block` on device arrays: updates `block` for step k and returns it."""
    h, w = block.shape
    if h and w:
        grid = ((h + TILE - 1) // TILE, (w + TILE - 1) // TILE)
        _eliminate_kernel[grid, (TILE, TILE), stream](block, row0, col0, k, multipliers, pivot_row)
    return block


def gauss_with_messages_cuda(block, row0, col0, k, multipliers, pivot_row, send, receive, *, stream):
    """The benchmark case of `gauss.benchmark_case` on the device: the copy of the c received items (device to
    device), then one elimination update. Returns `block`."""
    if send.shape[0]:
        receive.copy_to_device(send, stream=stream)
    return eliminate_block_cuda(block, row0, col0, k, multipliers, pivot_row, stream=stream)
