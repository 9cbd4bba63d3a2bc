"""Contraction: the coarse graph of a clustering (seed 000 ch. 4.3.2 and 5.2.2), and projection back."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from apportion.partitioning.vertex._contract_kernels import contract
from apportion.partitioning.vertex._initial_kernels import induced_subgraph


class LevelGraph(NamedTuple):
    """One graph of the multilevel hierarchy, as the kernels want it.

    indptr int64 (n+1,), indices int32 (2m,), edge_weights int64 (2m,), vertex_weights int64 (n, ncon).
    """

    indptr: np.ndarray
    indices: np.ndarray
    edge_weights: np.ndarray
    vertex_weights: np.ndarray

    @property
    def n(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def m(self) -> int:
        return int(self.indices.shape[0] // 2)

    @classmethod
    def from_graph(cls, graph, vertex_weights: np.ndarray | None = None) -> "LevelGraph":
        """The arrays of an `apportion.Graph` in kernel dtypes (unit weights filled in; `vertex_weights`, when
        given, is the graph's (n, ncon) int64 matrix, used as it is).

        Writable copies: the Graph's arrays are read-only, and Numba compiles (and caches) every kernel once
        more for read-only arguments; one array kind keeps the JIT time down.
        """
        if vertex_weights is None:
            vertex_weights = np.array(graph.vertex_weight_matrix(), dtype=np.int64, order="C")
        return cls(np.array(graph.indptr, dtype=np.int64, order="C"),
                   np.array(graph.indices, dtype=np.int32, order="C"),
                   edge_weight_copy(graph), vertex_weights)


def induced_level(indptr, indices, edge_weights, vertex_weights, vertices) -> LevelGraph:
    """The subgraph induced by `vertices` (sorted ids) as a LevelGraph. The pattern and edge weights are read
    through read-only views, so that a `Graph`'s own (read-only) arrays and a level's share one compiled copy of
    the kernel: the core of a graph is cut out of the Graph without a copy of its arrays."""
    return LevelGraph(*induced_subgraph(_read_only(indptr), _read_only(indices), _read_only(edge_weights),
                                        vertex_weights, vertices))


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.setflags(write=False)
    return view


def edge_weight_copy(graph) -> np.ndarray:
    """A writable, contiguous int64 copy of a Graph's edge weights (fresh ones when it has none: one array,
    not two)."""
    if graph.edge_weights is None:
        return np.ones(graph.indices.shape[0], dtype=np.int64)
    return np.array(graph.edge_weights, dtype=np.int64, order="C")


def _contract_chunks(coarse_n: int) -> int:
    """Parallel slices for contraction: one per thread, fewer when the per-slice marker arrays (8 bytes per
    coarse vertex each) would be large."""
    threads = numba.get_num_threads()
    return max(1, min(threads, (1 << 26) // max(8 * coarse_n, 1)))


def contract_graph(graph: LevelGraph, cmap: np.ndarray, coarse_n: int) -> LevelGraph:
    """The coarse graph whose vertex c is the set {v : cmap[v] == c}.

    Contract: coarse vertex weights are the sums of their members' (per constraint); an edge between two
    clusters weighs the sum of the fine edges between them; edges inside a cluster disappear (no self-loops);
    neighbour lists are sorted. Hence total vertex weight is preserved and the total edge weight drops by
    exactly the weight of the edges inside clusters. Implements the sort + segmented-reduction contraction of
    seed 000 ch. 5.2.2.
    """
    indptr, indices, edge_weights, vertex_weights = contract(
        graph.indptr, graph.indices, graph.edge_weights, graph.vertex_weights,
        np.ascontiguousarray(cmap, dtype=np.int32), int(coarse_n), _contract_chunks(coarse_n))
    return LevelGraph(indptr, indices, edge_weights, vertex_weights)


def project_partition(cmap: np.ndarray, coarse_part: np.ndarray) -> np.ndarray:
    """The fine partition induced by a coarse one: part[v] = coarse_part[cmap[v]] (seed 000 ch. 4.3.4)."""
    # a NumPy gather: as fast as a kernel here, and one parallel kernel fewer to compile on a cold cache
    return np.take(np.ascontiguousarray(coarse_part, dtype=np.int32), cmap)
