"""Soft-priority scheduling (seed 003 §4.4): process only the work items under a system-wide threshold; raise it
by Δ when nothing is left under it (a global delta-stepping that stops a fast device from running ahead on
values that will turn out stale).

`SoftPriority(delta, devices, counter)`: devices read `threshold` at every batch and keep items at or above it
*deferred*. A device with nothing left under the threshold reports `idle(device, deferred, min_deferred)`; a
device that takes incoming items reports `busy(device)` first; whoever drops items in flight calls `recheck()`. The threshold rises when every device is idle and
the work count (termination.py) equals the sum of the deferred items they reported — that is, nothing is in
flight and nothing under the threshold is left anywhere. It then jumps to the first Δ-bucket holding a deferred
item (empty buckets are skipped; past the lowest deferred priority even where Δ is below the float spacing of
the values, so that every raise lets work through) and the listeners (the devices' worklists) are woken.

`SoftPriority.off(devices)` is the infinite threshold (no deferral). `auto_delta(weights)` picks Δ from the edge
weights (see its docstring).
"""

from __future__ import annotations

import math
import threading
from typing import Callable

import numpy as np

from apportion.errors import InputError
from apportion.runtime.termination import WorkCounter

#: auto Δ = this many mean edge weights (measured on delaunay graphs with weights 1-99, docs/runtime.md)
AUTO_DELTA_MEAN_WEIGHTS = 4.0


def auto_delta(weights: np.ndarray | None) -> float:
    """Δ for soft priority: `AUTO_DELTA_MEAN_WEIGHTS` × the mean edge weight (1 for unweighted graphs).

    Small Δ means little useless work but many global threshold raises; large Δ the opposite.
    """
    if weights is None or len(weights) == 0:
        return AUTO_DELTA_MEAN_WEIGHTS
    mean = float(np.mean(weights))
    return max(AUTO_DELTA_MEAN_WEIGHTS * mean, np.finfo(np.float64).tiny)


def check_delta(delta) -> float | None:
    """Δ as a positive float, or None for "off" (None, "off", 0 is refused: it would never advance)."""
    if delta is None or (isinstance(delta, str) and delta == "off"):
        return None
    try:
        value = float(delta)
    except (TypeError, ValueError):
        raise InputError(f"priority delta must be 'auto', 'off' or a positive number, got {delta!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise InputError(f"priority delta must be a positive finite number, got {delta!r}")
    return value


class SoftPriority:
    """The system-wide threshold and the consensus that raises it."""

    def __init__(self, delta: float | None, devices: int, counter: WorkCounter):
        self.delta = delta
        self.devices = int(devices)
        self.counter = counter
        self.threshold = math.inf if delta is None else float(delta)
        self.raises = 0
        self._lock = threading.Lock()
        self._idle = [False] * self.devices
        self._deferred = [0] * self.devices
        self._min_deferred = [math.inf] * self.devices
        self._listeners: list[Callable[[], None]] = []

    @classmethod
    def off(cls, devices: int, counter: WorkCounter) -> "SoftPriority":
        return cls(None, devices, counter)

    @property
    def enabled(self) -> bool:
        return self.delta is not None

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake()` after every raise (a device's worklist wakes its worker)."""
        self._listeners.append(wake)

    def busy(self, device: int) -> None:
        """The device is about to take new items: its last idle report no longer holds."""
        with self._lock:
            self._idle[device] = False

    def idle(self, device: int, deferred: int, min_deferred: float) -> bool:
        """Nothing under the threshold is left on `device`; it holds `deferred` items, the least priority
        `min_deferred`. Returns True when this report raised the threshold."""
        if not self.enabled:
            return False
        with self._lock:
            self._idle[device] = True
            self._deferred[device] = int(deferred)
            self._min_deferred[device] = float(min_deferred)
            raised = self._try_raise()
        if raised:
            self._wake_all()
        return raised

    def recheck(self) -> bool:
        """Check the raise condition again after work vanished without a device report (a receiver dropped
        useless items in flight). Returns True when the threshold rose."""
        if not self.enabled:
            return False
        with self._lock:
            raised = self._try_raise()
        if raised:
            self._wake_all()
        return raised

    def _try_raise(self) -> bool:
        total = sum(self._deferred)
        if not (all(self._idle) and total > 0 and self.counter.count == total):
            return False
        lowest = min(self._min_deferred)
        buckets = lowest / self.delta
        bucket_end = (math.floor(buckets) + 1) * self.delta if math.isfinite(buckets) else lowest
        if not bucket_end > lowest:  # a Δ below the values' float spacing: let the lowest item through at least
            bucket_end = math.nextafter(lowest, math.inf)
        self.threshold = max(self.threshold + self.delta, bucket_end)
        self.raises += 1
        self._idle = [False] * self.devices
        return True

    def _wake_all(self) -> None:
        for wake in self._listeners:
            wake()
