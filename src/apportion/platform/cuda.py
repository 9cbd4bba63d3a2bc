"""CUDADevice: one NVIDIA GPU driven through CuPy (seed 000 ch. 3: a GPU "p_g").

CuPy is imported only when a CUDADevice is built; without CuPy or without a GPU, construction raises
UnavailableError (the CLI turns that into exit status 2). A run copies NumPy array arguments to the GPU (timed as
transfer), calls the kernel set's `gpu` implementation with CuPy arrays (timed as launch + compute, synchronised),
and copies CuPy results back (transfer). Bundled work is one transfer each way and one launch.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from apportion.errors import UnavailableError
from apportion.platform.device import KIND_GPU, Device, LinkCost, Timing


def _cupy():
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or CUDA libraries missing
        raise UnavailableError(f"CUDA device needs CuPy and a GPU: {exc}") from None
    return cupy


def cupy_available() -> bool:
    """True when CuPy imports (with its CUDA libraries)."""
    try:
        _cupy()
    except UnavailableError:
        return False
    return True


def nvidia_gpus_present() -> int:
    """NVIDIA GPUs the driver shows (/proc/driver/nvidia/gpus), whether or not CuPy can use them."""
    try:
        return sum(1 for _ in os.scandir("/proc/driver/nvidia/gpus"))
    except OSError:
        return 0


def cuda_device_count() -> int:
    """Number of CUDA GPUs CuPy sees (0 when CuPy or a driver is missing)."""
    try:
        cupy = _cupy()
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


class CUDADevice(Device):
    """GPU number `index`; runs `KernelSet.gpu` with CuPy arrays."""

    def __init__(self, index: int = 0, name: str | None = None):
        cupy = _cupy()
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            raise UnavailableError(f"no usable CUDA GPU: {exc}") from None
        if not 0 <= index < count:
            raise UnavailableError(f"CUDA device {index} does not exist ({count} GPU(s) found)")
        props = cupy.cuda.runtime.getDeviceProperties(index)
        gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        # nominal FP32 peak: 2 FLOPs per core per clock is unknown without a core table; use SMs x 128 cores
        peak = 2.0 * props["multiProcessorCount"] * 128 * props["clockRate"] * 1e3
        super().__init__(name=name or f"cuda{index}", kind=KIND_GPU, implementation=KIND_GPU, bundles=True,
                         peak_flops=peak, link=LinkCost(latency_s=10e-6, bandwidth_Bps=12e9))
        self.index = index
        self.gpu_name = gpu_name
        self._cupy = cupy

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        cupy = self._cupy
        kernel = self.select(kernels)
        with cupy.cuda.Device(self.index):
            t0 = time.perf_counter()
            device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            cupy.cuda.Stream.null.synchronize()
            t1 = time.perf_counter()
            result = kernel(*device_args)
            cupy.cuda.Stream.null.synchronize()
            t2 = time.perf_counter()
            host = _to_host(cupy, result)
            t3 = time.perf_counter()
        return host, Timing(transfer_s=(t1 - t0) + (t3 - t2), compute_s=t2 - t1, transfer_in_s=t1 - t0)

    def describe(self) -> dict:
        return {**super().describe(), "index": self.index, "gpu": self.gpu_name}


def _to_host(cupy, value):
    if isinstance(value, cupy.ndarray):
        return cupy.asnumpy(value)
    if isinstance(value, tuple):
        return tuple(_to_host(cupy, v) for v in value)
    if isinstance(value, list):
        return [_to_host(cupy, v) for v in value]
    return value
