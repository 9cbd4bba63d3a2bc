"""Compiled host steps of the threshold estimators that touch the whole input: parallel chunk kernels.

Both run on the shared thread pool (`_chunked.run_chunked`), so on a simulated platform they are priced at the
simulated CPU's threads together (`threshold_common.Stopwatch.host(parallel=True)`), and on real devices they
take the machine's cores.

- `column_counts`: nonzeros per column of a CSR matrix (hh's share extrapolation needs them for every row of B).
- `principal_submatrix`: A[S, S] for sorted distinct S (spmm's n/4 sample, cc's induced subgraphs), rows in
  S's order.

And one serial kernel: `random_walks`, the steps of cc's walk sampler (one compiled loop in place of a NumPy
call per step: the sampler was half of an estimate's wall time on a 15k-vertex graph).
"""

from __future__ import annotations

import numba
import numpy as np

from apportion._chunked import run_chunked, thread_budget


@numba.njit(nogil=True, cache=True)
def _count_columns_chunk(first, stride, chunks, indices, counts):
    m = indices.shape[0]
    for c in range(first, chunks, stride):
        row = counts[c]
        for k in range(m * c // chunks, m * (c + 1) // chunks):
            row[indices[k]] += 1


def column_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each of 0..n-1 occurs in `indices` (int64), counted by slices of `indices` in parallel."""
    chunks = max(1, min(thread_budget(), indices.shape[0] // 65536 + 1))
    counts = np.zeros((chunks, n), np.int64)
    run_chunked(_count_columns_chunk, chunks, np.ascontiguousarray(indices), counts)
    return counts.sum(axis=0) if chunks > 1 else counts[0]


@numba.njit(nogil=True, cache=True)
def _kept_per_row_chunk(first, stride, chunks, indptr, indices, rows, position, kept):
    k = rows.shape[0]
    for c in range(first, chunks, stride):
        for i in range(k * c // chunks, k * (c + 1) // chunks):
            r = rows[i]
            count = 0
            for e in range(indptr[r], indptr[r + 1]):
                if position[indices[e]] >= 0:
                    count += 1
            kept[i] = count


@numba.njit(nogil=True, cache=True)
def _fill_rows_chunk(first, stride, chunks, indptr, indices, data, rows, position, out_indptr, out_indices,
                     out_data):
    k = rows.shape[0]
    for c in range(first, chunks, stride):
        for i in range(k * c // chunks, k * (c + 1) // chunks):
            r = rows[i]
            at = out_indptr[i]
            for e in range(indptr[r], indptr[r + 1]):
                p = position[indices[e]]
                if p >= 0:
                    out_indices[at] = p
                    out_data[at] = data[e]
                    at += 1


def principal_submatrix(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n: int,
                        rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR arrays (indptr, indices, data) of A[S, S] for the sorted distinct `rows` S, renumbered 0..|S|-1 in
    order; within a row the entries keep A's order (so sorted columns stay sorted)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    position = np.full(n, -1, np.int64)
    position[rows] = np.arange(rows.shape[0], dtype=np.int64)
    chunks = max(1, min(thread_budget() * 4, rows.shape[0] // 1024 + 1))
    kept = np.zeros(rows.shape[0], np.int64)
    run_chunked(_kept_per_row_chunk, chunks, indptr, indices, rows, position, kept)
    out_indptr = np.zeros(rows.shape[0] + 1, np.int64)
    np.cumsum(kept, out=out_indptr[1:])
    out_indices = np.empty(int(out_indptr[-1]), np.int64)
    out_data = np.empty(int(out_indptr[-1]), data.dtype)
    run_chunked(_fill_rows_chunk, chunks, indptr, indices, data, rows, position, out_indptr, out_indices, out_data)
    return out_indptr, out_indices, out_data


@numba.njit(nogil=True, cache=True)
def random_walks(indptr, indices, starts, randoms):
    """Walks from `starts`, one step per row of `randoms` (uniform [0, 1) numbers, steps × walkers): each step
    goes to the neighbour at position ⌊r · degree⌋; a walker at an isolated vertex stays. Returns the visited
    vertices, (steps + 1) × walkers, the starts first."""
    steps, walkers = randoms.shape
    visited = np.empty((steps + 1, walkers), np.int64)
    last = indices.shape[0] - 1
    for w in range(walkers):
        current = starts[w]
        visited[0, w] = current
        for s in range(steps):
            degree = indptr[current + 1] - indptr[current]
            if degree > 0 and last >= 0:
                current = indices[min(indptr[current] + int(randoms[s, w] * degree), last)]
            visited[s + 1, w] = current
    return visited
