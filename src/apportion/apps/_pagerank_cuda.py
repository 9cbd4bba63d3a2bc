"""numba-cuda PageRank (reference: `pagerank.pagerank_reference`, the power iteration): push-style power
iteration with atomics, on one CUDA device.

Per iteration one thread per vertex u adds alpha * rank[u] / deg(u) to each neighbour's next rank with
`atomic.add` (a vertex without arcs adds its rank to a dangling sum instead, also atomically); a second launch
finishes every vertex (the teleport and dangling share), sums the L1 change atomically and clears the sums. The
host loop reads only that change. Float atomics add in no fixed order, so results equal the reference to
rounding, not bit for bit.
Imported only when a CUDA device runs it (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _push(indptr, indices, ranks, alpha, spread, sums):
    u = cuda.grid(1)
    if u >= ranks.shape[0]:
        return
    degree = indptr[u + 1] - indptr[u]
    if degree == 0:
        cuda.atomic.add(sums, 0, ranks[u])
        return
    share = alpha * ranks[u] / degree
    for e in range(indptr[u], indptr[u + 1]):
        cuda.atomic.add(spread, indices[e], share)


@cuda.jit(cache=False)
def _finish(ranks, spread, alpha, base_sums, sums):
    v = cuda.grid(1)
    if v >= ranks.shape[0]:
        return
    n = ranks.shape[0]
    updated = spread[v] + (alpha * base_sums[0] + 1.0 - alpha) / n
    cuda.atomic.add(sums, 1, abs(updated - ranks[v]))
    ranks[v] = updated
    spread[v] = 0.0


def pagerank_cuda(indptr, indices, alpha, tolerance, *, stream, max_iterations=10000):
    """PageRank (teleport 1 - alpha, dangling mass spread uniformly), iterated until the L1 change is under
    `tolerance`, normalised to sum 1. Returns a float64 NumPy array."""
    n = indptr.shape[0] - 1
    if n == 0:
        return np.zeros(0)
    ranks = cuda.to_device(np.full(n, 1.0 / n), stream=stream)
    spread = cuda.to_device(np.zeros(n), stream=stream)
    blocks = (n + BLOCK - 1) // BLOCK
    for _ in range(max_iterations):
        sums = cuda.to_device(np.zeros(2), stream=stream)  # [dangling rank, L1 change]
        _push[blocks, BLOCK, stream](indptr, indices, ranks, alpha, spread, sums)
        _finish[blocks, BLOCK, stream](ranks, spread, alpha, sums, sums)
        if sums.copy_to_host(stream=stream)[1] < tolerance:
            break
    host = ranks.copy_to_host(stream=stream)
    stream.synchronize()
    return host / host.sum()
