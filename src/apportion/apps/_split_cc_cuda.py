"""numba-cuda Shiloach–Vishkin on a vertex range: the GPU side of the heterogeneous connected components
(seed 004 §III, Algorithm 1), the CUDA twin of `_split_cc_kernels.shiloach_vishkin`.

The rounds the CPU kernel runs one element after another run here one thread per vertex of [lo, hi):

1. every vertex is its own parent; the cross edges (other end outside the range and larger) are written out
   through an atomic counter (in no particular order: the merge does not care);
2. hooking: for each internal edge (v, u), u > v, whose ends have different parents (roots, after the last
   jump), the larger root is lowered to the smaller with `atomic.min` — a root's parent only falls, and a
   lowering marks the round as changed;
3. pointer jumping: every vertex follows its parents to its root (parents are always smaller ids, so the walk
   ends whatever other threads write meanwhile) and points there.

The host repeats 2–3 until a round changes nothing: parent[v] is then the smallest vertex of v's component
inside the range, as on the CPU. counters[0] counts the operations (edge visits, vertex visits, jumps),
counters[1] the rounds. Imported only when a CUDA device runs the GPU side (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.apps._cc_hook_cuda import hook_into

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _start(indptr, indices, lo, hi, parent, cross, cross_count, counters):
    t = cuda.grid(1)
    v = lo + t
    if v < hi:
        parent[v] = v
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if (u < lo or u >= hi) and u > v:
                slot = cuda.atomic.add(cross_count, 0, 1)
                cross[slot, 0] = v
                cross[slot, 1] = u


@cuda.jit(cache=False)
def _hook(indptr, indices, lo, hi, parent, changed, counters):
    t = cuda.grid(1)
    v = lo + t
    if v < hi:
        begin = indptr[v]
        end = indptr[v + 1]
        for e in range(begin, end):
            u = indices[e]
            if u <= v or u >= hi:  # each internal edge once, from its smaller end
                continue
            root_v = parent[v]
            root_u = parent[u]
            if root_v != root_u:
                high = max(root_v, root_u)
                low = min(root_v, root_u)
                if low < cuda.atomic.min(parent, high, low):
                    changed[0] = 1
        cuda.atomic.add(counters, 0, end - begin)


@cuda.jit(cache=False)
def _jump(lo, hi, parent, counters):
    t = cuda.grid(1)
    v = lo + t
    if v < hi:
        root = parent[v]
        jumps = 1
        while parent[root] != root:
            root = parent[root]
            jumps += 1
        parent[v] = root
        cuda.atomic.add(counters, 0, jumps)


def _launch(count: int, stream) -> tuple:
    threads = min(BLOCK, 32 * ((count + 31) // 32)) or 32
    return (count + threads - 1) // threads, threads, stream


def shiloach_vishkin_cuda(indptr, indices, lo, hi, parent, cross, counters, *, stream):
    """The GPU side on device arrays: labels parent[lo:hi], writes the cross edges to `cross` and the
    operation and round counts to `counters`. Returns (cross edge count, parent, cross, counters) — the arrays
    for the host to copy back (parent's entries outside [lo, hi) are as they came in)."""
    lo, hi = int(lo), int(hi)
    size = hi - lo
    cross_count = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    changed = cuda.to_device(np.zeros(1, dtype=np.int32), stream=stream)
    counters.copy_to_device(np.zeros(counters.shape[0], dtype=counters.dtype), stream=stream)
    rounds = 0
    if size > 0:
        _start[_launch(size, stream)](indptr, indices, lo, hi, parent, cross, cross_count, counters)
        while True:
            rounds += 1
            changed.copy_to_device(np.zeros(1, dtype=np.int32), stream=stream)
            _hook[_launch(size, stream)](indptr, indices, lo, hi, parent, changed, counters)
            _jump[_launch(size, stream)](lo, hi, parent, counters)
            if not changed.copy_to_host(stream=stream)[0]:
                break
    host_counters = counters.copy_to_host(stream=stream)
    host_counters[1] = rounds
    counters.copy_to_device(host_counters, stream=stream)
    return int(cross_count.copy_to_host(stream=stream)[0]), parent, cross, counters


def merge_cross_edges_cuda(labels, cross_a, count_a, cross_b, count_b, *, stream):
    """Phase II line 9 on the device (the CUDA twin of `merge_cross_edges`): the sides' labels are a union-find
    forest (every label is its own root and no larger than the vertices pointing at it), so the cross edges are
    hooked into it by `_cc_hook_cuda`'s kernel and every vertex then jumps to its root — the smallest vertex of
    its component. Returns (operations, labels)."""
    n = labels.shape[0]
    for cross, count in ((cross_a, int(count_a)), (cross_b, int(count_b))):
        if count:
            hook_into(labels, cross[:count, 0], cross[:count, 1], stream)
    if n:
        jumps = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
        _jump[_launch(n, stream)](0, n, labels, jumps)
    return int(count_a) + int(count_b) + n, labels
