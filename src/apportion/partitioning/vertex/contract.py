"""Contraction: the coarse graph of a clustering (seed 000 ch. 4.3.2 and 5.2.2), and projection back."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from apportion._chunked import balanced_bounds, run_chunked, thread_budget
from apportion.partitioning.vertex._contract_kernels import (
    PARALLEL_MIN_ENTRIES, contract, induced_count_chunks, induced_fill_chunks, relabel_chunks)
from apportion.partitioning.vertex._initial_kernels import induced_subgraph


class LevelGraph(NamedTuple):
    """One graph of the multilevel hierarchy, as the kernels want it.

    indptr int64 (n+1,), indices int32 (2m,), edge_weights (2m,) int32 when their total allows
    (`edge_weight_dtype`) and int64 otherwise, vertex_weights int64 (n, ncon), all
    read-only (`LevelGraph.of`). The finest level shares the `Graph`'s own arrays where their dtypes allow, and
    unit weights are a broadcast 1 that takes no memory (`unit_weights`), so the finest level costs nothing
    beside its `Graph` (delaunay 2^21: 182 MB of writable copies before, a third of the peak). Read-only at every
    level, so that no kernel can write into a graph and each is compiled for one kind of array — two where it
    reads unit weights (layout "A") and a coarse level's (layout "C"), about 10 s more once per machine.
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
    def of(cls, indptr, indices, edge_weights, vertex_weights) -> "LevelGraph":
        """A level of these arrays, as read-only views (no copy)."""
        return cls(read_only(indptr), read_only(indices), read_only(edge_weights), read_only(vertex_weights))

    @classmethod
    def from_graph(cls, graph, vertex_weights: np.ndarray | None = None) -> "LevelGraph":
        """The arrays of an `apportion.Graph` in kernel dtypes, copied only where the dtype differs (unit
        weights broadcast; `vertex_weights`, when given, is the graph's (n, ncon) int64 matrix, used as it
        is)."""
        if vertex_weights is None:
            vertex_weights = kernel_vertex_weights(graph)
        return cls.of(np.ascontiguousarray(graph.indptr, dtype=np.int64),
                      np.ascontiguousarray(graph.indices, dtype=np.int32),
                      kernel_edge_weights(graph), vertex_weights)


def unit_weights(shape) -> np.ndarray:
    """Read-only int64 ones of `shape` that take no memory (a broadcast scalar: every stride 0): vertex
    weights."""
    return np.broadcast_to(np.int64(1), shape)


def unit_edge_weights(length: int) -> np.ndarray:
    """Read-only edge weights 1 for `length` arcs that take no memory, int32 like every level's edge weights
    whose total fits (`edge_weight_dtype`)."""
    return np.broadcast_to(np.int32(1), (length,))


#: edge weights are int32 while the total edge weight (over the arcs) is at most this, int64 above
INT32_WEIGHT_TOTAL = 2**31 - 1


def edge_weight_dtype(total: int) -> type:
    """The dtype of a level's edge weights whose sum over all arcs is `total`: int32 when it fits (every
    coarser level's weights then fit too, since contraction only drops weight), int64 otherwise. A coarse
    level's edge weights are the largest array of the hierarchy (rmat 2^21's first one: 45.7 M arcs), so 4
    bytes less per arc is a third of its size."""
    return np.int32 if total <= INT32_WEIGHT_TOTAL else np.int64


def kernel_vertex_weights(graph) -> np.ndarray:
    """A Graph's vertex weights as a read-only (n, ncon) int64 array: its own array when it has one, else
    `unit_weights` (no copy either way)."""
    if graph.vertex_weights is None:
        return unit_weights((graph.n, 1))
    return read_only(np.ascontiguousarray(graph.vertex_weight_matrix(), dtype=np.int64))


def kernel_edge_weights(graph) -> np.ndarray:
    """A Graph's edge weights as a read-only array aligned with `indices`, in the dtype of `edge_weight_dtype`
    of their total: an int32 copy of its own where they fit (so that the kernels meet int32 weights only, as on
    the coarse levels: one compiled copy each), its own int64 array otherwise, `unit_edge_weights` when it has
    none."""
    if graph.edge_weights is None:
        return unit_edge_weights(graph.indices.shape[0])
    if is_unit(graph.edge_weights):  # a `LevelGraph`'s unit weights (the hub block's rest), kept as they are
        return graph.edge_weights
    weights = np.asarray(graph.edge_weights)
    total = int(weights.sum(dtype=np.int64)) if weights.shape[0] else 0
    return read_only(np.ascontiguousarray(weights, dtype=edge_weight_dtype(total)))


def induced_level(indptr, indices, edge_weights, vertex_weights, vertices) -> LevelGraph:
    """The subgraph induced by `vertices` (sorted ids) as a LevelGraph (the arguments are read through
    read-only views: a core is cut out of a `Graph`'s own arrays without a copy of them). Unit weights stay
    `unit_weights` (rmat 2^20's core: 250 MB of int64 ones otherwise)."""
    unit_edges, unit_vertices = is_unit(edge_weights), is_unit(vertex_weights)
    if indices.shape[0] >= PARALLEL_MIN_ENTRIES and thread_budget() > 1:
        sub_ptr, sub_idx, sub_w = _induced_arcs(indptr, indices, edge_weights, vertices, not unit_edges)
        sub_vw = np.ascontiguousarray(vertex_weights[vertices]) if not unit_vertices else None
    else:
        sub_ptr, sub_idx, sub_w, sub_vw = induced_subgraph(read_only(indptr), read_only(indices),
                                                           read_only(edge_weights), read_only(vertex_weights),
                                                           vertices, not unit_edges, not unit_vertices)
    if unit_edges:
        sub_w = unit_edge_weights(sub_idx.shape[0])
    if unit_vertices:
        sub_vw = unit_weights((vertices.shape[0], vertex_weights.shape[1]))
    return LevelGraph.of(sub_ptr, sub_idx, sub_w, sub_vw)


