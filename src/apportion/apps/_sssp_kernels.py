"""Compiled kernels of the multi-device SSSP (seed 003 §4.5 with §4.4's soft priority: a distance is read when
its vertex is processed; vertices whose distance is at or above the system-wide threshold are deferred).

`sssp_step` follows the kernel contract of `_bfs_kernels.bfs_step` (same arguments, same counts) with float64
distances, per-arc `weights`, and soft priority: when `promote` is set the deferred vertices under the new
`threshold` are queued first; a popped vertex at or above `threshold` goes to the deferred list unprocessed.

Deterministic for a given order of incoming batches and thresholds; the final distances do not depend on it
(a monotone fixpoint: every distance only decreases, to the shortest-path distance).
"""

from __future__ import annotations

from numba import njit

from apportion.runtime.worklist import DEFERRED, NOT_QUEUED, QUEUED, wl_defer, wl_promote, wl_push


@njit(cache=True, nogil=True)
def sssp_step(indptr, indices, weights, owner, me, dist, flags, queue, qstate, deferred, dstate, in_v, in_d,
              threshold, budget, promote, out_v, out_d, out_dest, counts, extra):
    if promote:
        wl_promote(flags, queue, qstate, deferred, dstate, dist, threshold)
    pushed = 0
    for i in range(in_v.shape[0]):
        v = in_v[i]
        if in_d[i] < dist[v]:
            dist[v] = in_d[i]
            pushed += wl_push(flags, queue, qstate, dstate, v)
    # queue head, tail and count in locals in the main loop, as in _bfs_kernels.bfs_step (why: see there)
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
        base = dist[v]
        if base < threshold and n_out + (end - begin) > capacity:
            break  # the out buffers are full: send them first
        head = head + 1 if head + 1 < size else 0
        queued -= 1
        if base >= threshold:
            wl_defer(flags, deferred, dstate, v)  # still counted: it waits for the threshold to rise
            continue
        flags[v] = NOT_QUEUED
        processed += 1
        for e in range(begin, end):
            u = indices[e]
            candidate = base + weights[e]
            if candidate < dist[u]:
                dist[u] = candidate
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
                    out_d[n_out] = candidate
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
