"""Heterogeneous sparse matrix product A×A by rows (seed 004 §IV, Algorithm 2; Gustavson's row-row product).

The work of row i is Σ nnz(B_j) over its nonzeros a_ij (the load vector L_AB = A·V_B). The CPU side takes the
prefix of rows whose work is closest to r % of the total, the GPU side the other rows; both compute their rows
at the same time, and the GPU's rows are appended to the CPU's (line 7). The product equals SciPy's whatever r.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from apportion.apps._split_spmm_kernels import gustavson_rows, row_work, warp_lane_operations
from apportion.apps.split_common import (WARP, DevicePair, PartCosts, SplitRun, check_percent, device_pair,
                                         run_both, run_on, simulated_seconds)
from apportion.errors import InputError
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet

WORKLOAD = "spmm"
# a CUDA device computes its rows with the numba-cuda twin (apps/_split_spmm_cuda.py): the same rows, columns sorted
GUSTAVSON_KERNELS = KernelSet(cpu=gustavson_rows, gpu=CudaKernel("apportion.apps._split_spmm_cuda", "gustavson_rows_cuda"),
                              name="gustavson_rows")
#: bytes of one CSR nonzero (8-byte index, 8-byte value) and of one row pointer
NONZERO_BYTES = 16.0
POINTER_BYTES = 8.0


def check_square_matrix(matrix, app: str = "spmm") -> sp.csr_matrix:
    """A as CSR float64 with sorted int64 indices; InputError unless it is a non-empty square sparse matrix."""
    if not (sp.issparse(matrix) or isinstance(matrix, np.ndarray)):
        raise InputError(f"{app}: expected a sparse matrix, got {type(matrix).__name__}")
    if np.iscomplexobj(matrix.data if sp.issparse(matrix) else matrix):
        raise InputError(f"{app}: complex values are not supported (real or integer matrices only)")
    matrix = sp.csr_matrix(matrix, dtype=np.float64)
    rows, cols = matrix.shape
    if rows != cols:
        raise InputError(f"{app}: A×A needs a square matrix, got {rows} × {cols}")
    if rows == 0:
        raise InputError(f"{app}: the matrix is empty (0 rows)")
    matrix.sum_duplicates()
    matrix.sort_indices()
    matrix.indptr = matrix.indptr.astype(np.int64)
    matrix.indices = matrix.indices.astype(np.int64)
    return matrix


def work_per_row(matrix: sp.csr_matrix) -> np.ndarray:
    """L_AB of A×A: the products of each row (§IV)."""
    out = np.zeros(matrix.shape[0], np.int64)
    row_work(matrix.indptr, matrix.indices, matrix.indptr, out)
    return out


def split_row(work: np.ndarray, percent: float) -> int:
    """The row index i such that rows [0, i) hold the work closest to `percent` % of the total (line 3)."""
    n = work.shape[0]
    if percent >= 100.0:
        return n
    if percent <= 0.0:
        return 0
    prefix = np.concatenate(([0], np.cumsum(work)))
    target = prefix[-1] * percent / 100.0
    i = int(np.searchsorted(prefix, target))
    if i > 0 and (i > n or target - prefix[i - 1] <= prefix[i] - target):
        i -= 1
    return min(i, n)


def gpu_operations(products: np.ndarray) -> int:
    """Lane operations of a GPU giving one row to each thread (a warp waits for its longest row) plus rows."""
    return int(warp_lane_operations(products, WARP)) + int(products.shape[0])


def split_spmm(matrix, threshold: float, platform, *, pair: DevicePair | None = None,
               work: np.ndarray | None = None) -> SplitRun:
    """Algorithm 2 for A×A with the CPU's share `threshold` (percent of the work) on `platform` (or `pair`).

    `work` (optional) is `work_per_row(matrix)` when the caller already has it. Returns a SplitRun whose result
    is A×A as SciPy CSR."""
    matrix = check_square_matrix(matrix)
    r = check_percent(threshold)
    pair = pair or device_pair(platform)
    n = matrix.shape[0]
    work = work_per_row(matrix) if work is None else work
    split = split_row(work, r)
    keep = np.ones(n, np.uint8)
    ptr, idx, val = matrix.indptr, matrix.indices, matrix.data
    args = (ptr, idx, val, ptr, idx, val, n)
    cpu_part, gpu_part, cpu_s, gpu_s, wall = run_both(pair, (GUSTAVSON_KERNELS, args + (0, split, keep)),
                                                      (GUSTAVSON_KERNELS, args + (split, n, keep)),
                                                      entries=n + int(ptr[n]))
    product, merge_s = run_on(pair.cpu, pair.simulated, _stack_rows, cpu_part, gpu_part, n)
    details = {"split_row": split, "cpu_rows": split, "gpu_rows": n - split,
               "cpu_products": int(cpu_part[3].sum()), "gpu_products": int(gpu_part[3].sum())}
    if pair.simulated:
        costs = PartCosts()
        gpu_nnz_in = float(ptr[n] - ptr[split])
        cpu_s = simulated_seconds(pair.cpu, float(cpu_part[3].sum() + split), WORKLOAD, costs=costs)
        gpu_s = simulated_seconds(pair.gpu, float(gpu_operations(gpu_part[3])), WORKLOAD,
                                  bytes_in=(NONZERO_BYTES * (gpu_nnz_in + ptr[n]) + 2 * POINTER_BYTES * n)
                                  if split < n else 0.0,
                                  bytes_out=NONZERO_BYTES * len(gpu_part[1]) + POINTER_BYTES * (n - split),
                                  costs=costs)
        merge_s = simulated_seconds(pair.cpu, float(n - split), WORKLOAD, costs=costs)
        details.update(costs.details())
    return SplitRun(result=product, threshold=r, time_s=max(cpu_s, gpu_s) + merge_s,
                    device_times_s={pair.cpu.name: cpu_s, pair.gpu.name: gpu_s, "merge": merge_s},
                    wall_s=wall, simulated=pair.simulated, details=details)


def _stack_rows(top, bottom, n: int) -> sp.csr_matrix:
    """The CPU's rows followed by the GPU's (each part is (ptr, idx, val, products) from gustavson_rows)."""
    ptr = np.concatenate((top[0], bottom[0][1:] + top[0][-1]))
    return sp.csr_matrix((np.concatenate((top[2], bottom[2])), np.concatenate((top[1], bottom[1])), ptr),
                         shape=(n, n))


def race_spmm(sample: sp.csr_matrix, pair: DevicePair, pieces: int = 16) -> tuple[float, float]:
    """§IV-A.b's race on the sample: both devices compute A'×A' from the first row on, in `pieces` row ranges
    of equal work, starting together; the first to finish stops the other (after its current piece). Returns
    (the CPU's share of the speed in percent, seconds the race took). On a simulated pair the speeds come from
    each device's model time for the whole sample (the race's outcome without running it twice)."""
    import threading

    sample = check_square_matrix(sample)
    if pair.simulated:
        cpu_alone = split_spmm(sample, 100.0, None, pair=pair).time_s
        gpu_alone = split_spmm(sample, 0.0, None, pair=pair).time_s
        total = cpu_alone + gpu_alone
        return (100.0 * gpu_alone / total if total > 0 else 50.0), min(cpu_alone, gpu_alone)
    n = sample.shape[0]
    work = work_per_row(sample)
    bounds = [split_row(work, 100.0 * k / pieces) for k in range(pieces + 1)]
    prefix = np.concatenate(([0], np.cumsum(work)))
    keep = np.ones(n, np.uint8)
    ptr, idx, val = sample.indptr, sample.indices, sample.data
    stop = threading.Event()
    start_together = threading.Barrier(2)
    outcome: dict[str, tuple[float, float]] = {}

    def side(label, device):
        done = used = 0.0
        start_together.wait()
        for k in range(pieces):
            if k > 0 and stop.is_set():  # every side finishes its first piece: a speed needs some work
                break
            lo, hi = bounds[k], bounds[k + 1]
            execution = device.run(GUSTAVSON_KERNELS, ptr, idx, val, ptr, idx, val, n, lo, hi, keep)
            timing = execution.timing
            used += timing.dedicated_s if timing.dedicated_s is not None else timing.total_s
            done += float(prefix[hi] - prefix[lo]) + (hi - lo)
        else:
            stop.set()
        outcome[label] = (done, used)

    import time

    started = time.perf_counter()
    helper = threading.Thread(target=side, args=("gpu", pair.gpu), daemon=True)
    helper.start()
    side("cpu", pair.cpu)
    helper.join()
    seconds = time.perf_counter() - started
    speeds = {label: (done / used if used > 0 else 0.0) for label, (done, used) in outcome.items()}
    total = speeds["cpu"] + speeds["gpu"]
    return (100.0 * speeds["cpu"] / total if total > 0 else 50.0), seconds
