"""The boundary of a partition: the vertices with a neighbour in another block, where refinement works.

Its own module because both refiners need it: `refine.py` (which calls the flows) and `flow.py`.
"""

from __future__ import annotations

import numpy as np

from apportion._chunked import run_chunked, thread_budget
from apportion.partitioning.vertex._refine_kernels import boundary_flag_chunks
from apportion.partitioning.vertex.contract import LevelGraph

#: levels of at least this many arcs are scanned on every thread (a scan of the finest level of a 2^21-vertex
#: mesh, 12.6 M arcs, took 30-40 ms on one and is done at every refinement of it)
PARALLEL_BOUNDARY_MIN_ARCS = 1 << 16


def all_boundary_vertices(graph: LevelGraph, part: np.ndarray) -> np.ndarray:
    """The vertices with a neighbour in another block, increasing (int32)."""
    keep = np.empty(graph.n, dtype=np.bool_)
    chunks = 4 * thread_budget() if graph.indices.shape[0] >= PARALLEL_BOUNDARY_MIN_ARCS else 1
    run_chunked(boundary_flag_chunks, chunks, graph.indptr, graph.indices, part, keep)
    return np.flatnonzero(keep).astype(np.int32)
