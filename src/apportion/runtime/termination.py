"""Distributed termination by work counting (seed 003 §4.3: "devices periodically report produced and consumed
work-items ... once the number of total work-items becomes zero, processing stops and a shutdown signal is sent
to all participating devices via router links").

`WorkCounter(on_zero)` holds the number of work items that exist anywhere: in a device's worklist, deferred by
soft priority, or inside a message on its way. The protocol that makes it exact:

- an item is counted *before* it can be seen by anyone else: a device adds what a batch produced (minus what it
  consumed) in one `add` before it sends the batch's remote items; the host adds the seeds before sending them;
- consuming is reported after the item is gone (processed, or dropped as useless).

Then the count is > 0 whenever an item exists, so it reaches zero only when none is left; nothing can create
an item after that (only processing does), and `on_zero` (the host shutting the router down) runs exactly once.
Counting after the send would let a receiver consume and report an item before it was counted: the count could
touch zero with work still in flight (tests/runtime/test_termination.py plays that schedule).
"""

from __future__ import annotations

import threading
from typing import Callable


class TerminationError(RuntimeError):
    """The counting protocol was broken (a negative count, or work reported after termination)."""


class WorkCounter:
    """The host's global count of live work items; `on_zero()` runs once, when it first returns to zero."""

    def __init__(self, on_zero: Callable[[], None] | None = None):
        self._lock = threading.Lock()
        self._count = 0
        self._started = False
        self._finished = threading.Event()
        self._on_zero = on_zero
        self.produced = 0
        self.consumed = 0

    def start(self, initial: int) -> None:
        """Count the host's seed items (before sending them); zero seeds terminate at once."""
        if initial < 0:
            raise TerminationError(f"negative initial work {initial}")
        with self._lock:
            if self._started:
                raise TerminationError("the counter was started twice")
            self._started = True
            self._count = int(initial)
            self.produced += int(initial)
            zero = self._count == 0
        if zero:
            self._finish()

    def add(self, produced: int, consumed: int = 0) -> None:
        """Report a batch: `produced` new items (counted before they are sent) and `consumed` items gone."""
        fire = False
        with self._lock:
            if self._finished.is_set():
                if produced or consumed:
                    raise TerminationError("work reported after termination")
                return
            if not self._started:
                raise TerminationError("work reported before the counter was started")
            self._count += int(produced) - int(consumed)
            self.produced += int(produced)
            self.consumed += int(consumed)
            if self._count < 0:
                raise TerminationError(f"the work count went negative ({self._count})")
            fire = self._count == 0
        if fire:
            self._finish()

    def _finish(self) -> None:
        self._finished.set()
        if self._on_zero is not None:
            self._on_zero()

    @property
    def count(self) -> int:
        with self._lock:
            return self._count

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until termination (True) or `timeout` (False)."""
        return self._finished.wait(timeout)
