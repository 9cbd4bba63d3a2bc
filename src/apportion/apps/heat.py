"""Explicit 2-D heat transfer over heterogeneous devices (seed 002 ch. 5–6).

The grid is partitioned into rectangles (NPHP by default) sized by a performance model (CPM, FPM or FPMC), each
device owns its rectangles with a ghost ring, and every iteration exchanges halos then applies the 5-point
update u ← u + r·(N + S + W + E − 4u) with a fixed value outside the grid. The result equals the single-device
reference `heat_reference` (up to floating-point rounding: the same operations in the same order, so in practice
bit-identical).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.apps._heat_kernels import heat_step, heat_steps_numpy, heat_steps_reference
from apportion.apps.stencil_runtime import StencilRuntime, StencilTrace
from apportion.apps.stencil_ray import RayStencilRuntime
from apportion.apps.stencil_simulated import DEFAULT_RESIDENT_POINTS, stencil_devices
from apportion.errors import InputError
from apportion.partitioning.grid.balance import MODELS, BalancedGrid, balance_grid
from apportion.perfmodel.bench import build_tables, workload_grid
from apportion.perfmodel.models import ConstantSpeed
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet, Work

HEAT_FLOPS_PER_POINT = 6.0
# a CUDA device runs the numba-cuda twin of heat_step (apps/_heat_cuda.py)
HEAT_KERNELS = KernelSet(cpu=heat_step, gpu=CudaKernel("apportion.apps._heat_cuda", "heat_step_cuda"), name="heat_step")
BENCH_SIZES = (1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22)
BENCH_COMMS = (0, 1 << 8, 1 << 10, 1 << 12, 1 << 14)


def _heat_with_halo(current, out, r, send, receive):
    receive[:] = send  # the halo exchange's copy of c items
    return heat_step(current, out, r)


HEAT_BENCH_KERNELS = KernelSet(cpu=_heat_with_halo, gpu=CudaKernel("apportion.apps._heat_cuda", "heat_with_halo_cuda"),
                               name="heat_bench")
_BENCH_BLOCKS: dict = {}


def benchmark_case(w: int, c: int):
    """One heat iteration of w points exchanging c items: (kernels, args, Work) for `perfmodel.bench`.

    The block is √w × ⌈w/√w⌉ with its ghost ring; the arrays of the last workload are reused across its
    communication sizes (allocating 10⁷-point arrays per table point would dominate the benchmark)."""
    side = max(1, int(np.sqrt(w)))
    height, width = side, max(1, -(-w // side))
    if w not in _BENCH_BLOCKS:
        _BENCH_BLOCKS.clear()
        current = np.random.default_rng(0).random((height + 2, width + 2))
        _BENCH_BLOCKS[w] = (current, np.empty((height, width)))
    current, out = _BENCH_BLOCKS[w]
    args = (current, out, 0.2, np.ones(max(c, 0)), np.empty(max(c, 0)))
    work = Work(flops=HEAT_FLOPS_PER_POINT * w, bytes_in=8.0 * c, bytes_out=8.0 * c, workload="heat")
    return HEAT_BENCH_KERNELS, args, work


def device_speed(device, workload: str = "heat", flops_per_point: float = HEAT_FLOPS_PER_POINT) -> float:
    """A device's constant speed for CPM, in grid points per second of `workload` (`flops_per_point` FLOPs a
    point): a simulated device's sustained FLOP/s for that workload, a throttled device's inner speed divided by
    its factor, otherwise its (measured, see `apportion.platform.calibrate`) FLOP/s, else its thread count."""
    model = getattr(device, "model", None)
    if model is not None and hasattr(model, "sustained_flops"):
        return float(model.sustained_flops(workload)) / flops_per_point
    factor = getattr(device, "factor", None)
    if factor is not None:
        return device_speed(device.inner, workload, flops_per_point) / float(factor)
    if device.peak_flops:
        return float(device.peak_flops) / flops_per_point
    return float(getattr(device, "threads", 1))


def speed_models(devices, model: str, tables=None, *, sizes=None, comms=None, options=None,
                 repeats: int | None = None, n: int | None = None, case=None, workload: str = "heat",
                 flops_per_point: float = HEAT_FLOPS_PER_POINT):
    """One speed model per device: constants for CPM, else the given tables or tables benchmarked now
    (`perfmodel.bench.build_tables`, interleaved over the devices, with `options`, a `BenchOptions`; the
    default preset when None). The (w, c) grid: `sizes`/`comms` when given, else `workload_grid(n, p)` for a
    problem of `n` points, else BENCH_SIZES × BENCH_COMMS.

    `case` is the application's benchmark case (`benchmark_case(w, c)`, heat's by default; Gaussian elimination
    passes its own, so its tables time the elimination kernel), `workload`/`flops_per_point` what CPM's
    constants are for."""
    devices = list(devices)
    case = benchmark_case if case is None else case
    if model not in MODELS:  # before any benchmarking
        raise InputError(f"unknown performance model {model!r}; choose one of {', '.join(MODELS)}")
    if tables is not None:
        tables = list(tables)
        if len(tables) != len(devices):
            raise InputError(f"{len(tables)} speed tables for {len(devices)} devices")
        return tables
    if model == "cpm":
        return [ConstantSpeed(device_speed(d, workload, flops_per_point)) for d in devices]
    if sizes is None or comms is None:
        grid_sizes, grid_comms = workload_grid(n, len(devices)) if n else (BENCH_SIZES, BENCH_COMMS)
        sizes = grid_sizes if sizes is None else sizes
        comms = grid_comms if comms is None else comms
    return build_tables(devices, case, sizes, comms, options=options, repeats=repeats, kernel=workload)


@dataclass
class HeatResult:
    """Final grid values (None when only simulated timings were asked for), the trace and the partition."""

    values: np.ndarray | None
    trace: StencilTrace
    plan: BalancedGrid

    def to_dict(self) -> dict:
        return {"application": "heat", "model": self.plan.model, "method": self.plan.rectangles.method,
                "predicted_imbalance": self.plan.imbalance, "areas": self.plan.rectangles.areas().tolist(),
                "rectangles": self.plan.rectangles.to_dict()["rectangles"], **self.trace.to_dict()}


def initial_condition(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    """A reproducible starting temperature field (uniform random in [0, 1))."""
    return np.random.default_rng(seed).random((rows, cols))


def run_heat(rows: int, cols: int, steps: int, devices, *, model: str = "cpm", method: str = "nphp",
             r: float = 0.2, boundary: float = 0.0, tables=None, values: np.ndarray | None = None, seed: int = 0,
             compute_values: bool = True, clock: str = "wall", item_bytes: int = 8,
             bench_options=None, cluster: str | None = None, ray_local_cpus: int | None = None,
             resident_points: int | dict | None = DEFAULT_RESIDENT_POINTS) -> HeatResult:
    """Run `steps` explicit heat steps of a rows × cols grid on `devices` (a Platform or a list of devices).

    The partition comes from `balance_grid(rows, cols, speed_models(devices, model, tables), model, method)`.
    For simulated devices, `compute_values=False` skips the arithmetic and reports the model's times only.
    `clock` ("wall" or "cpu", see `apportion.perfmodel.clock`) times the trace; `item_bytes` is the size of a
    halo value a simulated link is charged for (8: float64, as computed; the dissertation's runs used 4);
    `bench_options` (a `BenchOptions`) measures the tables when FPM/FPMC needs them and none are given.
    `cluster` (a Ray address, or "local" for a local Ray instance of `ray_local_cpus` CPUs) runs each device as
    a Ray actor holding its blocks (`apportion.apps.stencil_ray`); otherwise one thread per device.
    Simulated GPUs are modelled at the heat step's scale (`stencil_simulated.stencil_devices` with
    `resident_points`; None keeps the platform's models as shipped), for the plan and for the timings alike.
    """
    devices = stencil_devices(list(devices), HEAT_FLOPS_PER_POINT, resident_points=resident_points)
    if steps < 0:
        raise InputError(f"steps must be ≥ 0, got {steps}")
    if not 0 < r <= 0.25:
        raise InputError(f"r must be in (0, 0.25] for a stable explicit step, got {r}")
    plan = balance_grid(rows, cols, speed_models(devices, model, tables, n=rows * cols, options=bench_options),
                        model=model, method=method)
    u0 = initial_condition(rows, cols, seed) if values is None else np.asarray(values, dtype=np.float64)
    if u0.shape != (rows, cols):
        raise InputError(f"initial values have shape {u0.shape}, expected {(rows, cols)}")
    if cluster is not None:
        ray_runtime = RayStencilRuntime(devices, plan.rectangles, u0, boundary,
                                        address=None if cluster == "local" else cluster, local_cpus=ray_local_cpus)
        try:
            trace = ray_runtime.run(HEAT_KERNELS, (r,), steps)
            out = ray_runtime.values()
        finally:
            ray_runtime.close()
        return HeatResult(out, trace, plan)
    runtime = StencilRuntime(devices, plan.rectangles, u0 if compute_values else np.empty((0, 0)), boundary,
                             compute_values=compute_values, clock=clock, item_bytes=item_bytes)
    areas = plan.rectangles.areas()
    try:
        trace = runtime.run(HEAT_KERNELS, lambda b: (b.data, b.scratch, r), steps,
                            work_of=lambda i: Work(flops=HEAT_FLOPS_PER_POINT * areas[i], workload="heat"))
        out = runtime.values() if runtime.compute_values else None
    finally:
        runtime.close()
    return HeatResult(out, trace, plan)


def heat_reference(values: np.ndarray, steps: int, r: float = 0.2, boundary: float = 0.0) -> np.ndarray:
    """Single-device reference (Numba, whole grid)."""
    return heat_steps_reference(np.asarray(values, dtype=np.float64), float(boundary), float(r), int(steps))


__all__ = ["run_heat", "heat_reference", "heat_steps_numpy", "benchmark_case", "speed_models", "HeatResult"]
