"""numba-cuda primitives of the GPU partitioner: the device prefix sum and integer reductions.

`exclusive_scan(values)` is the one prefix sum of the GPU path (coarse vertex ids from cluster labels, the
offsets of contracted neighbour lists): each thread scans a chunk of CHUNK values serially and writes its total,
the chunk totals are scanned the same way (recursively), and a last launch adds each chunk's offset (a simple
three-pass scan, not CUB's single-pass decoupled look-back). Integer sums, so the result is exact and
independent of the launch geometry.

`device_sum` / `device_max` reduce an int64 array with integer atomics (exact, so deterministic) and return a
host scalar (the driver reads back such scalars, never a level's arrays, except the coarsest graph's). `fill`
sets an array on the device.

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import os

import numpy as np
from numba import cuda

#: threads per block of every kernel of the GPU partitioner; 32 on the CUDA simulator, which runs every thread
#: of a launched block as a Python thread (idle threads past n cost as much as busy ones there); results never
#: depend on it
BLOCK = 32 if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") else 128


def blocks_for(n: int) -> int:
    """Thread blocks for one thread per item of n (at least one block, so a launch is never empty)."""
    return max(1, (n + BLOCK - 1) // BLOCK)


#: consecutive values one thread scans serially (no shared memory or barriers: the simulator runs barriers slowly,
#: and a chunk of 16 int64 values is two cache lines)
CHUNK = 16


@cuda.jit(cache=False)
def _scan_chunks(values, n, out, chunk_totals):
    """out[i + 1] = the inclusive sum of values up to i inside i's chunk; chunk_totals[c] = chunk c's total."""
    c = cuda.grid(1)
    lo = c * CHUNK
    if lo >= n:
        return
    hi = min(lo + CHUNK, n)
    running = np.int64(0)
    for i in range(lo, hi):
        running += values[i]
        out[i + 1] = running
    chunk_totals[c] = running


@cuda.jit(cache=False)
def _add_chunk_offsets(out, n, offsets):
    c = cuda.grid(1)
    lo = c * CHUNK
    if c == 0:
        out[0] = 0
    if lo >= n:
        return
    offset = offsets[c]
    for i in range(lo, min(lo + CHUNK, n)):
        out[i + 1] += offset


def exclusive_scan(values, n: int, stream=0):
    """The exclusive prefix sums of the first n int64 `values` (a device array) as a new int64 device array of
    length n + 1: out[0] = 0, out[i] = values[0] + ... + values[i - 1], out[n] = the total.

    Three passes: every thread sums a chunk of CHUNK values serially, the chunk totals are scanned the same way
    (recursively, until one chunk is left), and every thread adds its chunk's offset."""
    out = cuda.device_array(n + 1, dtype=np.int64, stream=stream)
    chunks = max(1, (n + CHUNK - 1) // CHUNK)
    totals = cuda.device_array(chunks, dtype=np.int64, stream=stream)
    grid = blocks_for(chunks)
    _scan_chunks[grid, BLOCK, stream](values, n, out, totals)
    if chunks > 1:
        offsets = exclusive_scan(totals, chunks, stream)
    else:
        offsets = cuda.to_device(np.zeros(2, dtype=np.int64), stream=stream)
    _add_chunk_offsets[grid, BLOCK, stream](out, n, offsets)
    return out


@cuda.jit(cache=False)
def _sum_kernel(values, n, total):
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(total, 0, values[i])


@cuda.jit(cache=False)
def _max_kernel(values, n, best):
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.max(best, 0, values[i])


def device_sum(values, n: int, stream=0) -> int:
    """The sum of the first n int64 `values` (a device array), read back as a Python int."""
    total = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    _sum_kernel[blocks_for(n), BLOCK, stream](values, n, total)
    return int(total.copy_to_host(stream=stream)[0])


def device_max(values, n: int, stream=0) -> int:
    """The maximum of the first n int64 `values` (a device array; 0 when n = 0), read back as a Python int."""
    best = cuda.to_device(np.zeros(1, dtype=np.int64), stream=stream)
    _max_kernel[blocks_for(n), BLOCK, stream](values, n, best)
    return int(best.copy_to_host(stream=stream)[0])


@cuda.jit(cache=False)
def _fill_kernel(values, value):
    i = cuda.grid(1)
    if i < values.shape[0]:
        values[i] = value


def fill(values, value, stream=0):
    """Set every entry of the 1-D device array `values` to `value` on the device (no host copy)."""
    _fill_kernel[blocks_for(values.shape[0]), BLOCK, stream](values, value)
    return values
