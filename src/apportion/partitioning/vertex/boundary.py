"""The boundary of a partition: the vertices with a neighbour in another block, where refinement works.

Its own module because both refiners need it: `refine.py` (which calls the flows) and `flow.py`.
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.vertex._refine_kernels import boundary_vertices
from apportion.partitioning.vertex.contract import LevelGraph


def all_boundary_vertices(graph: LevelGraph, part: np.ndarray) -> np.ndarray:
    """The vertices with a neighbour in another block, increasing (int32)."""
    return boundary_vertices(graph.indptr, graph.indices, part, np.arange(graph.n, dtype=np.int32))
