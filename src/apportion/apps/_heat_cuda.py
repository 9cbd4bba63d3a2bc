"""numba-cuda kernel of the explicit 2-D heat step, the GPU companion of _heat_kernels.heat_step.

One thread per interior point of the block (a 2-D grid of 16 x 16 blocks) reads its four neighbours from the
padded block and writes u + r·(north + south + west + east − 4u), the same operations in the same order as the
CPU kernel, its products unfused (`_exact_cuda.mul_rn`), so the results are bit-identical. Imported only when
a CUDA device runs a heat step (this module imports numba.cuda).
"""

from __future__ import annotations

from numba import cuda

from apportion.apps._exact_cuda import mul_rn

#: threads per block side
TILE = 16


@cuda.jit(cache=False)
def _heat_kernel(current, out, r):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        centre = current[i + 1, j + 1]
        out[i, j] = centre + mul_rn(r, current[i, j + 1] + current[i + 2, j + 1] + current[i + 1, j]
                                    + current[i + 1, j + 2] - mul_rn(4.0, centre))


def heat_step_cuda(current, out, r, *, stream):
    """The CUDA twin of `heat_step` on device arrays: writes the new interior into `out` and returns it."""
    h, w = out.shape
    if h and w:
        grid = ((h + TILE - 1) // TILE, (w + TILE - 1) // TILE)
        _heat_kernel[grid, (TILE, TILE), stream](current, out, r)
    return out


def heat_with_halo_cuda(current, out, r, send, receive, *, stream):
    """The benchmark case of `heat.benchmark_case` on the device: the halo exchange's copy of c items (device to
    device), then one heat step. Returns `out`."""
    if send.shape[0]:
        receive.copy_to_device(send, stream=stream)
    return heat_step_cuda(current, out, r, stream=stream)
