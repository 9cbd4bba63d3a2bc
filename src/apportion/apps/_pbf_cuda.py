"""numba-cuda kernels for predicate-based filtering (seed 003's PBF), the GPU companion of _pbf_kernels.py.

An ordered stream compaction in two launches, so that the result equals the CPU kernel's (kept elements in
input order, and how many each chunk kept):

1. `_count_kernel`: one thread per element tests low <= v < high; the block's count comes from one block vote
   (`syncthreads_count`) and is written once per block; each kept element adds 1 to its chunk's counter with an
   atomic add. Warp-aggregated atomics (ballot_sync + popc, one atomic per warp) are not used: numba-cuda's
   simulator has no ballot_sync/activemask/shfl_sync, and CI tests these kernels on it; the block vote
   aggregates one level up instead (one write per block for the output layout).
2. the exclusive scan of the per-block counts (n / BLOCK numbers) is done on the host, between the launches;
3. `_scatter_kernel`: each block scans its flags in shared memory (Hillis-Steele) and writes its kept elements
   at its block's offset plus their rank.

Imported only when a CUDA device runs a PBF bundle (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

#: threads per block; the shared-memory scan is sized by it
BLOCK = 128


@cuda.jit(cache=False)
def _count_kernel(values, chunk_ends, low, high, kept, block_counts):
    i = cuda.grid(1)
    flag = 0
    if i < values.shape[0]:
        v = values[i]
        if v >= low and v < high:
            flag = 1
            # the chunk of element i: the first chunk whose end is past i (binary search)
            lo = 0
            hi = chunk_ends.shape[0] - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if chunk_ends[mid] > i:
                    hi = mid
                else:
                    lo = mid + 1
            cuda.atomic.add(kept, lo, 1)
    total = cuda.syncthreads_count(flag)
    if cuda.threadIdx.x == 0:
        block_counts[cuda.blockIdx.x] = total


@cuda.jit(cache=False)
def _scatter_kernel(values, low, high, block_offsets, out):
    ranks = cuda.shared.array(BLOCK, dtype=np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    flag = 0
    v = values[0]
    if i < values.shape[0]:
        v = values[i]
        if v >= low and v < high:
            flag = 1
    ranks[t] = flag
    cuda.syncthreads()
    step = 1
    while step < BLOCK:  # inclusive scan of the flags of this block
        add = 0
        if t >= step:
            add = ranks[t - step]
        cuda.syncthreads()
        ranks[t] += add
        cuda.syncthreads()
        step *= 2
    if flag == 1:
        out[block_offsets[cuda.blockIdx.x] + ranks[t] - 1] = v


def filter_range_cuda(values, chunk_lengths, low, high, *, stream):
    """The CUDA twin of `_pbf_kernels.filter_range` on device arrays: (kept elements in order, kept per chunk)."""
    n = values.shape[0]
    n_chunks = chunk_lengths.shape[0]
    kept = cuda.to_device(np.zeros(n_chunks, dtype=np.int64), stream=stream)
    if n == 0:
        return cuda.device_array(0, dtype=values.dtype, stream=stream), kept
    blocks = (n + BLOCK - 1) // BLOCK
    ends = cuda.to_device(np.cumsum(chunk_lengths.copy_to_host(stream=stream)), stream=stream)
    block_counts = cuda.device_array(blocks, dtype=np.int64, stream=stream)
    _count_kernel[blocks, BLOCK, stream](values, ends, low, high, kept, block_counts)
    counts = block_counts.copy_to_host(stream=stream)
    stream.synchronize()
    offsets = np.zeros(blocks, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    out = cuda.device_array(int(counts.sum()), dtype=values.dtype, stream=stream)
    if out.shape[0] > 0:
        _scatter_kernel[blocks, BLOCK, stream](values, low, high, cuda.to_device(offsets, stream=stream), out)
    return out, kept


def filter_segment_cuda(low, high, segment, *, stream):
    """One segment of the runtime's PBF (`pbf_runtime._filter_segment`) on the device: its kept elements, in
    order (one chunk)."""
    lengths = cuda.to_device(np.array([segment.shape[0]], dtype=np.int64), stream=stream)
    return filter_range_cuda(segment, lengths, low, high, stream=stream)[0]
