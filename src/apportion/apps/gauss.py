"""Gaussian elimination with partial pivoting over heterogeneous devices (seed 002 §5.5, §6.7).

The matrix is partitioned into rectangles like the heat grid. Each elimination step k has the dynamic step of
Algorithm 5-2 — gather column k from its owners, pick the pivot (largest |a_ik|, first on ties), swap rows k and
pivot across every block, broadcast the pivot row and the multipliers — then every device updates its blocks in
parallel (Numba kernel). The packed LU and row permutation equal the NumPy reference `lu_reference`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from apportion.apps._gauss_kernels import eliminate_block, lu_reference
from apportion.apps.heat import speed_models
from apportion.apps.stencil_ray import RayGaussRuntime
from apportion.apps.stencil_runtime import StencilTrace
from apportion.apps.stencil_simulated import DEFAULT_RESIDENT_POINTS, stencil_devices
from apportion.errors import InputError
from apportion.partitioning.grid.balance import BalancedGrid, balance_grid
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet, Work
from apportion.ui import track

# a CUDA device runs the numba-cuda twin of eliminate_block (apps/_gauss_cuda.py)
GAUSS_KERNELS = KernelSet(cpu=eliminate_block, gpu=CudaKernel("apportion.apps._gauss_cuda", "eliminate_block_cuda"),
                          name="eliminate_block")
#: one multiply-subtract per updated element and elimination step
GAUSS_FLOPS_PER_POINT = 2.0


def _gauss_with_messages(block, row0, col0, k, multipliers, pivot_row, send, receive):
    receive[:] = send  # the pivot row and multipliers this device receives: c items
    return eliminate_block(block, row0, col0, k, multipliers, pivot_row)


GAUSS_BENCH_KERNELS = KernelSet(cpu=_gauss_with_messages,
                                gpu=CudaKernel("apportion.apps._gauss_cuda", "gauss_with_messages_cuda"),
                                name="gauss_bench")
_BENCH_BLOCKS: dict = {}


def benchmark_case(w: int, c: int):
    """One elimination step over a block of w points receiving c items (pivot-row and multiplier values):
    (kernels, args, Work) for `perfmodel.bench`, so FPM/FPMC tables for Gaussian elimination time the
    elimination kernel (`eliminate_block` with k = −1: every element of the block is updated), not heat's.

    The block is √w × ⌈w/√w⌉; the multipliers are tiny so that repeated timed runs keep the values finite."""
    side = max(1, int(np.sqrt(w)))
    height, width = side, max(1, -(-w // side))
    if w not in _BENCH_BLOCKS:
        _BENCH_BLOCKS.clear()
        rng = np.random.default_rng(0)
        _BENCH_BLOCKS[w] = (rng.standard_normal((height, width)), np.full(height, 1e-12), rng.standard_normal(width))
    block, multipliers, pivot_row = _BENCH_BLOCKS[w]
    args = (block, 0, 0, -1, multipliers, pivot_row, np.ones(max(c, 0)), np.empty(max(c, 0)))
    work = Work(flops=GAUSS_FLOPS_PER_POINT * w, bytes_in=8.0 * c, bytes_out=8.0 * c, workload="gauss")
    return GAUSS_BENCH_KERNELS, args, work


@dataclass
class GaussResult:
    lu: np.ndarray | None
    permutation: np.ndarray | None
    trace: StencilTrace
    plan: BalancedGrid

    def to_dict(self) -> dict:
        return {"application": "gauss", "model": self.plan.model, "method": self.plan.rectangles.method,
                "predicted_imbalance": self.plan.imbalance, "areas": self.plan.rectangles.areas().tolist(),
                "rectangles": self.plan.rectangles.to_dict()["rectangles"], **self.trace.to_dict()}


def random_matrix(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, n))


def run_gauss(n: int, devices, *, model: str = "cpm", method: str = "nphp", tables=None,
              matrix: np.ndarray | None = None, seed: int = 0, steps: int | None = None,
              cluster: str | None = None, ray_local_cpus: int | None = None, options=None,
              resident_points: int | dict | None = DEFAULT_RESIDENT_POINTS) -> GaussResult:
    """LU-factorise an n × n matrix (random normal by `seed` unless `matrix` is given) with partial pivoting on
    `devices`; `steps` limits the elimination steps (default n − 1). Simulated platforms compute the values
    with the CPU kernel and report their model's times. `cluster` (a Ray address, or "local" for a local Ray
    instance of `ray_local_cpus` CPUs) runs each device as a Ray actor holding its blocks
    (`apportion.apps.stencil_ray.RayGaussRuntime`); otherwise one thread per device.

    FPM/FPMC tables benchmarked now (no `tables` given) time the elimination kernel (`benchmark_case`, with
    `options`, a `BenchOptions`); simulated GPUs are modelled at the elimination's scale
    (`stencil_simulated.stencil_devices` with `resident_points`; None keeps the platform's models as shipped)."""
    devices = stencil_devices(list(devices), GAUSS_FLOPS_PER_POINT, resident_points=resident_points)
    a = random_matrix(n, seed) if matrix is None else np.array(matrix, dtype=np.float64)
    if a.shape != (n, n):
        raise InputError(f"matrix must be {n} × {n}, got {a.shape}")
    models = speed_models(devices, model, tables, n=n * n, options=options, case=benchmark_case, workload="gauss",
                          flops_per_point=GAUSS_FLOPS_PER_POINT)
    plan = balance_grid(n, n, models, model=model, method=method)
    rect = plan.rectangles
    simulated = bool(getattr(devices[0], "is_simulated", False))
    blocks = [(int(rect.owner[j]), int(rect.row[j]), int(rect.col[j]),
               a[rect.row[j]:rect.row[j] + rect.height[j], rect.col[j]:rect.col[j] + rect.width[j]].copy())
              for j in range(rect.pieces)]
    total = n - 1 if steps is None else max(0, min(int(steps), n - 1))
    if cluster is not None:
        ray_runtime = RayGaussRuntime(devices, rect, a, address=None if cluster == "local" else cluster,
                                      local_cpus=ray_local_cpus)
        try:
            trace, perm = ray_runtime.run(GAUSS_KERNELS, total)
            lu = ray_runtime.values()
        finally:
            ray_runtime.close()
        return GaussResult(lu, perm, trace, plan)
    p = rect.p
    by_device = [[b for b in blocks if b[0] == i] for i in range(p)]
    compute = np.zeros((total, p))
    communication = np.zeros((total, p))
    perm = np.arange(n)
    halo = np.zeros(p, dtype=np.int64)

    def read_row(r: int) -> np.ndarray:
        row = np.empty(n)
        for _, r0, c0, blk in blocks:
            if r0 <= r < r0 + blk.shape[0]:
                row[c0:c0 + blk.shape[1]] = blk[r - r0]
        return row

    def write_row(r: int, row: np.ndarray) -> None:
        for _, r0, c0, blk in blocks:
            if r0 <= r < r0 + blk.shape[0]:
                blk[r - r0] = row[c0:c0 + blk.shape[1]]

    def update(i: int, k: int, multipliers, pivot_row) -> float:
        seconds = 0.0
        for _, r0, c0, blk in by_device[i]:
            if simulated:
                eliminate_block(blk, r0, c0, k, multipliers, pivot_row)
            else:
                done = devices[i].run(GAUSS_KERNELS, blk, r0, c0, k, multipliers, pivot_row)
                if done.result is not blk:  # a GPU updated its copy of the block: bring the values back
                    blk[...] = done.result
                seconds += done.timing.total_s
        return seconds

    pool = None if simulated else ThreadPoolExecutor(max_workers=p)
    wall = time.perf_counter()
    try:
        for k in track(range(total), "elimination steps"):
            start = time.perf_counter()
            column = np.empty(n)  # gather column k (the dynamic step)
            for _, r0, c0, blk in blocks:
                if c0 <= k < c0 + blk.shape[1]:
                    column[r0:r0 + blk.shape[0]] = blk[:, k - c0]
            pivot = k + int(np.argmax(np.abs(column[k:])))
            if pivot != k:
                row_k, row_p = read_row(k), read_row(pivot)
                write_row(k, row_p)
                write_row(pivot, row_k)
                column[[k, pivot]] = column[[pivot, k]]
                perm[[k, pivot]] = perm[[pivot, k]]
            pivot_row = read_row(k)
            multipliers = np.zeros(n)
            if pivot_row[k] != 0:
                multipliers[k + 1:] = column[k + 1:] / pivot_row[k]
            dynamic = time.perf_counter() - start
            # what each device receives: its columns of the pivot row and its rows of the multipliers
            items = np.zeros(p)
            for owner, r0, c0, blk in blocks:
                items[owner] += max(0, c0 + blk.shape[1] - max(c0, k + 1)) + max(0, r0 + blk.shape[0] - max(r0, k + 1))
            halo = np.maximum(halo, items.astype(np.int64))
            if simulated:
                for i, device in enumerate(devices):
                    active = sum(max(0, blk.shape[0] - max(0, k + 1 - r0)) * max(0, blk.shape[1] - max(0, k + 1 - c0))
                                 for _, r0, c0, blk in by_device[i])
                    compute[k, i] = device.estimate(Work(flops=GAUSS_FLOPS_PER_POINT * active,
                                                         workload="gauss")).total_s
                    link = device.link
                    communication[k, i] = 0.0 if link is None else 2 * link.transfer_time(8.0 * items[i])
                    update(i, k, multipliers, pivot_row)
            else:
                communication[k, :] = dynamic
                compute[k] = list(pool.map(lambda i: update(i, k, multipliers, pivot_row), range(p)))
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    lu = np.empty((n, n))
    for _, r0, c0, blk in blocks:
        lu[r0:r0 + blk.shape[0], c0:c0 + blk.shape[1]] = blk
    trace = StencilTrace([d.name for d in devices], compute, communication, halo,
                         wall_s=time.perf_counter() - wall, simulated=simulated)
    return GaussResult(lu, perm, trace, plan)


__all__ = ["run_gauss", "lu_reference", "random_matrix", "benchmark_case", "GaussResult"]
