"""Dense matrix multiplication C = A B by row blocks: a divisible workload (seed 000 ch. 3.4, Fig. 3.6b-3.9).

The partitioner (ch. 3.2.1) cuts A into `n_chunks` row blocks; a run over a bundle of chunks multiplies those
rows by B. B is shipped to every device once before the rounds and stays resident, so a run moves only its rows
of A in and its rows of C out. Work of a row: 2 n p FLOPs. Kernels: Numba (CPU, serial and parallel), CuPy
(GPU, imported on first GPU use); reference: NumPy's A @ B.
"""

from __future__ import annotations

import numpy as np

from apportion.errors import InputError
from apportion.platform.device import KernelSet
from apportion.schedule.pool import RowWorkload


def _gpu_matmul(block, b):
    import cupy

    return cupy.matmul(block, b)


def _cpu_matmul(block, b):
    from apportion.apps._matmul_kernels import matmul_rows

    return matmul_rows(block, b)


def _cpu_matmul_parallel(block, b):
    from apportion.apps._matmul_kernels import matmul_rows_parallel

    return matmul_rows_parallel(block, b)


MATMUL_KERNELS = KernelSet(cpu=_cpu_matmul, gpu=_gpu_matmul, cpu_parallel=_cpu_matmul_parallel, name="matmul")


def matmul_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sequential reference (NumPy/BLAS)."""
    return np.asarray(a) @ np.asarray(b)


def matmul_workload(a: np.ndarray | None, b: np.ndarray | None, n_chunks: int, *, size: int | None = None,
                    itemsize: int = 4) -> RowWorkload:
    """C = A B cut into `n_chunks` row blocks. With a = b = None, a size-only `size` x `size` workload (for the
    simulator; `itemsize` bytes per element)."""
    if a is None:
        if not size or size < 1:
            raise InputError("matmul: give matrices or a positive size")
        return RowWorkload(None, MATMUL_KERNELS, n_chunks, name="matmul", n_rows=size,
                           flops_per_row=2.0 * size * size, bytes_in_per_row=float(itemsize * size),
                           bytes_out_per_row=float(itemsize * size))
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b, dtype=a.dtype)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise InputError(f"matmul: shapes {a.shape} and {b.shape} do not multiply")
    n, p = a.shape[1], b.shape[1]
    return RowWorkload(a, MATMUL_KERNELS, n_chunks, name="matmul", flops_per_row=2.0 * n * p,
                       bytes_in_per_row=float(a.itemsize * n), bytes_out_per_row=float(a.itemsize * p),
                       extra_args=(b,))


def random_matrices(size: int, seed: int = 0, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Two `size` x `size` random matrices (uniform [0, 1)), reproducible by seed."""
    rng = np.random.default_rng(seed)
    return rng.random((size, size), dtype=np.float64).astype(dtype), rng.random((size, size)).astype(dtype)
