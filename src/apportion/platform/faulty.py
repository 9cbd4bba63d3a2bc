"""FaultyDevice: inject a device death, to test that schedulers re-run lost work (locally and in simulation).

The wrapped device works normally for its first `fail_on_call - 1` runs; run number `fail_on_call` (1-based)
raises `DeviceFailure` (after doing nothing useful), and so does every later run: a dead device stays dead.
"""

from __future__ import annotations

from typing import Any

from apportion.platform.device import Device, DeviceFailure, Timing


class FaultyDevice(Device):
    """`device` that dies on its `fail_on_call`-th run."""

    def __init__(self, device: Device, fail_on_call: int = 1, name: str | None = None):
        self.inner = device
        super().__init__(name=name or device.name, kind=device.kind, implementation=device.implementation,
                         bundles=device.bundles, peak_flops=None, link=device.link)
        self.fail_on_call = int(fail_on_call)
        self.calls = 0
        self.is_simulated = device.is_simulated

    @property
    def peak_flops(self) -> float | None:
        """The wrapped device's speed (read when asked: a measured CPU speed is not measured before)."""
        return self.inner.peak_flops

    @peak_flops.setter
    def peak_flops(self, value) -> None:
        pass  # the wrapped device's

    @property
    def dead(self) -> bool:
        return self.calls >= self.fail_on_call

    def will_fail_next(self) -> bool:
        """True when the next run dies (the simulator asks this instead of calling run)."""
        return self.calls + 1 >= self.fail_on_call

    def note_call(self) -> None:
        self.calls += 1

    def select(self, kernels):
        return self.inner.select(kernels)

    def warm_up(self, kernels, *args) -> float:
        # a warm-up is not one of the runs `fail_on_call` counts
        return self.inner.warm_up(kernels, *args)

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        self.calls += 1
        if self.calls >= self.fail_on_call:
            raise DeviceFailure(f"device {self.name} failed (injected on run {self.fail_on_call})")
        execution = self.inner.run(kernels, *args)
        return execution.result, execution.timing

    def __getattr__(self, item):
        # model/estimate of a simulated inner device stay reachable
        if item == "inner":
            raise AttributeError(item)
        return getattr(self.inner, item)
