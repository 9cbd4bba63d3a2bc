"""CPUDevice: host cores running Numba kernels (seed 000 ch. 3: the CPU "p_c").

Numba kernels compiled with `nogil=True` release the GIL, so several devices (one Python thread each) compute at
the same time in one process. `threads` > 1 uses the kernel set's `cpu_parallel` variant (a Numba
`parallel=True` kernel) with `numba.set_num_threads(threads)`, which is local to the calling thread; without such
a variant the serial CPU kernel runs. A serial kernel runs in the calling thread and nowhere else (no Numba
thread pool), so its thread CPU time is the run's `Timing.dedicated_s`: the time it would take on a core of its
own, whatever other processes do to the wall clock.

Its speed (`peak_flops`) is measured, not assumed: `threads` × one thread's FLOP/s on the calibration kernel,
measured once per machine and cached (`apportion.platform.calibrate`), on first use — a device whose speed
nobody asks for never measures. A figure given to the constructor (or in a platform file) wins.
"""

from __future__ import annotations

import os
import time
from typing import Any

from apportion.checks import check_threads
from apportion.platform.calibrate import thread_flops
from apportion.platform.device import KIND_CPU, Device, KernelSet, Timing


class CPUDevice(Device):
    """`threads` host cores as one device. Runs `KernelSet.cpu` (or `cpu_parallel` when threads > 1).

    `peak_flops`: FLOP/s to credit the device with; None (default) measures it (module docstring)."""

    def __init__(self, threads: int = 1, name: str | None = None, peak_flops: float | None = None):
        threads = check_threads(threads, name=f"CPUDevice {name or 'cpu'}: threads")
        self.threads = threads
        self.speed_source = "measured" if peak_flops is None else "given"
        super().__init__(name=name or f"cpu{threads}", kind=KIND_CPU, implementation=KIND_CPU, bundles=False,
                         peak_flops=peak_flops)

    @property
    def peak_flops(self) -> float:
        """FLOP/s of this device: the given figure, else `threads` × this machine's measured thread speed."""
        if self._peak_flops is None:
            self._peak_flops = self.threads * thread_flops()
        return self._peak_flops

    @peak_flops.setter
    def peak_flops(self, value: float | None) -> None:
        self._peak_flops = None if value is None else float(value)

    def select(self, kernels):
        kernel_set = KernelSet.coerce(kernels)
        if self.threads > 1 and kernel_set.cpu_parallel is not None:
            return kernel_set.cpu_parallel
        return kernel_set.cpu

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        kernel = self.select(kernels)
        serial = kernel is KernelSet.coerce(kernels).cpu
        if not serial:
            import numba

            numba.set_num_threads(self.threads)  # ≤ the pool size: checked in __init__
        cpu_start = time.thread_time()
        start = time.perf_counter()
        result = kernel(*args)
        wall = time.perf_counter() - start
        cpu = time.thread_time() - cpu_start
        # a serial kernel cannot use more than this thread: its CPU time (capped by the wall time) is what it
        # costs on a dedicated core; a parallel kernel's other threads are invisible here
        return result, Timing(compute_s=wall, dedicated_s=min(cpu, wall) if serial else None)

    def describe(self) -> dict:
        return {**super().describe(), "threads": self.threads, "speed": self.speed_source}


def host_core_count() -> int:
    """Cores this process may use (affinity-aware)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1