def _induced_arcs(indptr, indices, edge_weights, vertices, copy_edge_weights):
    """The rows of `induced_level`'s subgraph on every thread, in ranges of about equal arc counts: (indptr,
    int32 indices, edge weights or an empty array without `copy_edge_weights`). The same arrays as
    `induced_subgraph`'s (rmat 2^21's hub-block rest: 0.6 s on one thread)."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int64)
    new_id = np.full(indptr.shape[0] - 1, -1, dtype=np.int32)
    new_id[vertices] = np.arange(vertices.shape[0], dtype=np.int32)
    row_arcs = np.zeros(vertices.shape[0] + 1, dtype=np.int64)
    np.cumsum(indptr[vertices + 1] - indptr[vertices], out=row_arcs[1:])
    chunks = 4 * thread_budget()
    bounds = balanced_bounds(row_arcs, chunks)
    indptr, indices, edge_weights = read_only(indptr), read_only(indices), read_only(edge_weights)
    degree = np.empty(vertices.shape[0], dtype=np.int64)
    run_chunked(induced_count_chunks, chunks, bounds, indptr, indices, vertices, new_id, degree)
    sub_ptr = np.zeros(vertices.shape[0] + 1, dtype=np.int64)
    np.cumsum(degree, out=sub_ptr[1:])
    del degree
    sub_idx = np.empty(int(sub_ptr[-1]), dtype=np.int32)
    sub_w = np.empty(int(sub_ptr[-1]) if copy_edge_weights else 0, dtype=edge_weights.dtype)
    run_chunked(induced_fill_chunks, chunks, bounds, indptr, indices, edge_weights, vertices, new_id, sub_ptr,
                sub_idx, sub_w, copy_edge_weights)
    return sub_ptr, sub_idx, sub_w


def core_level(indptr, indices, edge_weights, vertex_weights, core_ids) -> LevelGraph:
    """The subgraph of the non-isolated vertices `core_ids` (increasing ids): no arc leaves it, so its arcs are
    the graph's own in the same order — row pointers gathered, ids relabelled on every thread, edge weights
    shared (not copied). Equal to `induced_level` of the same vertices at a fraction of its cost (rmat 2^21:
    one serial pass that tested every arc's end, 0.6 s)."""
    n = indptr.shape[0] - 1
    new_id = np.full(n, -1, dtype=np.int32)
    new_id[core_ids] = np.arange(core_ids.shape[0], dtype=np.int32)
    sub_ptr = np.empty(core_ids.shape[0] + 1, dtype=np.int64)
    sub_ptr[:-1] = indptr[core_ids]
    sub_ptr[-1] = indptr[n]
    sub_idx = np.empty(indices.shape[0], dtype=np.int32)
    run_chunked(relabel_chunks, 4 * thread_budget() if indices.shape[0] >= PARALLEL_MIN_ENTRIES else 1,
                read_only(np.ascontiguousarray(indices, dtype=np.int32)), new_id, sub_idx)
    if is_unit(vertex_weights):
        sub_vw = unit_weights((core_ids.shape[0], vertex_weights.shape[1]))
    else:
        sub_vw = np.ascontiguousarray(vertex_weights[core_ids])
    return LevelGraph.of(sub_ptr, sub_idx, read_only(edge_weights), sub_vw)


def is_unit(weights: np.ndarray) -> bool:
    """Whether `weights` is a `unit_weights` array: every stride 0 (one value repeated) and that value 1."""
    return weights.size > 0 and not any(weights.strides) and int(weights.flat[0]) == 1


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array` (the array itself when it is one already)."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.setflags(write=False)
    return view


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
    seed 000 ch. 5.2.2. The coarse edge weights are int32 whenever their total (at most the fine one) fits
    (`edge_weight_dtype`).
    """
    weights = graph.edge_weights
    if weights.dtype == np.int64:
        dtype = edge_weight_dtype(int(weights.sum())) if weights.shape[0] else np.int32
    else:
        dtype = weights.dtype
    indptr, indices, edge_weights, vertex_weights = contract(
        graph.indptr, graph.indices, weights, graph.vertex_weights, np.ascontiguousarray(cmap, dtype=np.int32),
        int(coarse_n), _contract_chunks(coarse_n), np.dtype(dtype))
    return LevelGraph.of(indptr, indices, edge_weights, vertex_weights)


def project_partition(cmap: np.ndarray, coarse_part: np.ndarray) -> np.ndarray:
    """The fine partition induced by a coarse one: part[v] = coarse_part[cmap[v]] (seed 000 ch. 4.3.4)."""
    # a NumPy gather: as fast as a kernel here, and one parallel kernel fewer to compile on a cold cache
    return np.take(np.ascontiguousarray(coarse_part, dtype=np.int32), cmap)
