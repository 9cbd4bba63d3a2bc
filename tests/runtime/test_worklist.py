"""The local worklist kernels (queue, deferral, promotion, counts) and the inbox."""

from __future__ import annotations

import threading

import numpy as np

from apportion.runtime.worklist import (DEFERRED, NOT_QUEUED, QUEUED, Inbox, LocalWorklist, wl_compact_deferred,
                                        wl_defer, wl_min_deferred, wl_pop, wl_promote, wl_push)


def test_a_vertex_is_queued_once_and_popped_in_order():
    wl = LocalWorklist(5)
    flags, queue, qstate, deferred, dstate = wl.arrays()
    assert [wl_push(flags, queue, qstate, dstate, v) for v in (3, 1, 3, 4)] == [1, 1, 0, 1]
    assert wl.queued == 3
    assert [wl_pop(flags, queue, qstate) for _ in range(4)] == [3, 1, 4, -1]


def test_the_circular_queue_wraps_around():
    wl = LocalWorklist(3)
    flags, queue, qstate, deferred, dstate = wl.arrays()
    popped = []
    for v in [0, 1, 2, 0, 1, 2, 0]:
        wl_push(flags, queue, qstate, dstate, v)
        u = wl_pop(flags, queue, qstate)
        flags[u] = NOT_QUEUED
        popped.append(u)
    assert popped == [0, 1, 2, 0, 1, 2, 0] and wl.queued == 0


def test_deferral_promotion_and_counts():
    wl = LocalWorklist(6)
    flags, queue, qstate, deferred, dstate = wl.arrays()
    priorities = np.array([5.0, 1.0, 7.0, 2.0, 9.0, 0.0])
    for v in (0, 2, 4):
        wl_push(flags, queue, qstate, dstate, v)
        wl_defer(flags, deferred, dstate, wl_pop(flags, queue, qstate))
    assert wl.deferred_count == 3 and wl.queued == 0 and len(wl) == 3
    assert wl_min_deferred(flags, deferred, dstate, priorities) == 5.0
    # a deferred vertex pushed again moves to the queue: not a new item, and its deferred entry goes stale
    assert wl_push(flags, queue, qstate, dstate, 2) == 0
    assert wl.deferred_count == 2 and wl.queued == 1 and flags[2] == QUEUED
    assert wl_promote(flags, queue, qstate, deferred, dstate, priorities, 6.0) == 1  # vertex 0 (5.0 < 6)
    assert wl.deferred_count == 1 and wl.queued == 2 and flags[4] == DEFERRED and dstate[0] == 1
    assert sorted(wl_pop(flags, queue, qstate) for _ in range(2)) == [0, 2]


def test_compaction_drops_stale_and_repeated_entries():
    wl = LocalWorklist(4)
    flags, queue, qstate, deferred, dstate = wl.arrays()
    for _ in range(2):  # vertex 1 deferred, promoted by a push, popped and deferred again: two entries
        wl_push(flags, queue, qstate, dstate, 1)
        wl_defer(flags, deferred, dstate, wl_pop(flags, queue, qstate))
    assert dstate[0] == 2 and wl.deferred_count == 1
    wl_compact_deferred(flags, deferred, dstate)
    assert dstate[0] == 1 and deferred[0] == 1 and flags[1] == DEFERRED


def test_inbox_take_wake_and_close():
    inbox = Inbox()
    assert inbox.take(wait=False) == ([], False)
    inbox.push("a")
    inbox.push("b")
    assert inbox.take(wait=True) == (["a", "b"], False)
    got = []
    thread = threading.Thread(target=lambda: got.append(inbox.take(wait=True)))
    thread.start()
    inbox.wake()
    thread.join(5)
    assert got == [([], False)]
    inbox.close()
    assert inbox.take(wait=True) == ([], True) and inbox.closed
