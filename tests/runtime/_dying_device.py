"""A CPU device whose process exits on its `die_on`-th run: on Ray its actor dies (RayActorError). Ray's workers
cannot import test modules, so a test registers this module to travel by value (`register_pickle_by_value`)."""

from __future__ import annotations

import os

from apportion.platform.cpu import CPUDevice


class DyingDevice(CPUDevice):
    """Exits the process on the `die_on`-th run (a scatter actor's warm-up counts as one)."""

    def __init__(self, die_on: int, name: str):
        super().__init__(1, name=name)
        self.die_on = die_on
        self.calls = 0

    def _execute(self, kernels, args):
        self.calls += 1
        if self.calls >= self.die_on:
            os._exit(1)
        return super()._execute(kernels, args)
