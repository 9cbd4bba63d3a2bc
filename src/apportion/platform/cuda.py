"""CUDADevice: one NVIDIA GPU (seed 000 ch. 3: a GPU "p_g"), real or simulated by numba-cuda.

Two kinds of GPU implementation can sit in a `KernelSet.gpu`:

- a `CudaKernel` (below): a host-side launcher of numba-cuda kernels (`numba.cuda.jit`). The device copies the
  NumPy arguments to the GPU on its own stream, calls `launcher(*device_args, stream=stream)`, synchronises and
  copies the device arrays it returns back. With `NUMBA_ENABLE_CUDASIM=1` numba-cuda's CUDA simulator runs the
  same path on the CPU (copies, launches, the stream, the timing), which is how CI tests GPU code without a GPU.
- a plain callable taking CuPy arrays (the thin library calls: cuBLAS matmul). It needs CuPy and a real GPU.

numba.cuda and CuPy are imported only when a CUDADevice is built or counted (never by `import apportion`);
without a GPU and without the simulator, construction raises UnavailableError (the CLI: one line, exit 2).
Timing: perf_counter around stream synchronisation (CUDA events are not simulated), split into copies in,
launch + compute, copies out.
"""

from __future__ import annotations

import importlib
import os
import time
from typing import Any

import numpy as np

from apportion.errors import UnavailableError
from apportion.platform.device import KIND_GPU, Device, LinkCost, Timing


class CudaKernel:
    """A lazy reference to a numba-cuda launcher `module:attribute` (so that building a KernelSet imports no
    numba.cuda). The launcher takes device arrays (and scalars) plus `stream=` and returns device arrays, NumPy
    arrays, scalars, or tuples of them."""

    def __init__(self, module: str, attribute: str):
        self.module = module
        self.attribute = attribute
        self.__name__ = attribute

    def load(self):
        """The launcher itself (imports its module, which imports numba.cuda)."""
        return getattr(importlib.import_module(self.module), self.attribute)

    def __call__(self, *args, **kwargs):
        return self.load()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"CudaKernel({self.module}:{self.attribute})"


