"""Numba kernel of neighbourhood expansion (see ne.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.heap import heap_clear, heap_pop_by_id, heap_push_or_update_by_id


@njit(cache=True, nogil=True)
def ne_kernel(indptr, targets, edge_of_entry, m, k, part_sizes, vertex_order):
    """Grow parts one at a time by neighbourhood expansion; part p receives exactly part_sizes[p] edges.

    Boundary S and core C ⊆ S per part. Step: move to C the boundary vertex x with the fewest unassigned
    edges leaving S (a random vertex with unassigned edges when S \\ C is empty, in the seeded
    `vertex_order`); each neighbour y over an unassigned edge joins S, and every unassigned edge between y
    and S is assigned to the part. The last part takes every remaining edge.

    The boundary vertices wait in the shared addressable heap (`apportion._kernels.heap`) keyed by minus their
    edges leaving S, ties by the smaller id: the vertex with the fewest such edges, the smallest id among
    equals, comes out first.
    """
    n = indptr.shape[0] - 1
    assignment = np.full(m, -1, dtype=np.int32)
    remaining = np.empty(n, dtype=np.int64)
    for x in range(n):
        remaining[x] = indptr[x + 1] - indptr[x]
    in_boundary = np.full(n, -1, dtype=np.int64)
    in_core = np.full(n, -1, dtype=np.int64)
    outside = np.zeros(n, dtype=np.int64)   # unassigned edges from a boundary vertex to vertices outside S
    heap = np.empty(max(n, 1), dtype=np.int32)
    heap_key = np.zeros(max(n, 1), dtype=np.int64)
    heap_pos = np.full(max(n, 1), -1, dtype=np.int32)
    heap_size = np.zeros(1, dtype=np.int64)
    pointer = 0
    for p in range(k - 1):
        size = 0
        target = part_sizes[p]
        heap_clear(heap, heap_pos, heap_size)
        while size < target:
            x = -1
            if heap_size[0] > 0:
                # every vertex in the heap is in S but not in C, keyed by its current -outside
                x = heap_pop_by_id(heap, heap_key, heap_pos, heap_size)
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
                            heap_push_or_update_by_id(heap, heap_key, heap_pos, heap_size, z, -outside[z])
                    else:
                        count_out += 1
                outside[y] = count_out
                heap_push_or_update_by_id(heap, heap_key, heap_pos, heap_size, y, -count_out)
    for e in range(m):
        if assignment[e] < 0:
            assignment[e] = k - 1
    return assignment
