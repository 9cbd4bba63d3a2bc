"""Numba array types for the declared signatures of helpers that read a graph.

A multilevel level's arrays are read-only (`partitioning.vertex.contract.LevelGraph`), and unit weights are a
broadcast 1 whose strides are 0 (Numba's layout "A"). A helper that declares these types accepts writable and
contiguous arrays too (Numba converts writable to read-only and "C" to "A"), so it is compiled once for every
kind of caller.
"""

from numba import types

#: indptr: int64 offsets, read-only, contiguous
INDPTR = types.Array(types.int64, 1, "C", readonly=True)
#: indices: int32 neighbour ids, read-only, contiguous
INDICES = types.Array(types.int32, 1, "C", readonly=True)
#: edge weights aligned with the indices: read-only, any layout (a broadcast 1 for unit weights), int32 while
#: their total allows (`partitioning.vertex.contract.edge_weight_dtype`) ...
EDGE_WEIGHTS32 = types.Array(types.int32, 1, "A", readonly=True)
#: ... and int64 above
EDGE_WEIGHTS64 = types.Array(types.int64, 1, "A", readonly=True)
#: (n, ncon) vertex weights: read-only, any layout (a broadcast 1 for unit weights)
VERTEX_WEIGHTS = types.Array(types.int64, 2, "A", readonly=True)


def with_edge_weights(before: tuple, after: tuple) -> list:
    """The two signatures of a helper whose arguments are `before`, the edge weights, then `after`: one for
    each edge weight dtype (both compiled when the module loads, no other ever)."""
    return [before + (weights,) + after for weights in (EDGE_WEIGHTS32, EDGE_WEIGHTS64)]
