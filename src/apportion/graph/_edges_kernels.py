"""The undirected edge list of a CSR graph, once per edge, compiled: `Graph.edges()`'s work.

The edge {v, u} is listed from its smaller end: the entries v → u with u > v of row v, in CSR order.
`upper_counts` counts them per row; the caller sums the counts into offsets; `fill_upper` copies them (and
their weights) to their places. Two passes over the arcs and nothing else — the NumPy way (np.repeat of the
sources and a boolean mask over all 2m entries) spent 30–60 ms on a 3.8 M-edge R-MAT graph, the time of the whole
union-find of topology-driven CC. Rows need not be sorted (a relabelled graph's are not).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def upper_counts(indptr, indices, counts):
    """counts[v] = the entries of row v with a neighbour > v."""
    for v in range(indptr.shape[0] - 1):
        count = 0
        for e in range(indptr[v], indptr[v + 1]):
            count += indices[e] > v
        counts[v] = count


@njit(cache=True, nogil=True)
def fill_upper(indptr, indices, weights, has_weights, offsets, u, v, w):
    """Row r's upper entries to u, v (and w) from offsets[r]: u = r, v = the neighbour, w = the entry's weight."""
    for r in range(indptr.shape[0] - 1):
        out = offsets[r]
        for e in range(indptr[r], indptr[r + 1]):
            if indices[e] > r:
                u[out] = r
                v[out] = indices[e]
                if has_weights:
                    w[out] = weights[e]
                out += 1


def upper_edges(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None):
    """(u, v, w-or-None) with u < v for every undirected edge, in CSR order; u and v in `indices`' dtype."""
    n = indptr.shape[0] - 1
    counts = np.empty(n, dtype=np.int64)
    upper_counts(indptr, indices, counts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[n])
    u = np.empty(total, dtype=indices.dtype)
    v = np.empty(total, dtype=indices.dtype)
    has_weights = weights is not None
    w = np.empty(total if has_weights else 0, dtype=np.int64)
    fill_upper(indptr, indices, weights if has_weights else np.empty(0, dtype=np.int64), has_weights, offsets, u,
               v, w)
    return u, v, (w if has_weights else None)
