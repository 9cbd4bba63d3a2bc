"""Compiled kernels of the multi-device BFS (seed 003 §4.5, Fig. 11: the level is read when an item is
processed, a neighbour's level lowered to level + 1, owned neighbours queued locally and the others sent to
their owner).

`bfs_step` is one batch of a device's worker; its signature is the distributed worklist's kernel contract
(runtime/distributed_worklist.py), shared with `_sssp_kernels.sssp_step`:

    step(indptr, indices, weights, owner, me, values, flags, queue, qstate, deferred, dstate,
         in_v, in_d, threshold, budget, promote, out_v, out_d, out_dest, counts, extra)

1. apply the incoming items (in_v[i] may have value in_d[i]): a lower value is kept and the vertex queued;
2. process up to `budget` queued vertices (stopping early when the out buffers could overflow): relax every
   edge; a lowered neighbour is queued when this device owns it, else written to out_v/out_d/out_dest (its owner)
   after lowering this device's halo copy, which filters later updates that are not better;
3. counts[:5] = processed, pushed (items that entered the worklist), incoming consumed, remote items, edges.

`extra` is the program's per-device extra state (unused here).

With soft priority (§4.4; the level is the priority) a popped vertex at or above `threshold` is deferred
unprocessed, and `promote` queues the deferred vertices under a raised threshold first. `weights` is unused.

Deterministic for a given order of incoming batches and thresholds; the final levels do not depend on it (a
monotone fixpoint).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion.runtime.worklist import DEFERRED, NOT_QUEUED, QUEUED, wl_defer, wl_promote, wl_push


@njit(cache=True, nogil=True)
def bfs_step(indptr, indices, weights, owner, me, levels, flags, queue, qstate, deferred, dstate, in_v, in_d,
             threshold, budget, promote, out_v, out_d, out_dest, counts, extra):
    if promote:
        wl_promote(flags, queue, qstate, deferred, dstate, levels, threshold)
    pushed = 0
    for i in range(in_v.shape[0]):
        v = in_v[i]
        if in_d[i] < levels[v]:
            levels[v] = in_d[i]
            pushed += wl_push(flags, queue, qstate, dstate, v)
    # The main loop keeps the queue's head, tail and count in locals (the same steps as wl_pop / wl_push, written
    # out): through the qstate array every push and pop is a store and reload the compiler cannot keep in
    # registers, and this loop runs once per vertex and edge (measured: a third of the kernel's time).
    size = queue.shape[0]
    head = qstate[0]
    tail = qstate[1]
    queued = qstate[2]
    processed = 0
    n_out = 0
    edges = 0
    capacity = out_v.shape[0]
    while processed < budget and queued > 0:
        v = queue[head]
        begin = indptr[v]
        end = indptr[v + 1]
        level = levels[v]
        if level < threshold and n_out + (end - begin) > capacity:
            break  # the out buffers are full: send them first
        head = head + 1 if head + 1 < size else 0
        queued -= 1
        if level >= threshold:
            wl_defer(flags, deferred, dstate, v)  # still counted: it waits for the threshold to rise
            continue
        flags[v] = NOT_QUEUED
        processed += 1
        next_level = levels.dtype.type(level + 1)  # the levels' own type (int32): no widening per arc
        for e in range(begin, end):
            u = indices[e]
            if next_level < levels[u]:
                levels[u] = next_level
                if owner[u] == me:
                    state = flags[u]
                    if state != QUEUED:  # wl_push
                        if state == DEFERRED:
                            dstate[1] -= 1  # its entry in the deferred list is stale from now on
                        else:
                            pushed += 1
                        flags[u] = QUEUED
                        queue[tail] = u
                        tail = tail + 1 if tail + 1 < size else 0
                        queued += 1
                else:
                    out_v[n_out] = u
                    out_d[n_out] = next_level
                    out_dest[n_out] = owner[u]
                    n_out += 1
        edges += end - begin
    qstate[0] = head
    qstate[1] = tail
    qstate[2] = queued
    counts[0] = processed
    counts[1] = pushed
    counts[2] = in_v.shape[0]
    counts[3] = n_out
    counts[4] = edges


@njit(cache=True, nogil=True)
def bfs_levels_serial(indptr, indices, source, levels):
    """Sequential BFS (a FIFO queue): levels[v] = hops from source, -1 when unreachable (the reference)."""
    n = indptr.shape[0] - 1
    for v in range(n):
        levels[v] = -1
    fifo = np.empty(n, dtype=np.int64)
    head = 0
    tail = 1
    fifo[0] = source
    levels[source] = 0
    while head < tail:
        v = fifo[head]
        head += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if levels[u] < 0:
                levels[u] = levels[v] + 1
                fifo[tail] = u
                tail += 1


@njit(cache=True, nogil=True)
def widen_levels(levels, new_of_old, out):
    """out[v] = levels[new_of_old[v]] as int64 (the levels of a renumbered run, back in the graph's numbering),
    -1 where it is the int32 "unreached" mark (one pass, no temporaries)."""
    unreached = np.iinfo(levels.dtype).max
    for v in range(out.shape[0]):
        level = levels[new_of_old[v]]
        out[v] = -1 if level == unreached else level
