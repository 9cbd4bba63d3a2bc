"""Minimum spanning forest by parallel Borůvka (seed 000, section 5.4; Borůvka 1926).

Every round, each component finds its lightest outgoing edge (the edge-discovery phase: a segmented arg-min,
the minimum-weight counterpart of the heavy-edge matching in the partitioner's coarsening), hooks itself to the
component at the other end, and the hooked trees are collapsed by pointer jumping (the merge phase). The edge
list is then contracted: ends renamed to the new components, edges inside a component dropped. Rounds repeat
until no edge leaves any component, so a disconnected graph yields a spanning forest with one tree per
connected component. The number of components at least halves every round, so there are at most log2(n)
rounds.

Ties are broken by (weight, canonical edge id) — the canonical id orders edges by (min(u, v), max(u, v)), as
`Graph.edges()` lists them — which makes the edge order strict: no cycle can form, the forest is unique, and
the result is the same for every thread count.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import numba
import numpy as np

from apportion.graph import _mst_kernels as kernels
from apportion.checks import check_threads
from apportion.graph.csr import Graph, as_graph

__all__ = ["SpanningForest", "mst"]

#: The parallel kernels run only on graphs with at least this many stored (directed) entries — smaller graphs
#: take one serial kernel call (`boruvka_serial`) and never compile the parallel kernels — and the later
#: parallel rounds only while at least SERIAL_FINISH_EDGES edges cross components; below that the rest runs
#: serially in one kernel call. A parallel launch costs more than that much work, and far more on cores shared
#: with other processes.
PARALLEL_MIN_ENTRIES = 1 << 21
SERIAL_FINISH_EDGES = 1 << 18
#: Loops over edges are cut into this many pieces per thread and handed out dynamically (Numba chunk size 1),
#: so that a thread the OS deschedules delays only its current piece, not a whole 1/threads of the work.
PIECES_PER_THREAD = 8


@dataclass(frozen=True, eq=False)
class SpanningForest:
    """A minimum spanning forest of a graph.

    Attributes:
        u, v: int64 arrays, the ends of the forest's edges (u < v), in canonical order (by u, then v).
        weights: int64 array, the weight of each forest edge (1 for an unweighted graph).
        total_weight: the sum of `weights`.
        components: the number of trees, i.e. connected components of the graph (isolated vertices count).
        n: number of vertices of the graph; len(u) == n - components.
        rounds: number of Borůvka rounds run.
        time_s: wall-clock seconds of the computation (graph loading excluded).
    """

    u: np.ndarray
    v: np.ndarray
    weights: np.ndarray
    total_weight: int
    components: int
    n: int
    rounds: int
    time_s: float

    @property
    def edge_count(self) -> int:
        """Number of forest edges (n - components)."""
        return int(self.u.shape[0])

    def to_dict(self) -> dict:
        """The summary as plain JSON-ready values (the edge arrays are left out; write them with -o)."""
        return {
            "n": self.n,
            "edges": self.edge_count,
            "total_weight": int(self.total_weight),
            "components": int(self.components),
            "rounds": int(self.rounds),
            "time_s": float(self.time_s),
        }


@contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the enclosed kernels on `threads` Numba threads (None: the current setting); restores it after."""
    import numba

    previous = numba.get_num_threads()
    if threads is None:
        yield previous
        return
    threads = check_threads(threads)
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


def mst(graph: Graph, *, threads: int | None = None) -> SpanningForest:
    """Minimum spanning forest of an undirected graph by parallel Borůvka (seed 000, section 5.4).

    Args:
        graph: an `apportion.Graph` (or a NetworkX graph / SciPy sparse matrix, converted by `as_graph`); edge
            weights are its integer edge weights, or 1 each when it has none.
        threads: number of Numba threads for the kernels (None keeps the current setting).

    Returns:
        A `SpanningForest` with n - c edges for a graph with c connected components, of minimum total weight
        (equal to `scipy.sparse.csgraph.minimum_spanning_tree`'s). Among equal-weight choices the edge with the
        smaller canonical id (min(u, v), max(u, v)) wins, so the forest is deterministic.

    Raises:
        InputError: `graph` is not a graph `as_graph` accepts, or `threads` is not a valid thread count.
    """
    graph = as_graph(graph)
    with numba_threads(threads) as thread_count:
        start = time.perf_counter()
        previous_chunksize = numba.get_parallel_chunksize()
        numba.set_parallel_chunksize(1)
        try:
            u, v, w, rounds = _boruvka(graph, max(1, thread_count))
        finally:
            numba.set_parallel_chunksize(previous_chunksize)
        elapsed = time.perf_counter() - start
    return SpanningForest(u=u, v=v, weights=w, total_weight=int(w.sum()), components=graph.n - int(u.shape[0]),
                          n=graph.n, rounds=rounds, time_s=elapsed)


def _boruvka(graph: Graph, threads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The Borůvka rounds; returns the forest's (u, v, weight) arrays in canonical order and the rounds."""
    n = graph.n
    empty = np.empty(0, dtype=np.int64)
    if n == 0 or graph.m == 0:
        return empty, empty, empty, 0
    indptr, indices = graph.indptr, graph.indices
    weights = graph.edge_weights if graph.edge_weights is not None else np.empty(0, dtype=np.int64)
    if threads == 1 or indices.shape[0] < PARALLEL_MIN_ENTRIES:
        # one serial kernel call: no parallel kernel is even compiled for small graphs
        u, v, w, rounds = kernels.boruvka_serial(indptr, indices, weights)
        return u, v, w, int(rounds)

    # Round 1 on the CSR arrays: every vertex is its own component.
    bounds = kernels.vertex_chunks(indptr, PIECES_PER_THREAD * threads)
    best = kernels.lightest_incident_edge(indptr, indices, weights, bounds)
    label, components, keys, ws = kernels.merge_vertices(indices, weights, best)
    forest_keys, forest_ws = [keys], [ws]
    end_a, end_b, edge_ws, edge_keys, offsets = kernels.contract_csr_edges(indptr, indices, weights, label, bounds)
    rounds = 1
    # Later rounds on the contracted edge list (components as vertices, parallel edges kept), kept in the pieces
    # round 1 wrote and compacted in place, in parallel while enough edges cross components to pay for the
    # parallel launches; then the rest serially in one call.
    piece_start = offsets[:-1].copy()
    piece_length = np.diff(offsets)
    remaining = int(offsets[-1])
    while remaining >= SERIAL_FINISH_EDGES and threads > 1 and components > 0:
        best = kernels.lightest_edge_per_component(end_a, end_b, edge_ws, edge_keys, piece_start, piece_length,
                                                   components, threads)
        label, components, keys, ws = kernels.merge_components(end_a, end_b, edge_ws, edge_keys, best)
        forest_keys.append(keys)
        forest_ws.append(ws)
        remaining = int(kernels.contract_pieces(end_a, end_b, edge_ws, edge_keys, piece_start, piece_length, label))
        rounds += 1
    if remaining > 0 and components > 0:
        count = kernels.gather_pieces(end_a, end_b, edge_ws, edge_keys, piece_start, piece_length)
        keys, ws, more = kernels.finish_serially(end_a[:count], end_b[:count], edge_ws[:count], edge_keys[:count],
                                                 components)
        forest_keys.append(keys)
        forest_ws.append(ws)
        rounds += more
    u, v, w = kernels.sort_by_key(np.concatenate(forest_keys), np.concatenate(forest_ws), max(n, 1))
    return u, v, w, rounds
