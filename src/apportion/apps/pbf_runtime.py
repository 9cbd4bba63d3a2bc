"""Predicate-based filtering on the asynchronous runtime (seed 003 §3, Figs. 5-6, §5.1.4; Groute's PBF).

`pbf(values, low, high, devices=2)` keeps the elements with low <= v < high, in input order: the host cuts the
array into segments and a router with the any-device policy hands each to whichever device is free
(`runtime.scatter`), so a faster device takes more segments; a device that dies has its segments redone by the
others. On threads (default) or one Ray actor per device (`transport="ray"`), the same code for both. Returns a
`RunResult` like the graph apps. The kernel is the scheduler workload's
(`apps/pbf.py`, `_pbf_kernels.filter_range`); the reference is `apps.pbf.pbf_reference`.
"""

from __future__ import annotations

import math
import time

import numpy as np

from apportion.apps._pbf_kernels import filter_range
from apportion.errors import InputError
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet
from apportion.runtime.distributed_worklist import RunResult, resolve_devices
from apportion.runtime.scatter import scatter

#: elements per segment handed out
DEFAULT_SEGMENT = 1 << 16


def _check_values(values) -> np.ndarray:
    """`values` as a contiguous 1-D array of integers or floats (InputError otherwise)."""
    try:
        array = np.ascontiguousarray(values)
    except (TypeError, ValueError):
        raise InputError("pbf: values must be a one-dimensional array of numbers") from None
    if array.ndim != 1:
        raise InputError(f"pbf: values must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind not in "iuf" or array.dtype == np.float16 or array.dtype.itemsize > 8:
        raise InputError(f"pbf: values must be integers or floats of 32 or 64 bits (or integers of 8 or 16), got "
                         f"dtype {array.dtype}")  # the compiled filter has no half or extended floats
    return array


def _check_bound(bound, name: str) -> float | int:
    if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, (int, float, np.integer, np.floating)):
        raise InputError(f"pbf: {name} must be a number, got {bound!r}")
    if isinstance(bound, (float, np.floating)) and math.isnan(bound):
        raise InputError(f"pbf: {name} must not be NaN")
    return bound


def kernel_bounds(dtype: np.dtype, low, high) -> tuple:
    """The (low, high) the kernel compares elements of `dtype` with, so that it keeps exactly the elements the
    reference keeps: floats compare in their own precision (NumPy's rule for a Python number beside a float
    array); integers keep exactly low <= v < high for any real bounds (ceil of each, clamped to the type's range;
    an upper bound above the range becomes inf, which every integer is below)."""
    low, high = _check_bound(low, "low"), _check_bound(high, "high")
    if dtype.kind == "f":
        with np.errstate(over="ignore"):  # a bound beyond float32's range is ±inf in float32
            return dtype.type(low), dtype.type(high)
    info = np.iinfo(dtype)
    nothing = (dtype.type(0), dtype.type(0))  # v >= 0 and v < 0: keeps nothing
    lo = info.min if low == -math.inf else (None if low == math.inf else math.ceil(low))
    hi = None if high == math.inf else (info.min if high == -math.inf else math.ceil(high))
    if lo is None or lo > info.max or (hi is not None and (hi <= info.min or hi <= lo)):
        return nothing
    lo = dtype.type(max(lo, info.min))
    return lo, (np.float64(np.inf) if hi is None or hi > info.max else dtype.type(hi))


def _filter_segment(low, high, segment: np.ndarray) -> np.ndarray:
    """One device's work on one segment: its elements with low <= v < high, in order."""
    kept, _ = filter_range(segment, np.array([segment.shape[0]], dtype=np.int64), low, high)
    return kept


# a CUDA device filters a segment with the numba-cuda stream compaction (apps/_pbf_cuda.py)
SEGMENT_KERNELS = KernelSet(cpu=_filter_segment, gpu=CudaKernel("apportion.apps._pbf_cuda", "filter_segment_cuda"),
                            name="pbf_segment")


def pbf(values, low, high, *, devices=2, transport: str = "threads", segment: int = DEFAULT_SEGMENT,
        cluster: str | None = None) -> RunResult:
    """The elements of `values` with low <= v < high, in input order, filtered by `devices` devices.

    The array is cut into segments of `segment` elements; each goes to whichever device is free first
    (`runtime.scatter`), so a faster device processes more segments; a device that dies (DeviceFailure) has the
    segments it held or had done redone by the survivors, and the result stays exact.

    Args:
        values: a 1-D array of integers or floats (NaN is never kept).
        low, high: the bounds (real numbers, not NaN; ±inf allowed); floats compare in the array's precision.
        devices: a count of one-thread CPU devices, a list of `apportion.platform` devices, or a platform.
        transport: "threads" (one worker thread per device, default) or "ray" (one Ray actor per device).
        segment: elements per segment (>= 1).
        cluster: with transport="ray", the Ray cluster's address (else RAY_ADDRESS, else a local cluster).

    Returns a RunResult: `values` the kept elements (the input's dtype), `work_items` elements compared (redone
    segments included), `messages` / `bytes_moved` segments and their bytes through the router, `per_device`
    elements and `segments` segments each device processed, `trace` each device's busy (compute), waiting
    (idle) and failed time, `failures`, `placement` None. Equal to `pbf_reference`.
    Raises InputError for bad values, bounds, segment, devices or transport; DeviceFailure when every device died.
    """
    array = _check_values(values)
    lo, hi = kernel_bounds(array.dtype, low, high)
    if transport not in ("threads", "ray"):
        raise InputError(f"unknown transport {transport!r} for PBF; choose threads or ray")
    if isinstance(segment, (bool, np.bool_)) or not isinstance(segment, (int, np.integer)) or segment < 1:
        raise InputError(f"segment must be an integer >= 1 (elements), got {segment!r}")
    segment = int(segment)
    device_list = resolve_devices(devices)
    filter_range(array[:1], np.array([min(1, array.shape[0])], dtype=np.int64), lo, hi)  # compile outside the run
    started = time.perf_counter()
    messages = [(array[s:s + segment],) for s in range(0, array.shape[0], segment)]
    parts: list[dict] = [{} for _ in device_list]
    base = array.ctypes.data

    def collect(device: int, arrays: tuple, kept: np.ndarray) -> None:
        # `arrays` are the host's own segment (a view of its array, on either transport), so its address names it
        parts[device][(arrays[0].ctypes.data - base) // array.itemsize] = kept

    run = scatter(messages, device_list, SEGMENT_KERNELS, [(lo, hi)] * len(device_list), collect=collect,
                  transport=transport, cluster=cluster)
    found: dict = {}
    for index, device_parts in enumerate(parts):
        if index not in run.failed:  # a dead device's segments were redone by the others
            found.update(device_parts)
    kept = [found[offset] for offset in range(0, array.shape[0], segment)]
    result = np.concatenate(kept) if kept else array[:0].copy()
    elapsed = time.perf_counter() - started
    run.trace.fill_idle(0, 0.0, run.time_s)
    return RunResult(values=result, time_s=elapsed, work_items=sum(run.items), messages=run.messages,
                     bytes_moved=run.bytes_moved, trace=run.trace, placement=None,
                     devices=[d.name for d in device_list], per_device=run.items, segments=run.segments,
                     routing="any", transport=transport, failures=run.failures)
