"""Topology-driven connected components on a CUDA device (seed 003 §5.1.4): the device's union-find forest stays
on the GPU while edge segments arrive, one thread per edge hooks its endpoints' trees.

The forest is the CPU's (`_cc_kernels.forest_link`): a root is its own parent and every other vertex points to a
smaller id, so a root is its tree's least vertex id. A thread finds both roots (halving the paths it walks: a
vertex is pointed at its grandparent, still an ancestor with a smaller id, so concurrent walks stay valid), and
hooks the larger root under the smaller with an atomic compare-and-swap on the larger root's parent; when
another thread hooked that root first, it looks again from the new roots. Every edge ends with its endpoints in
one tree, so the forest after all segments is the same partition the CPU kernel builds (the shapes of the trees
may differ; their roots — the least ids — do not), and the host merges the devices' forests as before.

Imported only when a CUDA device runs topology-driven CC (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(device=True)
def _root(parent, v):
    while True:
        p = parent[v]
        if p == v:
            return v
        grandparent = parent[p]
        if grandparent != p:
            parent[v] = grandparent  # path halving: an ancestor with a smaller id
        v = grandparent


@cuda.jit(cache=False)
def _hook(parent, sources, targets):
    i = cuda.grid(1)
    if i < sources.shape[0]:
        u = sources[i]
        v = targets[i]
        while True:
            ru = _root(parent, u)
            rv = _root(parent, v)
            if ru == rv:
                break
            high = max(ru, rv)
            low = min(ru, rv)
            if cuda.atomic.cas(parent, high, high, low) == high:
                break


class DeviceForest:
    """One device's union-find forest over n vertices, resident on the CUDA device `device` (every id its own
    root at first). `download()` returns it as a host array."""

    def __init__(self, device, n: int):
        self.device = device
        with cuda.gpus[device.index]:
            self.parent = cuda.to_device(np.arange(max(n, 1), dtype=np.int64))
        self.n = n

    def download(self) -> np.ndarray:
        with cuda.gpus[self.device.index]:
            return self.parent.copy_to_host()[:self.n]


def hook_into(parent, sources, targets, stream) -> None:
    """Hook every edge (sources[i], targets[i]) (device arrays) into the forest `parent` (a device array)."""
    count = sources.shape[0]
    if count:
        threads = min(BLOCK, 32 * ((count + 31) // 32))
        _hook[(count + threads - 1) // threads, threads, stream](parent, sources, targets)


def hook_segment_cuda(forest: DeviceForest, sources, targets, *, stream):
    """The CUDA twin of `hook_segment`: hook every edge of one segment (device arrays) into the resident forest."""
    hook_into(forest.parent, sources, targets, stream)
