"""Numba kernels of the heterogeneous connected components (seed 004 §III, Algorithm 1; see split_cc.py).

Every kernel works on the whole graph's CSR and a vertex range [lo, hi): an edge counts as internal when both
ends lie in the range, so Phase I (partitioning) costs nothing but the range bounds. Each kernel returns its
operation count (vertices and edges it touched, pointer jumps), which is what a simulated device's time is
made of. Each side also records the cross edges it sees (the other end outside its range, and larger than the
vertex scanned, so that every undirected cross edge is recorded once, by its smaller end's side). With the GPU
side holding the id suffix, all cross edges are recorded by the CPU side and the GPU side's list stays empty;
its recording is kept so that the kernels do not depend on which side holds the prefix.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def dfs_parts(indptr, indices, bounds, labels, stack, cross, part_ops):
    """CPU side: depth-first search on each part [bounds[p], bounds[p+1]) alone (one part per CPU thread,
    Algorithm 1 line 6). labels[v] = the smallest vertex of v's component inside its part. Cross edges (the
    other end outside v's part, and larger than v) are written as pairs to `cross`; returns their count.
    part_ops[p] = vertices + edges part p touched."""
    count = 0
    for p in range(bounds.shape[0] - 1):
        lo = bounds[p]
        hi = bounds[p + 1]
        ops = 0
        for v in range(lo, hi):
            labels[v] = -1
        for root in range(lo, hi):
            if labels[root] >= 0:
                continue
            labels[root] = root
            stack[0] = root
            top = 1
            while top > 0:
                top -= 1
                v = stack[top]
                ops += 1
                for e in range(indptr[v], indptr[v + 1]):
                    u = indices[e]
                    ops += 1
                    if u >= lo and u < hi:
                        if labels[u] < 0:
                            labels[u] = root
                            stack[top] = u
                            top += 1
                    elif u > v:
                        cross[count, 0] = v
                        cross[count, 1] = u
                        count += 1
        part_ops[p] = ops
    return count


@njit(cache=True, nogil=True)
def shiloach_vishkin(indptr, indices, lo, hi, parent, cross, counters):
    """GPU side: Shiloach–Vishkin style hooking and pointer jumping on [lo, hi), written as the data-parallel
    rounds a GPU runs (every edge hooks the larger of its two roots onto the smaller; then every vertex jumps to
    its root), executed here one element after another. parent[v] = the smallest vertex of v's component inside
    the range. Cross edges go to `cross` during the first round; returns their count.
    counters[0] = operations (edge visits, vertex visits, pointer jumps), counters[1] = rounds."""
    for v in range(lo, hi):
        parent[v] = v
    ops = 0
    rounds = 0
    count = 0
    changed = True
    while changed:
        changed = False
        rounds += 1
        for v in range(lo, hi):
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                ops += 1
                if u < lo or u >= hi:
                    if rounds == 1 and u > v:
                        cross[count, 0] = v
                        cross[count, 1] = u
                        count += 1
                    continue
                if u <= v:
                    continue
                root_v = parent[v]
                root_u = parent[u]
                if root_v == root_u:
                    continue
                high = root_v if root_v > root_u else root_u
                low = root_u if root_v > root_u else root_v
                if low < parent[high]:
                    parent[high] = low
                    changed = True
        for v in range(lo, hi):
            root = parent[v]
            ops += 1
            while parent[root] != root:
                root = parent[root]
                ops += 1
            parent[v] = root
    counters[0] = ops
    counters[1] = rounds
    return count


@njit(cache=True, nogil=True)
def _find(parent, v):
    root = v
    while parent[root] != root:
        root = parent[root]
    while parent[v] != root:  # path compression
        following = parent[v]
        parent[v] = root
        v = following
    return root


@njit(cache=True, nogil=True)
def merge_cross_edges(labels, cross_a, count_a, cross_b, count_b):
    """Phase II line 9: union the components found by the sides along the cross edges, then point every vertex
    at its component's smallest vertex. `labels` holds each side's labels (every label is a root of its own).
    Returns the operations (cross edges + vertices)."""
    for which in range(2):
        cross = cross_a if which == 0 else cross_b
        count = count_a if which == 0 else count_b
        for i in range(count):
            a = _find(labels, cross[i, 0])
            b = _find(labels, cross[i, 1])
            if a < b:
                labels[b] = a
            elif b < a:
                labels[a] = b
    n = labels.shape[0]
    for v in range(n):
        labels[v] = _find(labels, v)
    return count_a + count_b + n
