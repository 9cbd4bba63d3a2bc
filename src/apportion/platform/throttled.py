"""ThrottledDevice: a real device made `factor` times slower, so heterogeneity can be shown on one machine.

It runs the real kernel on the wrapped device, then *sleeps* — releasing the GIL and the core, never spinning or
re-running work — until the run has lasted `factor` x what it costs on a dedicated device: the inner run's
`Timing.dedicated_s` when the inner device reports it (a serial CPU kernel's thread CPU time), else its wall
time. Slowing by the CPU time matters on a loaded machine: a pre-emption of the inner run by another process is
paid once, not multiplied by the factor (slowing by the wall time turned one 5 ms time slice into 15 ms).
The scheduler sees only the slower device: this is how the benchmarks build a "CPU + slower GPU" pair without a
GPU. The returned Timing's parts add up to the real elapsed time; its `dedicated_s` is `factor` x the inner one.
"""

from __future__ import annotations

import time
from typing import Any

from apportion.errors import InputError
from apportion.platform.device import Device, Timing


class ThrottledDevice(Device):
    """Wrap `device`; every run takes `factor` times as long as on a dedicated inner device (factor >= 1)."""

    def __init__(self, device: Device, factor: float, name: str | None = None):
        factor = float(factor)
        if not factor >= 1.0:
            raise InputError(f"ThrottledDevice: factor must be >= 1, got {factor}")
        self.inner = device
        self.factor = factor
        super().__init__(name=name or f"{device.name}/x{factor:g}", kind=device.kind,
                         implementation=device.implementation, bundles=device.bundles, peak_flops=None,
                         link=device.link)

    @property
    def peak_flops(self) -> float | None:
        """The inner device's speed (measured or given) divided by the factor; never measured itself."""
        inner = self.inner.peak_flops
        return None if inner is None else inner / self.factor

    @peak_flops.setter
    def peak_flops(self, value) -> None:
        pass  # derived from the inner device (the dataclass constructor assigns the field)

    def select(self, kernels):
        return self.inner.select(kernels)

    def warm_up(self, kernels, *args) -> float:
        return self.inner.warm_up(kernels, *args)

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        execution = self.inner.run(kernels, *args)
        inner = execution.timing
        basis = inner.dedicated_s if inner.dedicated_s is not None else inner.total_s
        extra = (self.factor - 1.0) * basis
        if extra > 0:
            time.sleep(extra)
        return execution.result, stretched(inner, time.perf_counter() - execution.started, self.factor)

    def describe(self) -> dict:
        return {**super().describe(), "throttle_factor": self.factor, "inner": self.inner.describe()}

    def close(self) -> None:
        self.inner.close()


def stretched(inner: Timing, elapsed_s: float, factor: float) -> Timing:
    """`inner` scaled part by part so that its total is `elapsed_s` (what the throttled run really took);
    `dedicated_s` becomes `factor` x the inner one (None stays None)."""
    scale = elapsed_s / inner.total_s if inner.total_s > 0 else factor
    return Timing(transfer_s=inner.transfer_s * scale, launch_s=inner.launch_s * scale,
                  compute_s=inner.compute_s * scale if inner.total_s > 0 else elapsed_s,
                  transfer_in_s=None if inner.transfer_in_s is None else inner.transfer_in_s * scale,
                  dedicated_s=None if inner.dedicated_s is None else inner.dedicated_s * factor)
