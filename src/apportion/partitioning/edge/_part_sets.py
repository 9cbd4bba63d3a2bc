"""Numba helpers: per-vertex sets of parts with edge counts, stored in slots (at most min(deg, k) per vertex).

A vertex v owns slots slot_ptr[v] .. slot_ptr[v+1]; the first fill[v] are in use, each a (part, count) pair
saying that `count` of v's edges lie in `part`. Memory is O(m) whatever k is; lookups scan at most
min(deg(v), k) slots.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class PartSets(NamedTuple):
    """The slot arrays of one assignment: slot_ptr (n+1,) int64, slot_part, slot_count (int32), fill (n,) int32."""

    slot_ptr: np.ndarray
    slot_part: np.ndarray
    slot_count: np.ndarray
    fill: np.ndarray


def slot_offsets(degrees: np.ndarray, k: int) -> np.ndarray:
    """slot_ptr for vertices of the given degrees: min(deg, k) slots each."""
    ptr = np.zeros(degrees.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.minimum(degrees, k), out=ptr[1:])
    return ptr


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[::1], int32[::1], int32[::1], int64, int64)", cache=True, nogil=True)
def find_slot(slot_ptr, slot_part, fill, vertex, part):
    start = slot_ptr[vertex]
    for s in range(start, start + fill[vertex]):
        if slot_part[s] == part:
            return s
    return -1


@njit("(int64[::1], int32[::1], int32[::1], int32[::1], int64, int64)", cache=True, nogil=True)
def add_edge_to_part(slot_ptr, slot_part, slot_count, fill, vertex, part):
    s = find_slot(slot_ptr, slot_part, fill, vertex, part)
    if s < 0:
        s = slot_ptr[vertex] + fill[vertex]
        fill[vertex] += 1
        slot_part[s] = part
        slot_count[s] = 0
    slot_count[s] += 1


@njit("(int64[::1], int32[::1], int32[::1], int32[::1], int64, int64)", cache=True, nogil=True)
def remove_edge_from_part(slot_ptr, slot_part, slot_count, fill, vertex, part):
    s = find_slot(slot_ptr, slot_part, fill, vertex, part)
    slot_count[s] -= 1
    if slot_count[s] == 0:
        last = slot_ptr[vertex] + fill[vertex] - 1
        slot_part[s] = slot_part[last]
        slot_count[s] = slot_count[last]
        fill[vertex] -= 1


@njit(cache=True, nogil=True)
def build_part_sets(u, v, assignment, slot_ptr, n):
    """Fill the slots from a complete assignment; returns (slot_part, slot_count, fill)."""
    total = slot_ptr[n]
    slot_part = np.empty(total, dtype=np.int32)
    slot_count = np.zeros(total, dtype=np.int32)
    fill = np.zeros(n, dtype=np.int32)
    for e in range(u.shape[0]):
        add_edge_to_part(slot_ptr, slot_part, slot_count, fill, u[e], assignment[e])
        add_edge_to_part(slot_ptr, slot_part, slot_count, fill, v[e], assignment[e])
    return slot_part, slot_count, fill
