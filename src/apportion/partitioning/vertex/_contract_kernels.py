"""Numba kernel of contraction: build the coarse graph from a fine graph and its fine-to-coarse map.

Seed 000 ch. 5.2.2 (segmented sort + flag + prefix sum), written so the index bugs of the thesis's Algorithm
5.3 cannot occur: members are grouped by coarse id with a counting sort, each coarse vertex gathers its
members' relabelled neighbours into its own segment, merging duplicates on the fly through a per-worker
marker array (METIS's and KaMinPar's dense "rating map", in place of the thesis's sort of the raw list) and
dropping self-loops; the merged segment is sorted, and a prefix sum compacts the segments into CSR.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._chunked import run_chunked


#: ranges up to SHORT_SEGMENT // 4 long are insertion-sorted
SHORT_SEGMENT = 64


@njit(cache=True, nogil=True)
def _insertion_sort_segment(ids, weights, lo, hi):
    """Sort ids[lo:hi] ascending, carrying weights along (for short segments)."""
    for i in range(lo + 1, hi):
        a = ids[i]
        w = weights[i]
        j = i - 1
        while j >= lo and ids[j] > a:
            ids[j + 1] = ids[j]
            weights[j + 1] = weights[j]
            j -= 1
        ids[j + 1] = a
        weights[j + 1] = w


@njit(cache=True, nogil=True)
def _swap(ids, weights, i, j):
    a = ids[i]
    ids[i] = ids[j]
    ids[j] = a
    w = weights[i]
    weights[i] = weights[j]
    weights[j] = w


@njit(cache=True, nogil=True)
def _sort_segment(ids, weights, lo, hi):
    """Sort ids[lo:hi] ascending (the ids are distinct), carrying weights along: an iterative quicksort
    (median-of-three pivot, the larger side deferred on a small stack) that hands short ranges to insertion
    sort. Hand-written on purpose: np.argsort compiled a quicksort per call site and made contraction the
    slowest kernel to compile."""
    if hi - lo <= SHORT_SEGMENT // 4:
        _insertion_sort_segment(ids, weights, lo, hi)
        return
    stack = np.empty(128, dtype=np.int64)
    top = 0
    while True:
        while hi - lo > SHORT_SEGMENT // 4:
            mid = lo + (hi - lo) // 2
            last = hi - 1
            if ids[mid] < ids[lo]:
                _swap(ids, weights, mid, lo)
            if ids[last] < ids[lo]:
                _swap(ids, weights, last, lo)
            if ids[last] < ids[mid]:
                _swap(ids, weights, last, mid)
            pivot = ids[mid]
            i = lo
            j = last
            while i <= j:
                while ids[i] < pivot:
                    i += 1
                while ids[j] > pivot:
                    j -= 1
                if i <= j:
                    _swap(ids, weights, i, j)
                    i += 1
                    j -= 1
            # [lo, j] < pivot-ish <= [i, hi): recurse into the smaller side, defer the larger
            if j + 1 - lo < hi - i:
                stack[top] = i
                stack[top + 1] = hi
                hi = j + 1
            else:
                stack[top] = lo
                stack[top + 1] = j + 1
                lo = i
            top += 2
        _insertion_sort_segment(ids, weights, lo, hi)
        if top == 0:
            return
        top -= 2
        lo = stack[top]
        hi = stack[top + 1]


@njit(cache=True, nogil=True)
def _group_members(indptr, vertex_weights, cmap, nc):
    """Counting sort of the fine vertices by coarse id: (member_ptr, members, coarse vertex weights, bound),
    bound[c] = where coarse vertex c's segment of gathered neighbours starts (its members' degree sum)."""
    n = indptr.shape[0] - 1
    ncon = vertex_weights.shape[1]
    member_ptr = np.zeros(nc + 1, dtype=np.int64)
    for v in range(n):
        member_ptr[cmap[v] + 1] += 1
    for c in range(nc):
        member_ptr[c + 1] += member_ptr[c]
    fill = member_ptr[:-1].copy()
    members = np.empty(n, dtype=np.int32)
    coarse_vw = np.zeros((nc, ncon), dtype=np.int64)
    bound = np.zeros(nc + 1, dtype=np.int64)
    for v in range(n):
        c = cmap[v]
        members[fill[c]] = v
        fill[c] += 1
        bound[c + 1] += indptr[v + 1] - indptr[v]
        for j in range(ncon):
            coarse_vw[c, j] += vertex_weights[v, j]
    for c in range(nc):
        bound[c + 1] += bound[c]
    return member_ptr, members, coarse_vw, bound


@njit(cache=True, nogil=True)
def _merge_range(indptr, indices, edge_weights, cmap, first, last, mark, member_ptr, members, bound, scratch_ids,
                 scratch_w, degree):
    """Coarse vertices first..last-1: gather the members' relabelled neighbours into scratch[bound[c]:],
    merging duplicates through `mark` (all -1 on entry and exit; a neighbour's position in the segment) and
    dropping self-loops; sort each merged segment and write its length to degree[c + 1]."""
    for c in range(first, last):
        lo = bound[c]
        pos = lo
        for i in range(member_ptr[c], member_ptr[c + 1]):
            v = members[i]
            for e in range(indptr[v], indptr[v + 1]):
                a = cmap[indices[e]]
                if a == c:
                    continue
                at = mark[a]
                if at < 0:
                    mark[a] = pos
                    scratch_ids[pos] = a
                    scratch_w[pos] = edge_weights[e]
                    pos += 1
                else:
                    scratch_w[at] += edge_weights[e]
        for i in range(lo, pos):
            mark[scratch_ids[i]] = -1
        if pos - lo > 1:
            _sort_segment(scratch_ids, scratch_w, lo, pos)
        degree[c + 1] = pos - lo


@njit(cache=True, nogil=True)
def _merge_chunks(first, stride, chunks, indptr, indices, edge_weights, cmap, nc, member_ptr, members, bound,
                  scratch_ids, scratch_w, degree):
    """The parallel step, for chunks first, first + stride, ... of `chunks` static slices of the coarse vertices
    (`apportion._chunked`): each slice is merged by `_merge_range` with this call's marker array (all -1
    again after every segment)."""
    mark = np.full(nc, -1, dtype=np.int64)
    for t in range(first, chunks, stride):
        _merge_range(indptr, indices, edge_weights, cmap, (nc * t) // chunks, (nc * (t + 1)) // chunks, mark,
                     member_ptr, members, bound, scratch_ids, scratch_w, degree)


@njit(cache=True, nogil=True)
def _compact(nc, bound, scratch_ids, scratch_w, degree):
    """Prefix sum of the merged segment lengths and the copy of the segments into CSR arrays."""
    for c in range(nc):
        degree[c + 1] += degree[c]
    coarse_indices = np.empty(degree[nc], dtype=np.int32)
    coarse_w = np.empty(degree[nc], dtype=np.int64)
    for c in range(nc):
        src = bound[c]
        for i in range(degree[c], degree[c + 1]):
            coarse_indices[i] = scratch_ids[src]
            coarse_w[i] = scratch_w[src]
            src += 1
    return coarse_indices, coarse_w


#: graphs with fewer adjacency entries are contracted serially
PARALLEL_MIN_ENTRIES = 1 << 16


def contract(indptr, indices, edge_weights, vertex_weights, cmap, nc, chunks):
    """The coarse graph of (indptr, indices, edge_weights, vertex_weights) under cmap (values in [0, nc)).

    Members are grouped by coarse id with a counting sort; `chunks` static slices of the coarse vertices are
    built in parallel, each thread with its own marker array over the coarse ids (the position of a neighbour
    in the segment being built), so duplicates merge in one pass without sorting the raw edge list; each merged
    segment is then sorted. The result does not depend on `chunks`.

    Returns (coarse_indptr int64, coarse_indices int32, coarse_edge_weights int64, coarse_vertex_weights
    int64 (nc, ncon)). Coarse neighbour lists are sorted; the coarse graph is simple and symmetric.
    """
    nc = int(nc)
    member_ptr, members, coarse_vw, bound = _group_members(indptr, vertex_weights, cmap, nc)
    scratch_ids = np.empty(int(bound[nc]), dtype=np.int32)
    scratch_w = np.empty(int(bound[nc]), dtype=np.int64)
    degree = np.zeros(nc + 1, dtype=np.int64)
    if indptr[-1] < PARALLEL_MIN_ENTRIES:  # small graphs (recursive bisection's many subgraphs): one thread
        chunks = 1
    run_chunked(_merge_chunks, chunks, indptr, indices, edge_weights, cmap, nc, member_ptr, members, bound,
                scratch_ids, scratch_w, degree)
    coarse_indices, coarse_w = _compact(nc, bound, scratch_ids, scratch_w, degree)
    return degree, coarse_indices, coarse_w, coarse_vw
