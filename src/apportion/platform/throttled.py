"""ThrottledDevice: a real device made `factor` times slower, so heterogeneity can be shown on one machine.

It runs the real kernel on the wrapped device, then sleeps `(factor - 1) x` the measured run time, so from the
outside the device computes at 1/factor of the inner speed (the sleep releases the GIL and the core). The
scheduler sees only the slower device: this is how the benchmarks build a "CPU + slower GPU" pair without a GPU.
"""

from __future__ import annotations

import time
from typing import Any

from apportion.platform.device import Device, Timing


class ThrottledDevice(Device):
    """Wrap `device`; every run takes `factor` times as long (factor >= 1)."""

    def __init__(self, device: Device, factor: float, name: str | None = None):
        factor = float(factor)
        if not factor >= 1.0:
            from apportion.errors import InputError

            raise InputError(f"ThrottledDevice: factor must be >= 1, got {factor}")
        peak = None if device.peak_flops is None else device.peak_flops / factor
        super().__init__(name=name or f"{device.name}/x{factor:g}", kind=device.kind,
                         implementation=device.implementation, bundles=device.bundles, peak_flops=peak,
                         link=device.link)
        self.inner = device
        self.factor = factor

    def select(self, kernels):
        return self.inner.select(kernels)

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        execution = self.inner.run(kernels, *args)
        inner = execution.timing
        extra = (self.factor - 1.0) * inner.total_s
        if extra > 0:
            time.sleep(extra)
        return execution.result, Timing(transfer_s=inner.transfer_s * self.factor,
                                        launch_s=inner.launch_s * self.factor,
                                        compute_s=inner.compute_s * self.factor,
                                        transfer_in_s=None if inner.transfer_in_s is None
                                        else inner.transfer_in_s * self.factor)

    def describe(self) -> dict:
        return {**super().describe(), "throttle_factor": self.factor, "inner": self.inner.describe()}

    def close(self) -> None:
        self.inner.close()
