"""numba-cuda SSSP (the GPU counterpart of the distributed SSSP; reference: Dijkstra): frontier-based
label-correcting relaxation with atomics, on one CUDA device.

One thread per frontier vertex relaxes its arcs with `atomic.min` on the neighbour's distance; a thread that
lowered a distance queues the neighbour for the next round unless it is queued already (an atomic
compare-and-swap on a per-vertex flag), at a slot reserved with an atomic add. Rounds repeat until no distance
falls: distances only decrease, so the fixpoint is the shortest-path distances whatever the order.
Imported only when a CUDA device runs it (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _relax(indptr, indices, weights, dist, queued, frontier, size, next_frontier, next_size):
    t = cuda.grid(1)
    if t >= size:
        return
    v = frontier[t]
    base = dist[v]
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        candidate = base + weights[e]
        if candidate < dist[u] and candidate < cuda.atomic.min(dist, u, candidate):
            if cuda.atomic.cas(queued, u, 0, 1) == 0:
                next_frontier[cuda.atomic.add(next_size, 0, 1)] = u


@cuda.jit(cache=False)
def _unqueue(queued, frontier, size):
    t = cuda.grid(1)
    if t < size:
        queued[frontier[t]] = 0


def sssp_distances_cuda(indptr, indices, weights, source, *, stream):
    """Distances from `source` (inf when unreachable) over arcs with non-negative float64 `weights` (device
    arrays). Returns a float64 device array."""
    n = indptr.shape[0] - 1
    host_dist = np.full(n, np.inf)
    host_dist[source] = 0.0
    dist = cuda.to_device(host_dist, stream=stream)
    queued = cuda.to_device(np.zeros(n, dtype=np.int64), stream=stream)
    frontier = cuda.to_device(np.array([source] + [0] * max(n - 1, 0), dtype=np.int64), stream=stream)
    next_frontier = cuda.device_array(max(n, 1), dtype=np.int64, stream=stream)
    size = 1
    while size > 0:
        next_size = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        _relax[(size + BLOCK - 1) // BLOCK, BLOCK, stream](indptr, indices, weights, dist, queued, frontier, size,
                                                           next_frontier, next_size)
        size = int(next_size.copy_to_host(stream=stream)[0])
        frontier, next_frontier = next_frontier, frontier
        if size:
            _unqueue[(size + BLOCK - 1) // BLOCK, BLOCK, stream](queued, frontier, size)
    return dist
