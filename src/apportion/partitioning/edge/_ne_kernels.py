"""Numba kernel of neighbourhood expansion (see ne.py)."""

from __future__ import annotations

import numpy as np
from numba import njit


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[::1], int64[::1], int64, int64, int64)", cache=True, nogil=True)
def _heap_push(hkey, hvert, hsize, key, vertex):
    i = hsize
    hkey[i] = key
    hvert[i] = vertex
    while i > 0:
        parent = (i - 1) // 2
        if hkey[parent] < hkey[i] or (hkey[parent] == hkey[i] and hvert[parent] <= hvert[i]):
            break
        hkey[parent], hkey[i] = hkey[i], hkey[parent]
        hvert[parent], hvert[i] = hvert[i], hvert[parent]
        i = parent
    return hsize + 1


@njit("(int64[::1], int64[::1], int64)", cache=True, nogil=True)
def _heap_pop(hkey, hvert, hsize):
    key, vertex = hkey[0], hvert[0]
    hsize -= 1
    hkey[0] = hkey[hsize]
    hvert[0] = hvert[hsize]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= hsize:
            break
        child = left
        right = left + 1
        if right < hsize and (hkey[right] < hkey[left] or (hkey[right] == hkey[left] and hvert[right] < hvert[left])):
            child = right
        if hkey[i] < hkey[child] or (hkey[i] == hkey[child] and hvert[i] <= hvert[child]):
            break
        hkey[child], hkey[i] = hkey[i], hkey[child]
        hvert[child], hvert[i] = hvert[i], hvert[child]
        i = child
    return key, vertex, hsize


@njit(cache=True, nogil=True)
def ne_kernel(indptr, targets, edge_of_entry, m, k, part_sizes, vertex_order):
    """Grow parts one at a time by neighbourhood expansion; part p receives exactly part_sizes[p] edges.

    Boundary S and core C ⊆ S per part. Step: move to C the boundary vertex x with the fewest unassigned
    edges leaving S (a random vertex with unassigned edges when S \\ C is empty, in the seeded
    `vertex_order`); each neighbour y over an unassigned edge joins S, and every unassigned edge between y
    and S is assigned to the part. The last part takes every remaining edge.
    """
    n = indptr.shape[0] - 1
    assignment = np.full(m, -1, dtype=np.int32)
    remaining = np.empty(n, dtype=np.int64)
    for x in range(n):
        remaining[x] = indptr[x + 1] - indptr[x]
    in_boundary = np.full(n, -1, dtype=np.int64)
    in_core = np.full(n, -1, dtype=np.int64)
    outside = np.zeros(n, dtype=np.int64)   # unassigned edges from a boundary vertex to vertices outside S
    capacity = n + m + 1
    hkey = np.empty(capacity, dtype=np.int64)
    hvert = np.empty(capacity, dtype=np.int64)
    pointer = 0
    for p in range(k - 1):
        size = 0
        target = part_sizes[p]
        hsize = 0
        while size < target:
            x = -1
            while hsize > 0:
                key, cand, hsize = _heap_pop(hkey, hvert, hsize)
                if in_core[cand] != p and in_boundary[cand] == p and key == outside[cand]:
                    x = cand
                    break
            if x < 0:
                while pointer < n and remaining[vertex_order[pointer]] == 0:
                    pointer += 1
                if pointer == n:
                    break
                x = vertex_order[pointer]
                in_boundary[x] = p
                outside[x] = remaining[x]
            in_core[x] = p
            for i in range(indptr[x], indptr[x + 1]):
                if size >= target:
                    break
                if assignment[edge_of_entry[i]] >= 0:
                    continue
                y = targets[i]
                if in_boundary[y] == p:
                    continue
                # y joins the boundary: its unassigned edges into S go to part p
                in_boundary[y] = p
                count_out = 0
                for j in range(indptr[y], indptr[y + 1]):
                    e = edge_of_entry[j]
                    if assignment[e] >= 0:
                        continue
                    z = targets[j]
                    if in_boundary[z] == p and size < target:
                        assignment[e] = p
                        size += 1
                        remaining[y] -= 1
                        remaining[z] -= 1
                        if in_core[z] != p:
                            outside[z] -= 1
                            hsize = _heap_push(hkey, hvert, hsize, outside[z], z)
                    else:
                        count_out += 1
                outside[y] = count_out
                hsize = _heap_push(hkey, hvert, hsize, count_out, y)
    for e in range(m):
        if assignment[e] < 0:
            assignment[e] = k - 1
    return assignment
