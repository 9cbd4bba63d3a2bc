"""Heterogeneous product of scale-free sparse matrices, HH-CPU (seed 004 §V, Algorithm 3), for A×A.

A row with more than t nonzeros is *high*, the others *low* (Phase I). With B = A, the product splits by the
rows of B a nonzero a_ij reaches: the CPU computes the products through the high rows of B (A_H×B_H, Phase II,
and the cross product A_L×B_H, Phase III), the GPU those through the low rows (A_L×B_L and A_H×B_L), both at
the same time, each over every row of A; Phase IV adds the two partial products on the CPU. So the few long
rows, which would keep a GPU warp waiting, are the CPU's, and the many short ones the GPU's. The product
equals SciPy's whatever t.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from apportion.apps.split_common import (DevicePair, PartCosts, SplitRun, device_pair, run_both, run_on,
                                         simulated_seconds)
from apportion.apps.split_spmm import GUSTAVSON_KERNELS, NONZERO_BYTES, POINTER_BYTES, check_square_matrix, gpu_operations
from apportion.checks import integer

WORKLOAD = "spmm"


def row_lengths(matrix: sp.csr_matrix) -> np.ndarray:
    """nnz of every row."""
    return np.diff(matrix.indptr)


def split_hh_spmm(matrix, threshold: int, platform, *, pair: DevicePair | None = None) -> SplitRun:
    """Algorithm 3 for A×A: rows with more than `threshold` nonzeros are high (the CPU's), on `platform`.

    Returns a SplitRun whose result is A×A as SciPy CSR."""
    matrix = check_square_matrix(matrix, "hh")
    if isinstance(threshold, float) and threshold.is_integer():
        threshold = int(threshold)
    t = integer(threshold, "threshold", low=0)
    pair = pair or device_pair(platform)
    n = matrix.shape[0]
    lengths = row_lengths(matrix)
    high = (lengths > t).astype(np.uint8)
    low = (1 - high).astype(np.uint8)
    ptr, idx, val = matrix.indptr, matrix.indices, matrix.data
    args = (ptr, idx, val, ptr, idx, val, n, 0, n)
    cpu_part, gpu_part, cpu_s, gpu_s, wall = run_both(pair, (GUSTAVSON_KERNELS, args + (high,)),
                                                      (GUSTAVSON_KERNELS, args + (low,)),
                                                      entries=n + int(ptr[n]))
    product, merge_s = run_on(pair.cpu, pair.simulated, _add_parts, cpu_part, gpu_part, n)
    high_rows = int(high.sum())
    details = {"high_rows": high_rows, "low_rows": n - high_rows,
               "cpu_products": int(cpu_part[3].sum()), "gpu_products": int(gpu_part[3].sum())}
    if pair.simulated:
        costs = PartCosts()
        low_nnz = float(lengths[low.astype(bool)].sum())
        cpu_s = simulated_seconds(pair.cpu, float(cpu_part[3].sum() + high_rows), WORKLOAD, costs=costs)
        gpu_s = simulated_seconds(pair.gpu, float(gpu_operations(gpu_part[3])), WORKLOAD,
                                  bytes_in=NONZERO_BYTES * (ptr[n] + low_nnz) + 2 * POINTER_BYTES * n
                                  if high_rows < n else 0.0,
                                  bytes_out=NONZERO_BYTES * len(gpu_part[1]) + POINTER_BYTES * n
                                  if high_rows < n else 0.0, costs=costs)
        merge_s = simulated_seconds(pair.cpu, float(len(cpu_part[1]) + len(gpu_part[1])), WORKLOAD, costs=costs)
        details.update(costs.details())
    return SplitRun(result=product, threshold=t, time_s=max(cpu_s, gpu_s) + merge_s,
                    device_times_s={pair.cpu.name: cpu_s, pair.gpu.name: gpu_s, "merge": merge_s},
                    wall_s=wall, simulated=pair.simulated, details=details)


def _add_parts(first, second, n: int) -> sp.csr_matrix:
    """Phase IV: the sum of the two partial products (each (ptr, idx, val, products) from gustavson_rows)."""
    one = sp.csr_matrix((first[2], first[1], first[0]), shape=(n, n))
    two = sp.csr_matrix((second[2], second[1], second[0]), shape=(n, n))
    if one.nnz == 0:
        return two
    if two.nnz == 0:
        return one
    return (one + two).tocsr()


def threshold_candidates(matrix: sp.csr_matrix) -> np.ndarray:
    """The thresholds that give different splits: 0 and every distinct row length (t and the next length
    below it split alike)."""
    lengths = np.unique(row_lengths(matrix))
    return np.unique(np.concatenate(([0], lengths))).astype(np.int64)
