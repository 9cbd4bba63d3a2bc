"""Numba kernel for predicate-based filtering (seed 003's PBF)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def filter_range(values, chunk_lengths, low, high):
    """Elements with low <= v < high, in order, and how many each consecutive chunk of `values` kept."""
    out = np.empty(values.shape[0], dtype=values.dtype)
    kept = np.zeros(chunk_lengths.shape[0], dtype=np.int64)
    count = 0
    position = 0
    for c in range(chunk_lengths.shape[0]):
        for i in range(position, position + chunk_lengths[c]):
            v = values[i]
            if v >= low and v < high:
                out[count] = v
                count += 1
                kept[c] += 1
        position += chunk_lengths[c]
    return out[:count].copy(), kept
