"""numba-cuda BFS (the GPU counterpart of _bfs_kernels.bfs_levels_serial): level-synchronous frontier
expansion with atomics, on one CUDA device.

One thread per frontier vertex scans its arcs; a neighbour is claimed for the next level by an atomic
compare-and-swap of its level (-1 -> level + 1), so exactly one thread claims it, and the claimer appends it to
the next frontier at a slot reserved with an atomic add. The host loop only reads the next frontier's size.
Imported only when a CUDA device runs it (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _expand(indptr, indices, levels, frontier, size, level, next_frontier, next_size):
    t = cuda.grid(1)
    if t >= size:
        return
    v = frontier[t]
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        if levels[u] == -1 and cuda.atomic.cas(levels, u, -1, level + 1) == -1:
            next_frontier[cuda.atomic.add(next_size, 0, 1)] = u


def bfs_levels_cuda(indptr, indices, source, *, stream):
    """Levels (hops) from `source` on the graph (indptr, indices) as device arrays; -1 when unreachable.
    Returns an int64 device array (the CUDA device copies it back)."""
    n = indptr.shape[0] - 1
    host_levels = np.full(n, -1, dtype=np.int64)
    host_levels[source] = 0
    levels = cuda.to_device(host_levels, stream=stream)
    frontier = cuda.to_device(np.array([source] + [0] * max(n - 1, 0), dtype=np.int64), stream=stream)
    next_frontier = cuda.device_array(max(n, 1), dtype=np.int64, stream=stream)
    size, level = 1, 0
    while size > 0:
        next_size = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        _expand[(size + BLOCK - 1) // BLOCK, BLOCK, stream](indptr, indices, levels, frontier, size, level,
                                                            next_frontier, next_size)
        size = int(next_size.copy_to_host(stream=stream)[0])
        frontier, next_frontier = next_frontier, frontier
        level += 1
    return levels
