"""numba-cuda connected components (reference: SciPy's components labelled by their least vertex id): min-label
propagation with atomics, on one CUDA device.

Every vertex starts with its own id as label; one thread per vertex of the frontier (at first all vertices)
pushes its label to its neighbours with `atomic.min`; a neighbour whose label fell joins the next frontier
(a compare-and-swap on a per-vertex flag keeps it there once). Labels only fall, so the fixpoint labels every
vertex with the least id of its component (the graph is symmetric).
Imported only when a CUDA device runs it (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _push_labels(indptr, indices, labels, queued, frontier, size, next_frontier, next_size):
    t = cuda.grid(1)
    if t >= size:
        return
    v = frontier[t]
    label = labels[v]
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        if label < labels[u] and label < cuda.atomic.min(labels, u, label):
            if cuda.atomic.cas(queued, u, 0, 1) == 0:
                next_frontier[cuda.atomic.add(next_size, 0, 1)] = u


@cuda.jit(cache=False)
def _unqueue(queued, frontier, size):
    t = cuda.grid(1)
    if t < size:
        queued[frontier[t]] = 0


def cc_labels_cuda(indptr, indices, *, stream):
    """Component labels (the least vertex id of each component) of the symmetric graph (indptr, indices) as
    device arrays. Returns an int64 device array."""
    n = indptr.shape[0] - 1
    labels = cuda.to_device(np.arange(n, dtype=np.int64), stream=stream)
    queued = cuda.to_device(np.zeros(n, dtype=np.int64), stream=stream)
    frontier = cuda.to_device(np.arange(max(n, 1), dtype=np.int64), stream=stream)
    next_frontier = cuda.device_array(max(n, 1), dtype=np.int64, stream=stream)
    size = n
    while size > 0:
        next_size = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        _push_labels[(size + BLOCK - 1) // BLOCK, BLOCK, stream](indptr, indices, labels, queued, frontier, size,
                                                                 next_frontier, next_size)
        size = int(next_size.copy_to_host(stream=stream)[0])
        frontier, next_frontier = next_frontier, frontier
        if size:
            _unqueue[(size + BLOCK - 1) // BLOCK, BLOCK, stream](queued, frontier, size)
    return labels
