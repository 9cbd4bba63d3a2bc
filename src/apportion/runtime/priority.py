"""Soft-priority scheduling (seed 003 §4.4): process only the work items under a system-wide threshold; raise it
by Δ when nothing is left under it (a global delta-stepping that stops a fast device from running ahead on
values that will turn out stale).

`SoftPriority(delta, devices, counter)`: devices read `threshold` at every batch and keep items at or above it
*deferred*. A device with nothing left under the threshold reports `idle(device, deferred, min_deferred)`; a
device that takes incoming items reports `busy(device)` first; whoever drops items in flight calls `recheck()`.
The threshold rises when every device is idle and the work count (termination.py) equals the sum of the
deferred items they reported — that is, nothing is in flight and nothing under the threshold is left anywhere.
It then jumps to the first Δ-bucket holding a deferred item (empty buckets are skipped; past the lowest
deferred priority even where Δ is below the float spacing of the values, so that every raise lets work
through) and the devices whose threshold rose over deferred items are woken (the others have nothing a raise
lets through: their idle reports hold for the next raise).

With `run_ahead` (SSSP's automatic Δ) an idle device need not wait for that barrier: it may raise its own
threshold to the end of its lowest deferred item's bucket while others still work, as long as that is at most
`LAG_BUCKETS` · Δ above the lowest threshold of a device holding work — Groute's threshold "close to what all the
systems are currently processing" rather than a global step. Items a lagging device still sends may then lower
a vertex already processed (soft: a little more work, never a wrong fixpoint); on road 2^20 two devices'
global raises fell from 325 to 85–130 and the makespan beside a device throttled 3× by about a third
(docs/runtime.md). A strict threshold (run_ahead off) keeps Δ-stepping's guarantee: with Δ at most the least
arc weight every vertex is processed once.

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
#: a device may raise its own threshold while others work, to at most this many Δ above the lowest threshold of
#: a device that holds work (`SoftPriority._try_run_ahead`)
LAG_BUCKETS = 1


def auto_delta(weights: np.ndarray | None) -> float:
    """Δ for soft priority: `AUTO_DELTA_MEAN_WEIGHTS` × the mean edge weight (1 for unweighted graphs).

    Small Δ means little useless work but many global threshold raises; large Δ the opposite.
    """
    if weights is None or len(weights) == 0:
        return AUTO_DELTA_MEAN_WEIGHTS
    mean = float(np.mean(weights))
    return max(AUTO_DELTA_MEAN_WEIGHTS * mean, np.finfo(np.float64).tiny)


def check_delta(delta, *, automatic: bool = True) -> float | None:
    """Δ as a positive float, or None for "off" (None, "off", 0 is refused: it would never advance). `automatic`:
    whether the app takes "auto" (which it resolves itself before calling this), for the message."""
    if delta is None or (isinstance(delta, str) and delta == "off"):
        return None
    choices = "'auto', 'off'" if automatic else "'off'"
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (int, float, np.integer, np.floating)):
        raise InputError(f"priority delta must be {choices} or a positive number, got {delta!r}")
    value = float(delta)
    if not (value > 0 and math.isfinite(value)):
        raise InputError(f"priority delta must be a positive finite number, got {delta!r}")
    return value


class SoftPriority:
    """The system-wide threshold and the consensus that raises it."""

    def __init__(self, delta: float | None, devices: int, counter: WorkCounter, run_ahead: bool = False):
        self.delta = delta
        self.run_ahead = bool(run_ahead)
        self.devices = int(devices)
        self.counter = counter
        start = math.inf if delta is None else float(delta)
        self.thresholds = [start] * self.devices
        self.raises = 0
        self.run_aheads = 0
        self._lock = threading.Lock()
        self._idle = [False] * self.devices
        self._deferred = [0] * self.devices
        self._min_deferred = [math.inf] * self.devices
        self._listeners: list[Callable[[], None]] = []

    @classmethod
    def off(cls, devices: int, counter: WorkCounter) -> "SoftPriority":
        return cls(None, devices, counter)

    @property
    def threshold(self) -> float:
        """The system-wide threshold: the lowest device's (every device's, when none ran ahead)."""
        return min(self.thresholds) if self.thresholds else math.inf

    def threshold_of(self, device: int) -> float:
        """The threshold `device` processes under: the system-wide one, or up to LAG_BUCKETS · Δ above the
        others' when it ran ahead (`idle`)."""
        return self.thresholds[device]

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
            ran_ahead = not raised and self._try_run_ahead(device)
        if raised:
            self._wake_all(but=device)
        elif ran_ahead:
            self._wake_waiting(but=device)
        return raised or ran_ahead

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

    def _bucket_end(self, lowest: float) -> float:
        """The end of the Δ-bucket holding priority `lowest` (past `lowest` even where Δ is below the float
        spacing of the values, so that every raise lets the lowest item through)."""
        buckets = lowest / self.delta
        bucket_end = (math.floor(buckets) + 1) * self.delta if math.isfinite(buckets) else lowest
        if not bucket_end > lowest:
            bucket_end = math.nextafter(lowest, math.inf)
        return bucket_end

    def _try_raise(self) -> bool:
        total = sum(self._deferred)
        if not (all(self._idle) and total > 0 and self.counter.count == total):
            return False
        floor = max(self.threshold + self.delta, self._bucket_end(min(self._min_deferred)))
        old = self.thresholds
        self.thresholds = [max(t, floor) for t in old]
        self.raises += 1
        # only a device whose threshold rose over deferred items has anything to promote: it is woken
        # (`_wake_all`) and reports again; every other report still holds (the lowest deferred item's device
        # is always among the woken, since its threshold lies below that item's bucket end)
        self._idle = [not (new > before and self._deferred[j] > 0)
                      for j, (before, new) in enumerate(zip(old, self.thresholds))]
        return True

    def _try_run_ahead(self, device: int) -> bool:
        """Let an idle `device` raise its own threshold to the end of its lowest deferred item's Δ-bucket while
        the others still work, when that end is at most LAG_BUCKETS · Δ above the lowest threshold among the
        devices that hold work (a busy one, or an idle one with deferred items; none: no bound): no barrier for
        it, and no device runs further ahead of the others than that (seed 003 §4.4: the threshold stays "close
        to what all the systems are currently processing")."""
        if not self.run_ahead or self.devices == 1 or self._deferred[device] == 0:
            return False
        others = [self.thresholds[j] for j in range(self.devices)
                  if j != device and (not self._idle[j] or self._deferred[j] > 0)]
        cap = (min(others) + LAG_BUCKETS * self.delta) if others else math.inf
        target = self._bucket_end(self._min_deferred[device])
        if target > cap or not target > self.thresholds[device]:
            return False  # its next bucket is too far ahead (or already open): it waits for the others
        self.thresholds[device] = target
        self.run_aheads += 1
        self._idle[device] = False
        return True

    def _wake_all(self, but: int | None = None) -> None:
        """After a system-wide raise, wake the devices whose threshold rose over deferred items (`_try_raise`
        marked them busy; `but` raised it and is awake); every other idle report still holds."""
        for index, wake in enumerate(self._listeners):
            if index != but and not self._idle[index]:
                wake()

    def _wake_waiting(self, but: int) -> None:
        """After `but` ran ahead, wake the idle devices holding deferred items: their own run-ahead bound may
        have risen (their idle reports hold until they report again)."""
        for index, wake in enumerate(self._listeners):
            if index != but and self._idle[index] and self._deferred[index] > 0:
                wake()
