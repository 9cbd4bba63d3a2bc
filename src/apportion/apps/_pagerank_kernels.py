"""Compiled kernel of the multi-device PageRank by residual push on the distributed worklist (seed 003 §4.5 and
§5.1.3: "local vertices re-queued when their residual crosses ε, remote residuals forwarded and merged").

`pagerank_step` follows the kernel contract of `_bfs_kernels.bfs_step` with these meanings:

- `values` are residuals: the owner's true residual for an owned vertex, a halo accumulator otherwise;
- `weights[v]` = α / deg(v) (0 for isolated vertices), `extra[:n]` the ranks, `extra[n]` the threshold ε;
- an incoming (v, r) adds r to v's residual; v is queued when its residual reaches ε;
- processing v moves its residual r to its rank and adds r α / deg(v) to every neighbour's residual: owned
  neighbours are queued when they reach ε; other devices' neighbours accumulate in the halo entry, and every
  halo entry touched in the batch is sent to its owner once, at the end of the batch, and reset to zero.

Residual mass is conserved up to the ranks' share, so the run ends with every residual under ε. The order of
additions depends on the interleaving: ranks agree with the sequential result to rounding, not bit for bit.
No soft priority: `threshold` and `promote` are unused.
"""

from __future__ import annotations

from numba import njit

from apportion.runtime.worklist import NOT_QUEUED, wl_pop, wl_push


@njit(cache=True, nogil=True)
def pagerank_step(indptr, indices, weights, owner, me, residual, flags, queue, qstate, deferred, dstate, in_v,
                  in_d, threshold, budget, promote, out_v, out_d, out_dest, counts, extra):
    n = weights.shape[0]
    epsilon = extra[n]
    pushed = 0
    for i in range(in_v.shape[0]):
        v = in_v[i]
        residual[v] += in_d[i]
        if residual[v] >= epsilon:
            pushed += wl_push(flags, queue, qstate, dstate, v)
    processed = 0
    n_out = 0
    edges = 0
    capacity = out_v.shape[0]
    while processed < budget and qstate[2] > 0:
        v = queue[qstate[0]]
        begin = indptr[v]
        end = indptr[v + 1]
        if n_out + (end - begin) > capacity:
            break  # the out buffers are full: send them first
        wl_pop(flags, queue, qstate)
        flags[v] = NOT_QUEUED
        processed += 1
        mass = residual[v]
        residual[v] = 0.0
        extra[v] += mass
        share = mass * weights[v]
        for e in range(begin, end):
            u = indices[e]
            if owner[u] == me:
                residual[u] += share
                if residual[u] >= epsilon:
                    pushed += wl_push(flags, queue, qstate, dstate, u)
            else:
                if residual[u] == 0.0:  # first touch in this batch: one item per halo vertex
                    out_v[n_out] = u
                    out_dest[n_out] = owner[u]
                    n_out += 1
                residual[u] += share
        edges += end - begin
    for i in range(n_out):  # flush the halo accumulators
        u = out_v[i]
        out_d[i] = residual[u]
        residual[u] = 0.0
    counts[0] = processed
    counts[1] = pushed
    counts[2] = in_v.shape[0]
    counts[3] = n_out
    counts[4] = edges
