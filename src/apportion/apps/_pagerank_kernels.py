"""Compiled kernels of the multi-device PageRank by residual push on the distributed worklist (seed 003 §4.5 and
§5.1.3: "local vertices re-queued when their residual crosses ε, remote residuals forwarded and merged").

`pagerank_step` follows the kernel contract of `_bfs_kernels.bfs_step` with these meanings:

- `values` are residuals: the owner's true residual for an owned vertex, a halo accumulator otherwise;
- `weights[v]` = α / deg(v) (0 for isolated vertices), `extra[:n]` the ranks, `extra[n]` the threshold ε,
  `extra[n + 1]` the halo entries a batch lists before it switches to scanning (pagerank.FLUSH_ITEMS),
  `extra[n + 2]` the remote arcs between two scans, `extra[n + 3]` and `extra[n + 4]` the kernel's own state
  across calls (scanning or not, remote arcs since the switch);
- `indices` are *signed* arc targets (`signed_targets_chunk`, made per run from the owners): u when the arc's
  ends have the same owner, -u - 1 when u belongs to another device, so the inner loop reads no owner array
  (a random read per arc: about a quarter of the kernel's time on delaunay 2^20); each row lists its arcs to
  the same owner first, so a push runs two loops without a branch per arc on the owner (rmat 18 on two
  devices, where 45 % of the arcs cross: 7.4-8.4 → 3.5-4.7 ns per arc, the run 1.30 → 0.77 s);
- residuals are signed (the push starts from ranks near the answer, pagerank.py); a vertex is *active* while
  its residual is at least ε in absolute value;
- an incoming (v, r) adds r to v's residual, which may make v active or, a negative r, inactive;
- processing v moves its residual r to its rank and adds r α / deg(v) to every neighbour's residual: owned
  neighbours become active or inactive as their residual crosses ±ε; other devices' neighbours accumulate in
  the halo entry, which is later sent to its owner as one item and reset to zero.
- counts[1] (items that entered the worklist) counts the vertices that became active, and counts[2] (items
  consumed) the incoming items plus the vertices that became inactive without being processed, so that the
  termination count stays the number of active vertices plus the items on their way.

Sending the halo sums. While few halo entries are touched (a small cut: delaunay, road) the batch *lists* each
on its first touch and sends the listed ones at the end of the batch. When the list reaches `extra[n + 1]`
entries (a large cut: rmat 18's balanced 2-way cut holds 45 % of the arcs, and a few thousand pushes touch tens
of thousands of halo entries) the batch switches to *scanning*: the remote loop only adds (no first-touch
branch, no list), and every `extra[n + 2]` remote arcs — or as soon as the device has nothing left to push, so
that no share is held while its device waits — one pass over the vertex ids sends every other device's vertex
with a non-zero sum, in id order (the receiver then adds them in memory order), and the next batch lists again.
Between scans the sums stay with the sender across batches (safe: the device has active vertices, so the
termination count is not zero and the worker calls again). On rmat 18, two devices: 0.60 → 0.46 s, the items
sent 19 M → 16 M (`benchmarks/runtime.py`'s PageRank row).

The active set is the worklist: an owned vertex is active exactly while |residual| ≥ ε, so the kernel counts the
crossings of ±ε (in and out) instead of keeping flags; `qstate[2]` holds the count (what the termination count and
the worker read). The order is not FIFO. The kernel sweeps the vertex ids in increasing order from a cursor kept in
`qstate[0]` (wrapping around), processing the active vertices it meets: a Gauss-Seidel order. Against a FIFO queue
this (1) reads the CSR arrays and the ranks in memory order instead of jumping to wherever the queue points, and (2)
lets a vertex activated ahead of the cursor in the same sweep absorb what it received before it pushes, so it pushes
more mass at a time. Measured on one thread over the whole of delaunay 2^20 at the same ε: 0.71 s for the sweep
against 8.9 s for the FIFO queue, for the same 33.6 M pushes (rmat 18: 0.61 s against 2.4 s) — the queue's random
walk through 40 MB of arrays was the cost.
`flags`, `queue` and the deferred list are unused.

The run ends with every residual under ε in absolute value. The order of
additions depends on the interleaving: ranks agree with the sequential result to rounding, not bit for bit.
No soft priority: `threshold` and `promote` are unused.

`pagerank_residuals_chunk` (a chunk kernel for `apportion._chunked.run_chunked`): the residual b + α Pᵀ x − x of
unnormalised ranks x (b = `base` per vertex; the graph is undirected, so (Pᵀ x)_v = Σ_{u ∈ N(v)} share[u] x_u,
a pull) and its L1 norm per chunk: the driver's a-posteriori convergence test.
"""

from __future__ import annotations

import numpy as np
from numba import njit



