"""numba-cuda kernel for multi-pattern text search, the GPU companion of _textsearch_kernels.py.

One thread per start position (all segments' start positions numbered one after another; a thread finds its
segment by binary search over their prefix sums) tries every pattern there. Two launches: the first counts the
matches (one atomic add on a global counter per match), the second writes them, each match reserving its row of
the output with an atomic add on a cursor. Rows come out in no particular order; the launcher sorts the few
matches on the host (by position, then pattern id) so that the result equals the CPU kernel's.

Imported only when a CUDA device runs a text-search bundle (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128


@cuda.jit(cache=False)
def _search_kernel(text, seg_offsets, start_prefix, seg_bases, patterns, pattern_offsets, cursor, out, write):
    t = cuda.grid(1)
    if t >= start_prefix[start_prefix.shape[0] - 1]:
        return
    # the segment holding flat start position t: the last s with start_prefix[s] <= t (binary search)
    lo = 0
    hi = start_prefix.shape[0] - 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if start_prefix[mid] <= t:
            lo = mid
        else:
            hi = mid - 1
    s = lo
    i = t - start_prefix[s]
    position = seg_offsets[s] + i
    end = seg_offsets[s + 1]
    for p in range(pattern_offsets.shape[0] - 1):
        p0 = pattern_offsets[p]
        length = pattern_offsets[p + 1] - p0
        if position + length > end:
            continue
        match = True
        for j in range(length):
            if text[position + j] != patterns[p0 + j]:
                match = False
                break
        if match:
            row = cuda.atomic.add(cursor, 0, 1)
            if write:
                out[row, 0] = seg_bases[s] + i
                out[row, 1] = p


def search_segments_cuda(text, seg_offsets, seg_starts, seg_bases, patterns, pattern_offsets, *, stream):
    """The CUDA twin of `_textsearch_kernels.search_segments` on device arrays: an (m, 2) int64 host array of
    (global position, pattern id) sorted by position then pattern id."""
    starts = seg_starts.copy_to_host(stream=stream)
    stream.synchronize()
    prefix = np.zeros(starts.shape[0] + 1, dtype=np.int64)
    np.cumsum(starts, out=prefix[1:])
    total = int(prefix[-1])
    if total == 0 or pattern_offsets.shape[0] < 2:
        return np.empty((0, 2), dtype=np.int64)
    d_prefix = cuda.to_device(prefix, stream=stream)
    cursor = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    blocks = (total + BLOCK - 1) // BLOCK
    placeholder = cuda.device_array((1, 2), dtype=np.int64, stream=stream)
    args = (text, seg_offsets, d_prefix, seg_bases, patterns, pattern_offsets, cursor)
    _search_kernel[blocks, BLOCK, stream](*args, placeholder, False)
    count = int(cursor.copy_to_host(stream=stream)[0])
    if count == 0:
        return np.empty((0, 2), dtype=np.int64)
    out = cuda.device_array((count, 2), dtype=np.int64, stream=stream)
    cursor = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    _search_kernel[blocks, BLOCK, stream](text, seg_offsets, d_prefix, seg_bases, patterns, pattern_offsets, cursor,
                                          out, True)
    found = out.copy_to_host(stream=stream)
    stream.synchronize()
    return found[np.lexsort((found[:, 1], found[:, 0]))]
