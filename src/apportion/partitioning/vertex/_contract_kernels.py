"""Numba kernel of contraction: build the coarse graph from a fine graph and its fine-to-coarse map.

Seed 000 ch. 5.2.2 (segmented sort + flag + prefix sum), written so the index bugs of the thesis's Algorithm
5.3 cannot occur: members are grouped by coarse id with a counting sort, each coarse vertex gathers its
members' relabelled neighbours into its own row, merging duplicates on the fly through a per-worker
marker array (METIS's and KaMinPar's dense "rating map", in place of the thesis's sort of the raw list) and
dropping self-loops; a counting pass and a prefix sum place the rows first, so they are written in place,
and each row is put in increasing order (long rows by a scan of the marker, short ones by sorting).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._chunked import run_chunked
from apportion._kernels.prefetch import ARCS_AHEAD, prefetch


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
    """Counting sort of the fine vertices by coarse id: (member_ptr, members, coarse vertex weights)."""
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
    for v in range(n):
        c = cmap[v]
        members[fill[c]] = v
        fill[c] += 1
        for j in range(ncon):
            coarse_vw[c, j] += vertex_weights[v, j]
    return member_ptr, members, coarse_vw


#: the gathers read each member's row (members of a cluster lie anywhere in the graph) and the coarse id of every
#: neighbour (a random read of cmap): the row of the member PREFETCH_MEMBER places on and the coarse id of the
#: neighbour `ARCS_AHEAD` arcs on are prefetched (`_kernels.prefetch`)
PREFETCH_MEMBER = 4


@njit(cache=True, nogil=True)
def _count_range(indptr, indices, cmap, first, last, mark, member_ptr, members, degree):
    """Coarse vertices first..last-1: the number of distinct coarse neighbours (self-loops dropped) of each,
    into degree[c + 1]; `mark[a] == c` once neighbour a of c has been counted (no reset needed)."""
    m = indices.shape[0]
    n = members.shape[0]
    for c in range(first, last):
        count = 0
        for i in range(member_ptr[c], member_ptr[c + 1]):
            if i + PREFETCH_MEMBER < n:  # the rows of the members a few places on (any cluster's)
                prefetch(indices, indptr[members[i + PREFETCH_MEMBER]])
            v = members[i]
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    prefetch(cmap, indices[e + ARCS_AHEAD])
                a = cmap[indices[e]]
                if a != c and mark[a] != c:
                    mark[a] = c
                    count += 1
        degree[c + 1] = count


#: rows of at least this many neighbours that the scan does not take are radix-sorted (ids minus the row's
#: smallest, digits of at most RADIX_BITS bits); shorter ones go to the quicksort
RADIX_MIN_LENGTH = 64
RADIX_BITS = 11


@njit(cache=True, nogil=True)
def _radix_sort_segment(ids, weights, lo, hi, smallest, span, tmp_ids, tmp_w, counts):
    """Sort ids[lo:hi] ascending (distinct ids in [smallest, smallest + span]), carrying weights along: an LSD
    radix sort with as few digits of at most RADIX_BITS bits as cover the span, through tmp_ids / tmp_w (each
    at least hi - lo long) and counts (at least 2^RADIX_BITS)."""
    length = hi - lo
    bits = 1
    while (1 << bits) <= span:
        bits += 1
    passes = (bits + RADIX_BITS - 1) // RADIX_BITS
    digit = (bits + passes - 1) // passes
    buckets = 1 << digit
    in_place = True  # where the keys are now: the segment, or the scratch
    for p in range(passes):
        shift = p * digit
        for b in range(buckets):
            counts[b] = 0
        for i in range(length):
            key = ids[lo + i] if in_place else tmp_ids[i]
            counts[((key - smallest) >> shift) & (buckets - 1)] += 1
        start = 0
        for b in range(buckets):
            c = counts[b]
            counts[b] = start
            start += c
        if in_place:
            for i in range(length):
                key = ids[lo + i]
                d = ((key - smallest) >> shift) & (buckets - 1)
                tmp_ids[counts[d]] = key
                tmp_w[counts[d]] = weights[lo + i]
                counts[d] += 1
        else:
            for i in range(length):
                key = tmp_ids[i]
                d = ((key - smallest) >> shift) & (buckets - 1)
                ids[lo + counts[d]] = key
                weights[lo + counts[d]] = tmp_w[i]
                counts[d] += 1
        in_place = not in_place
    if not in_place:
        for i in range(length):
            ids[lo + i] = tmp_ids[i]
            weights[lo + i] = tmp_w[i]


#: a row of L neighbours whose ids span R coarse ids is put in order by a scan of the marker over that span when
#: R < SCAN_PER_COMPARISON * L * log2(L) (a sequential read per id against a quicksort's data-dependent
#: comparisons and swaps); otherwise it is sorted. On heavy-tailed graphs the hubs' coarse rows hold thousands of
#: neighbours, and sorting the rows was half of the contraction (rmat 2^21's first level: 1.4 of 2.9 s)
SCAN_PER_COMPARISON = 8


@njit(cache=True, nogil=True)
def _merge_range(indptr, indices, edge_weights, cmap, first, last, mark, member_ptr, members, coarse_indptr,
                 coarse_indices, coarse_w, row_w, row_ids, counts):
    """Coarse vertices first..last-1: gather the members' relabelled neighbours into the coarse row
    coarse_indices[coarse_indptr[c]:], merging duplicates through `mark` (all -1 on entry and exit; a
    neighbour's offset in the row) and dropping self-loops; put each row in increasing order, long rows by a
    scan of `mark` over the row's id span, the others by a radix sort or (short rows) a quicksort (`row_w`,
    `row_ids`: scratch as long as the longest row; `counts`: the radix sort's buckets)."""
    m = indices.shape[0]
    n = members.shape[0]
    for c in range(first, last):
        lo = coarse_indptr[c]
        pos = lo
        smallest = mark.shape[0]
        largest = -1
        for i in range(member_ptr[c], member_ptr[c + 1]):
            if i + PREFETCH_MEMBER < n:
                prefetch(indices, indptr[members[i + PREFETCH_MEMBER]])
            v = members[i]
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    prefetch(cmap, indices[e + ARCS_AHEAD])
                a = cmap[indices[e]]
                if a == c:
                    continue
                at = mark[a]
                if at < 0:
                    mark[a] = pos - lo
                    coarse_indices[pos] = a
                    coarse_w[pos] = edge_weights[e]
                    pos += 1
                    smallest = min(smallest, a)
                    largest = max(largest, a)
                else:
                    coarse_w[lo + at] += edge_weights[e]
        length = pos - lo
        if length > 16 and largest - smallest < SCAN_PER_COMPARISON * length * np.log2(length):
            for i in range(length):
                row_w[i] = coarse_w[lo + i]
            at = lo
            for a in range(smallest, largest + 1):
                j = mark[a]
                if j >= 0:
                    coarse_indices[at] = a
                    coarse_w[at] = row_w[j]
                    mark[a] = -1
                    at += 1
            continue
        for i in range(lo, pos):
            mark[coarse_indices[i]] = -1
        if length >= RADIX_MIN_LENGTH:
            _radix_sort_segment(coarse_indices, coarse_w, lo, pos, smallest, largest - smallest, row_ids, row_w,
                                counts)
        elif length > 1:
            _sort_segment(coarse_indices, coarse_w, lo, pos)


@njit(cache=True, nogil=True)
def _count_chunks(first, stride, chunks, indptr, indices, cmap, nc, member_ptr, members, degree):
    """Pass 1, for chunks first, first + stride, ... of `chunks` static slices of the coarse vertices
    (`apportion._chunked`): each slice's row lengths, with this call's marker array."""
    mark = np.full(nc, -1, dtype=np.int32)
    for t in range(first, chunks, stride):
        _count_range(indptr, indices, cmap, (nc * t) // chunks, (nc * (t + 1)) // chunks, mark, member_ptr,
                     members, degree)


@njit(cache=True, nogil=True)
def _merge_chunks(first, stride, chunks, indptr, indices, edge_weights, cmap, nc, member_ptr, members,
                  coarse_indptr, coarse_indices, coarse_w):
    """Pass 2, the same slices as pass 1: each slice's rows merged by `_merge_range` with this call's marker
    array (all -1 again after every row)."""
    mark = np.full(nc, -1, dtype=np.int32)
    longest = 0
    for t in range(first, chunks, stride):
        for c in range((nc * t) // chunks, (nc * (t + 1)) // chunks):
            longest = max(longest, coarse_indptr[c + 1] - coarse_indptr[c])
    row_w = np.empty(longest, dtype=coarse_w.dtype)
    row_ids = np.empty(longest, dtype=coarse_indices.dtype)
    counts = np.empty(1 << RADIX_BITS, dtype=np.int64)
    for t in range(first, chunks, stride):
        _merge_range(indptr, indices, edge_weights, cmap, (nc * t) // chunks, (nc * (t + 1)) // chunks, mark,
                     member_ptr, members, coarse_indptr, coarse_indices, coarse_w, row_w, row_ids, counts)


@njit(cache=True, nogil=True)
def relabel_chunks(first, stride, chunks, indices, new_id, out):
    """out[e] = new_id[indices[e]] for chunks first, first + stride, ... of `chunks` static slices of the arcs
    (`apportion._chunked`)."""
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        for e in range((m * t) // chunks, (m * (t + 1)) // chunks):
            out[e] = new_id[indices[e]]


@njit(cache=True, nogil=True)
def induced_count_chunks(first, stride, chunks, bounds, indptr, indices, vertices, new_id, degree):
    """Pass 1 of an induced subgraph on every thread, for chunks first, first + stride, ... of the ranges
    bounds[t]:bounds[t + 1] of `vertices` (`apportion._chunked`): degree[i] = the arcs of vertices[i] whose other
    end is kept (new_id >= 0)."""
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        for i in range(bounds[t], bounds[t + 1]):
            v = vertices[i]
            d = 0
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    prefetch(new_id, indices[e + ARCS_AHEAD])
                d += new_id[indices[e]] >= 0
            degree[i] = d


@njit(cache=True, nogil=True)
def induced_fill_chunks(first, stride, chunks, bounds, indptr, indices, edge_weights, vertices, new_id, sub_ptr,
                        sub_idx, sub_w, copy_edge_weights):
    """Pass 2, the same ranges: the kept arcs of vertices[i], relabelled, at sub_ptr[i] (their weights too with
    `copy_edge_weights`)."""
    m = indices.shape[0]
    for t in range(first, chunks, stride):
        for i in range(bounds[t], bounds[t + 1]):
            v = vertices[i]
            j = sub_ptr[i]
            for e in range(indptr[v], indptr[v + 1]):
                if e + ARCS_AHEAD < m:
                    prefetch(new_id, indices[e + ARCS_AHEAD])
                a = new_id[indices[e]]
                if a >= 0:
                    sub_idx[j] = a
                    if copy_edge_weights:
                        sub_w[j] = edge_weights[e]
                    j += 1


#: graphs with fewer adjacency entries are contracted serially
PARALLEL_MIN_ENTRIES = 1 << 16


def contract(indptr, indices, edge_weights, vertex_weights, cmap, nc, chunks, weight_dtype):
    """The coarse graph of (indptr, indices, edge_weights, vertex_weights) under cmap (values in [0, nc)).

    Members are grouped by coarse id with a counting sort; then two passes over `chunks` static slices of the
    coarse vertices, in parallel, each thread with its own marker array over the coarse ids: the first counts
    each coarse vertex's distinct neighbours, a prefix sum makes the coarse row pointers, and the second
    gathers each row in place (the marker holds a neighbour's position in its row, so duplicates merge in one
    pass without sorting the raw edge list) and puts it in order (`_merge_range`). No scratch copy of the fine
    adjacency (12 bytes per arc before): the coarse arrays are the only new memory proportional to the edges.
    The result does not depend on `chunks`.

    Returns (coarse_indptr int64, coarse_indices int32, coarse_edge_weights of `weight_dtype` (the caller's
    choice: their total is at most the fine one), coarse_vertex_weights
    int64 (nc, ncon)). Coarse neighbour lists are sorted; the coarse graph is simple and symmetric.
    """
    nc = int(nc)
    member_ptr, members, coarse_vw = _group_members(indptr, vertex_weights, cmap, nc)
    degree = np.zeros(nc + 1, dtype=np.int64)
    if indptr[-1] < PARALLEL_MIN_ENTRIES:  # small graphs (recursive bisection's many subgraphs): one thread
        chunks = 1
    run_chunked(_count_chunks, chunks, indptr, indices, cmap, nc, member_ptr, members, degree)
    np.cumsum(degree, out=degree)  # the coarse row pointers
    coarse_indices = np.empty(int(degree[nc]), dtype=np.int32)
    coarse_w = np.empty(int(degree[nc]), dtype=weight_dtype)
    run_chunked(_merge_chunks, chunks, indptr, indices, edge_weights, cmap, nc, member_ptr, members, degree,
                coarse_indices, coarse_w)
    return degree, coarse_indices, coarse_w, coarse_vw