def simulator_enabled() -> bool:
    """True when numba-cuda's CUDA simulator is switched on (NUMBA_ENABLE_CUDASIM=1 before numba was imported)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in ("", "0"):
        return False
    try:
        from numba.core import config
    except Exception:
        return False
    return bool(getattr(config, "ENABLE_CUDASIM", False))


def _numba_cuda():
    """numba.cuda when it imports and sees a GPU (real or simulated), else None."""
    try:
        from numba import cuda

        return cuda if cuda.is_available() else None
    except Exception:  # numba-cuda missing, or a broken driver
        return None


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
    """Number of CUDA devices of this machine: the GPUs numba-cuda sees (the simulated one under
    NUMBA_ENABLE_CUDASIM=1), else those CuPy sees; 0 when there are none. Imports nothing heavy when neither the
    driver shows a GPU nor the simulator is on."""
    if not simulator_enabled() and nvidia_gpus_present() == 0:
        return 0
    cuda = _numba_cuda()
    if cuda is not None:
        return len(cuda.gpus)
    try:
        return int(_cupy().cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def numba_cuda_device_count() -> int:
    """GPUs that numba-cuda itself sees (the simulated one under NUMBA_ENABLE_CUDASIM=1): what the numba-cuda
    paths that run outside a CUDADevice (the GPU partitioner) need; 0 without numba-cuda or a GPU, even where
    CuPy sees one."""
    if not simulator_enabled() and nvidia_gpus_present() == 0:
        return 0
    cuda = _numba_cuda()
    return 0 if cuda is None else len(cuda.gpus)


class CUDADevice(Device):
    """CUDA device number `index`: runs `KernelSet.gpu` (a CudaKernel through numba-cuda, else a CuPy callable)."""

    def __init__(self, index: int = 0, name: str | None = None):
        count = cuda_device_count()
        if count == 0:
            raise UnavailableError("no CUDA device: no NVIDIA GPU with numba-cuda or CuPy, and the CUDA simulator "
                                   "is off (NUMBA_ENABLE_CUDASIM=1 turns it on)")
        if not 0 <= index < count:
            raise UnavailableError(f"CUDA device {index} does not exist ({count} CUDA device(s) found)")
        self.on_simulator = simulator_enabled()
        self._cuda = _numba_cuda()
        gpu_name, peak = "CUDA simulator", None
        if self._cuda is not None and not self.on_simulator:
            with self._cuda.gpus[index]:
                device = self._cuda.get_current_device()
                gpu_name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
                try:  # nominal FP32 peak: SMs x 128 cores x 2 FLOPs per clock (no per-architecture core table)
                    peak = 2.0 * device.MULTIPROCESSOR_COUNT * 128 * device.CLOCK_RATE * 1e3
                except Exception:  # an attribute this driver does not report: the peak stays unknown
                    peak = None
        super().__init__(name=name or f"cuda{index}", kind=KIND_GPU, implementation=KIND_GPU, bundles=True,
                         peak_flops=peak, link=LinkCost(latency_s=10e-6, bandwidth_Bps=12e9))
        self.index = index
        self.gpu_name = gpu_name

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        kernel = self.select(kernels)
        if isinstance(kernel, CudaKernel):
            return self._execute_numba(kernel.load(), args)
        return self._execute_cupy(kernel, args)

    def _execute_numba(self, launcher, args) -> tuple[Any, Timing]:
        cuda = self._cuda
        if cuda is None:
            raise UnavailableError(f"device {self.name}: numba-cuda sees no CUDA device")
        with cuda.gpus[self.index]:
            stream = cuda.stream()
            t0 = time.perf_counter()
            device_args = [cuda.to_device(np.ascontiguousarray(a), stream=stream) if isinstance(a, np.ndarray)
                           else a for a in args]
            stream.synchronize()
            t1 = time.perf_counter()
            result = launcher(*device_args, stream=stream)
            stream.synchronize()
            t2 = time.perf_counter()
            host = _numba_to_host(cuda, result, stream)
            stream.synchronize()
            t3 = time.perf_counter()
        return host, Timing(transfer_s=(t1 - t0) + (t3 - t2), compute_s=t2 - t1, transfer_in_s=t1 - t0)

    def _execute_cupy(self, kernel, args) -> tuple[Any, Timing]:
        if self.on_simulator:
            raise UnavailableError(f"device {self.name}: the CUDA simulator cannot run CuPy library calls "
                                   f"({getattr(kernel, '__name__', 'kernel')}); they need a real GPU")
        cupy = _cupy()
        with cupy.cuda.Device(self.index):
            t0 = time.perf_counter()
            device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            cupy.cuda.Stream.null.synchronize()
            t1 = time.perf_counter()
            result = kernel(*device_args)
            cupy.cuda.Stream.null.synchronize()
            t2 = time.perf_counter()
            host = _cupy_to_host(cupy, result)
            t3 = time.perf_counter()
        return host, Timing(transfer_s=(t1 - t0) + (t3 - t2), compute_s=t2 - t1, transfer_in_s=t1 - t0)

    def describe(self) -> dict:
        return {**super().describe(), "index": self.index, "gpu": self.gpu_name, "simulator": self.on_simulator}

    def __getstate__(self) -> dict:
        # a Ray actor receives the device by pickle: the numba.cuda module is looked up again on arrival
        state = dict(self.__dict__)
        state["_cuda"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._cuda = _numba_cuda()


def _numba_to_host(cuda, value, stream):
    if hasattr(value, "copy_to_host"):  # a device array (real or simulated)
        return value.copy_to_host(stream=stream)
    if isinstance(value, tuple):
        return tuple(_numba_to_host(cuda, v, stream) for v in value)
    if isinstance(value, list):
        return [_numba_to_host(cuda, v, stream) for v in value]
    return value


def _cupy_to_host(cupy, value):
    if isinstance(value, cupy.ndarray):
        return cupy.asnumpy(value)
    if isinstance(value, tuple):
        return tuple(_cupy_to_host(cupy, v) for v in value)
    if isinstance(value, list):
        return [_cupy_to_host(cupy, v) for v in value]
    return value
