"""The device-local worklist (seed 003 §4.3, Fig. 9: "each device contains a locally managed worklist, which
comprises one or more multiple-producer-single-consumer queues").

Two parts, one per thread that touches them:

- `Inbox`: batches (segments) the device's receiver thread pushes and its worker thread takes, under a condition
  variable; the worker sleeps on it when it has nothing to do and is woken by a push, a priority raise or
  shutdown. Batches, never single items, cross the thread boundary.
- `LocalWorklist`: the worker's own queue of vertex ids, kept in NumPy arrays so that compiled kernels push and
  pop without the GIL (the `wl_*` functions below). A vertex is in it at most once (`flags`), so a circular
  buffer of n slots never overflows — the paper's circular buffers abort on overflow; ours cannot overflow.
  Items at or above the soft-priority threshold go to a *deferred* list until the threshold rises.

Flags per vertex: 0 = not in the worklist, 1 = queued, 2 = deferred.
"""

from __future__ import annotations

import threading
from collections import deque

import numpy as np
from numba import njit

NOT_QUEUED = 0
QUEUED = 1
DEFERRED = 2


class LocalWorklist:
    """Queue + deferred list of one device over the vertex ids 0..n-1 (arrays for the kernels).

    `qstate` = [head, tail, queued count]; `dstate` = [deferred list length, deferred count]. The deferred list
    may hold stale entries (a vertex promoted since); `wl_compact_deferred` drops them.
    """

    def __init__(self, n: int):
        self.flags = np.zeros(n, dtype=np.uint8)
        self.queue = np.empty(max(n, 1), dtype=np.int64)
        self.qstate = np.zeros(3, dtype=np.int64)
        self.deferred = np.empty(max(2 * n, 2), dtype=np.int64)
        self.dstate = np.zeros(2, dtype=np.int64)

    @property
    def queued(self) -> int:
        return int(self.qstate[2])

    @property
    def deferred_count(self) -> int:
        return int(self.dstate[1])

    def __len__(self) -> int:
        return self.queued + self.deferred_count

    def arrays(self):
        return self.flags, self.queue, self.qstate, self.deferred, self.dstate


@njit(cache=True, nogil=True)
def wl_push(flags, queue, qstate, dstate, v):
    """Queue v unless it is queued already (a deferred v moves to the queue). Returns 1 when v became a new
    item (it was in no list), else 0 — the count the termination protocol adds."""
    state = flags[v]
    if state == QUEUED:
        return 0
    if state == DEFERRED:
        dstate[1] -= 1  # its entry in the deferred list is stale from now on
    flags[v] = QUEUED
    tail = qstate[1]
    queue[tail] = v
    qstate[1] = tail + 1 if tail + 1 < queue.shape[0] else 0
    qstate[2] += 1
    return 1 if state == NOT_QUEUED else 0


@njit(cache=True, nogil=True)
def wl_pop(flags, queue, qstate):
    """The oldest queued vertex (its flag still QUEUED: the caller processes or defers it); -1 when empty."""
    if qstate[2] == 0:
        return -1
    head = qstate[0]
    v = queue[head]
    qstate[0] = head + 1 if head + 1 < queue.shape[0] else 0
    qstate[2] -= 1
    return v


@njit(cache=True, nogil=True)
def wl_compact_deferred(flags, deferred, dstate):
    """Drop stale and repeated entries of the deferred list (flag 3 marks seen ones during the pass)."""
    kept = 0
    for i in range(dstate[0]):
        v = deferred[i]
        if flags[v] == DEFERRED:
            flags[v] = 3
            deferred[kept] = v
            kept += 1
    for i in range(kept):
        flags[deferred[i]] = DEFERRED
    dstate[0] = kept


@njit(cache=True, nogil=True)
def wl_defer(flags, deferred, dstate, v):
    """Move a popped (QUEUED-flagged) vertex to the deferred list; the item stays counted."""
    if dstate[0] == deferred.shape[0]:
        wl_compact_deferred(flags, deferred, dstate)
    flags[v] = DEFERRED
    deferred[dstate[0]] = v
    dstate[0] += 1
    dstate[1] += 1


@njit(cache=True, nogil=True)
def wl_promote(flags, queue, qstate, deferred, dstate, priorities, threshold):
    """Queue every deferred vertex whose priority is now under `threshold`; keep the others. Returns how many
    moved."""
    kept = 0
    moved = 0
    for i in range(dstate[0]):
        v = deferred[i]
        if flags[v] != DEFERRED:
            continue  # stale: promoted or processed since
        if priorities[v] < threshold:
            wl_push(flags, queue, qstate, dstate, v)
            moved += 1
        else:
            flags[v] = 3  # seen: a repeated entry is dropped
            deferred[kept] = v
            kept += 1
    for i in range(kept):
        flags[deferred[i]] = DEFERRED
    dstate[0] = kept
    return moved


@njit(cache=True, nogil=True)
def wl_min_deferred(flags, deferred, dstate, priorities):
    """The least priority of the deferred vertices (inf when none)."""
    best = np.inf
    for i in range(dstate[0]):
        v = deferred[i]
        if flags[v] == DEFERRED and priorities[v] < best:
            best = priorities[v]
    return best


class Inbox:
    """Batches from the receiver thread to the worker thread (multiple producers, one consumer)."""

    def __init__(self):
        self._cond = threading.Condition()
        self._batches: deque = deque()
        self._closed = False
        self._woken = False

    def push(self, batch) -> None:
        with self._cond:
            self._batches.append(batch)
            self._cond.notify()

    def wake(self) -> None:
        """Wake the worker without a batch (the priority threshold rose)."""
        with self._cond:
            self._woken = True
            self._cond.notify()

    def close(self) -> None:
        """No more batches: the worker stops once it has taken the last ones."""
        with self._cond:
            self._closed = True
            self._cond.notify()

    def take(self, wait: bool) -> tuple[list, bool]:
        """(batches, closed): every waiting batch; with `wait`, sleep first until a batch, a wake or close."""
        with self._cond:
            if wait:
                while not self._batches and not self._closed and not self._woken:
                    self._cond.wait()
            self._woken = False
            batches = list(self._batches)
            self._batches.clear()
            return batches, self._closed

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._closed
