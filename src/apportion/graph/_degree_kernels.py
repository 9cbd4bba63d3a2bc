"""Degree figures of a CSR in one pass, without the n-long array `np.diff(indptr)` would allocate.

The partitioner asks for a level's largest degree at every level (the rating tables' size, FM's choice of
kernel) and for the finest level's skew several times per call (renumbering, hubs, the heavy-tailed variant):
on 2^21 vertices each `np.diff(indptr).max()` took about 9 ms, most of it allocating and filling 16 MB.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def degree_extremes(indptr):
    """(the largest degree, the number of vertices with at least one neighbour); (0, 0) for no vertices."""
    largest = 0
    connected = 0
    for v in range(indptr.shape[0] - 1):
        degree = indptr[v + 1] - indptr[v]
        if degree > largest:
            largest = degree
        if degree > 0:
            connected += 1
    return largest, connected