@njit(cache=True, nogil=True)
def pagerank_step(indptr, indices, weights, owner, me, residual, flags, queue, qstate, deferred, dstate, in_v,
                  in_d, threshold, budget, promote, out_v, out_d, out_dest, counts, extra):
    n = weights.shape[0]
    epsilon = extra[n]
    list_limit = extra[n + 1]
    scan_every = extra[n + 2]
    scanning = extra[n + 3] != 0.0
    remote = extra[n + 4]
    pushed = 0
    left = 0
    active = qstate[2]
    for i in range(in_v.shape[0]):
        v = in_v[i]
        old = residual[v]
        r = old + in_d[i]
        residual[v] = r
        was = abs(old) >= epsilon
        now = abs(r) >= epsilon
        pushed += now > was
        left += was > now
    processed = 0
    n_out = 0
    edges = 0
    capacity = out_v.shape[0]
    v = qstate[0]
    active += pushed - left
    while processed < budget and active > 0:
        mass = residual[v]
        if abs(mass) >= epsilon and owner[v] == me:
            begin = indptr[v]
            end = indptr[v + 1]
            if scanning:
                if remote >= scan_every:
                    break  # time to scan and send (the cursor stays on v)
            elif n_out >= list_limit:
                scanning = True  # too many halo entries to list: from now on they are found by a scan
                remote = 0.0
            elif n_out + (end - begin) > capacity:
                break  # the out buffers are full: send them
            residual[v] = 0.0
            extra[v] += mass
            share = mass * weights[v]
            entered = 0
            dropped = 0
            e = begin
            while e < end:  # the row's arcs to this device's vertices come first (signed_targets)
                u = indices[e]
                if u < 0:
                    break
                old = residual[u]
                r = old + share
                residual[u] = r
                was = abs(old) >= epsilon
                now = abs(r) >= epsilon
                entered += now > was
                dropped += was > now
                e += 1
            if scanning:  # then its arcs to other devices' vertices
                remote += end - e
                for e in range(e, end):
                    residual[-indices[e] - 1] += share
            else:
                for e in range(e, end):
                    u = -indices[e] - 1
                    if residual[u] == 0.0:  # first touch since the last flush: one item per halo vertex
                        out_v[n_out] = u
                        n_out += 1
                    residual[u] += share
            pushed += entered
            left += dropped
            active += entered - dropped - 1
            processed += 1
            edges += end - begin
        v += 1
        if v == n:
            v = 0
    qstate[0] = v
    qstate[2] = active
    if not scanning:
        for i in range(n_out):  # flush the listed halo accumulators
            u = out_v[i]
            out_d[i] = residual[u]
            out_dest[i] = owner[u]
            residual[u] = 0.0
    elif remote >= scan_every or active == 0:
        n_out = 0  # scan: every other device's vertex with something accumulated, in id order
        for u in range(n):
            r = residual[u]
            if r != 0.0 and owner[u] != me:
                out_v[n_out] = u
                out_d[n_out] = r
                out_dest[n_out] = owner[u]
                residual[u] = 0.0
                n_out += 1
        scanning = False
        remote = 0.0
    else:
        n_out = 0  # hold the accumulators until the next scan (this device will be called again: active > 0)
    extra[n + 3] = 1.0 if scanning else 0.0
    extra[n + 4] = remote
    counts[0] = processed
    counts[1] = pushed
    counts[2] = in_v.shape[0] + left  # incoming items, and active vertices dropped under ε by a negative share
    counts[3] = n_out
    counts[4] = edges


@njit(cache=True, nogil=True)
def degree_start(indptr, indices, alpha, out):
    """out[v] = (1 − α)/n + α deg(v) |C| / (n vol(C)) for v in a component C with arcs (vol(C) = Σ deg over C),
    (1 − α)/n for an isolated vertex: the start of the push (pagerank.py). Components by union-find (path
    halving, the larger id hung under the smaller root), one pass over the arcs."""
    n = indptr.shape[0] - 1
    parent = np.arange(n)
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u <= v:
                continue
            a = v
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            b = u
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    size = np.zeros(n, dtype=np.int64)
    volume = np.zeros(n, dtype=np.int64)
    for v in range(n):  # a root is smaller than everything under it: parent[v] is final when v is reached
        root = parent[parent[v]]
        parent[v] = root
        size[root] += 1
        volume[root] += indptr[v + 1] - indptr[v]
    base = (1.0 - alpha) / n
    for v in range(n):
        degree = indptr[v + 1] - indptr[v]
        root = parent[v]
        if degree == 0:
            out[v] = base
        else:
            out[v] = base + alpha * degree * size[root] / (n * volume[root])


@njit(cache=True, nogil=True)
def signed_targets_chunk(first, stride, chunks, indptr, indices, owner, out):
    """Each row of out: v's arcs to vertices of v's owner as u, first, then its arcs to other devices' vertices as
    -u - 1 (chunks of the vertices)."""
    n = indptr.shape[0] - 1
    for chunk in range(first, chunks, stride):
        for v in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            mine = owner[v]
            front = indptr[v]
            back = indptr[v + 1] - 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if owner[u] == mine:
                    out[front] = u
                    front += 1
                else:
                    out[back] = -u - 1
                    back -= 1


@njit(cache=True, nogil=True)
def pagerank_residuals_chunk(first, stride, chunks, indptr, indices, share, ranks, base, out, norms):
    """Chunks first, first + stride, ... of `chunks` slices of the vertices: out[v] = base + Σ share[u] x_u − x_v
    (u over v's neighbours) and norms[chunk] = Σ |out[v]| over the chunk."""
    n = indptr.shape[0] - 1
    for chunk in range(first, chunks, stride):
        lo = chunk * n // chunks
        hi = (chunk + 1) * n // chunks
        total = 0.0
        for v in range(lo, hi):
            pulled = 0.0
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                pulled += share[u] * ranks[u]
            r = base + pulled - ranks[v]
            out[v] = r
            total += abs(r)
        norms[chunk] = total
