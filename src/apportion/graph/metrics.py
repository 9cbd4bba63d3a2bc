"""Quality of a vertex partition and of an edge partition, recounted from scratch.

Every partitioner in apportion reports its own metrics; these functions are the independent recount the tests
and `apportion evaluate` use. Definitions (docs/graph.md repeats them with formulas):

Vertex partition of G = (V, E) into k blocks, block(v) ∈ [0, k):
- cut: total weight of the edges whose ends lie in different blocks (each undirected edge once).
- block_weights[b, c]: total weight of constraint c over the vertices of block b.
- target_weights[b, c]: targets[b] / Σ targets · total weight of constraint c (equal shares by default).
- imbalance: max over b, c of block_weights / ⌈target_weights⌉ − 1, against the target rounded up to a whole
  weight (KaMinPar's perfect block weight ⌈W/k⌉; the vertex partitioner's limit is ⌊(1 + ε)·⌈target⌉⌋, so a
  partition within that limit has imbalance ≤ ε). A zero target counts 0 when its block weighs 0, +inf
  otherwise; a constraint with total weight 0 is skipped.
- communication_volume: Σ_v |{block(u) : u ∈ N(v)} \\ {block(v)}| — METIS's total communication volume
  (vertex sizes all 1).
- boundary_vertices: number of vertices with a neighbour in another block.
- block_connectivity[b]: number of other blocks joined to b by at least one edge.
- empty_blocks: number of blocks without any vertex.

Edge partition (each undirected edge in one of k parts; assignment in the canonical order of `Graph.edges()`):
- edges_per_part[i]: number of edges in part i.
- p_v: number of distinct parts among the edges at v.
- vertex_copies: Σ_v (p_v − 1) over vertices with at least one edge.
- replication_factor: Σ_v p_v / |{v : deg v > 0}| (1.0 when there are no edges).
- edge_imbalance: max_i edges_per_part[i] / (m / k) − 1 (0 when there are no edges).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from apportion._arrays import sorted_distinct
from apportion.checks import check_shares, integer
from apportion.errors import InputError
from apportion.graph.csr import Graph, as_graph


def _to_plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class VertexPartitionMetrics:
    """Quality of a vertex partition (definitions in the module docstring).

    Attributes:
        k: number of blocks.
        cut: weighted edge cut, each undirected edge once.
        block_weights: int64, shape (k,) for one constraint, (k, ncon) for several.
        target_weights: float64, same shape: targets normalised × total weight per constraint.
        imbalance: max over blocks and constraints of block weight / ⌈target weight⌉ − 1.
        communication_volume: Σ_v number of foreign blocks among v's neighbours.
        boundary_vertices: vertices with at least one neighbour in another block.
        block_connectivity: int64 (k,), number of other blocks each block shares an edge with.
        empty_blocks: number of blocks with no vertex.
    """

    k: int
    cut: int
    block_weights: np.ndarray
    target_weights: np.ndarray
    imbalance: float
    communication_volume: int
    boundary_vertices: int
    block_connectivity: np.ndarray
    empty_blocks: int

    def to_dict(self) -> dict[str, Any]:
        """Plain Python types (lists for arrays), ready for JSON (an infinite imbalance stays float('inf'))."""
        return {f.name: _to_plain(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class EdgePartitionMetrics:
    """Quality of an edge partition (definitions in the module docstring).

    Attributes:
        k: number of parts.
        edges_per_part: int64 (k,).
        vertex_copies: Σ_v (p_v − 1) over non-isolated vertices.
        replication_factor: Σ_v p_v / number of non-isolated vertices.
        edge_imbalance: max edges_per_part / (m / k) − 1.
    """

    k: int
    edges_per_part: np.ndarray
    vertex_copies: int
    replication_factor: float
    edge_imbalance: float

    def to_dict(self) -> dict[str, Any]:
        """Plain Python types (lists for arrays), ready for JSON."""
        return {f.name: _to_plain(getattr(self, f.name)) for f in fields(self)}


def whole_target_weights(target_weights: np.ndarray) -> np.ndarray:
    """int64 ⌈target_weights⌉ elementwise: the weight a perfectly balanced block would hold, rounded up to a
    whole weight. A relative 1e-12 tolerance keeps a product that is whole up to rounding
    (0.1 · 30 = 3.0000000000000004) from going up to the next integer."""
    exact = np.asarray(target_weights, dtype=np.float64)
    return np.ceil(exact * (1.0 - 1e-12) - 1e-9).astype(np.int64)


def imbalance_against(block_weights: np.ndarray, whole_targets: np.ndarray) -> float:
    """max over blocks and constraints of block_weights / whole_targets − 1 (`whole_targets` from
    `whole_target_weights`); a zero whole target counts 0 when its block weighs 0, +inf otherwise; 0.0 for no
    blocks."""
    if block_weights.size == 0:
        return 0.0
    positive = whole_targets > 0
    ratio = np.zeros(block_weights.shape, dtype=np.float64)
    ratio[positive] = block_weights[positive] / whole_targets[positive] - 1.0
    ratio[~positive & (block_weights > 0)] = np.inf
    return float(ratio.max())


def _check_assignment(assignment: Any, length: int, k: int | None, what: str, count_name: str) -> tuple[np.ndarray, int]:
    """Validate block ids: 1-D integers, one per item, in [0, k); returns (int64 array, k)."""
    a = np.asarray(assignment)
    if a.ndim != 1:
        raise InputError(f"{what} must be a 1-D array, got shape {a.shape}")
    if a.shape[0] != length:
        raise InputError(f"{what} has {a.shape[0]} entries but the graph has {length} {count_name}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if a.dtype == bool or not np.issubdtype(a.dtype, np.floating) or not np.array_equal(a, np.rint(a)):
            raise InputError(f"{what} must hold integer block ids, got dtype {a.dtype}")
    a = np.ascontiguousarray(a, dtype=np.int64)
    if k is not None:
        k = integer(k, "k", low=1)
    if a.size:
        low, high = int(a.min()), int(a.max())
        if low < 0:
            bad = int(np.flatnonzero(a < 0)[0])
            raise InputError(f"{what}: entry {bad} has negative block id {a[bad]}")
        if k is not None and high >= k:
            bad = int(np.flatnonzero(a >= k)[0])
            raise InputError(f"{what}: entry {bad} has block id {a[bad]}, outside [0, {k}) for k = {k}")
        if k is None:
            k = high + 1
    elif k is None:
        k = 1
    return a, k


def _check_targets(targets: Any, k: int, ncon: int) -> np.ndarray:
    """Relative block sizes → fractions of shape (k, ncon); a (k,) vector applies to every constraint."""
    t = check_shares(targets, name="targets", allow_zero=True, normalise=False)
    if t.ndim == 1:
        if t.shape[0] != k:
            raise InputError(f"targets has {t.shape[0]} entries but k = {k}")
        t = np.repeat(t.reshape(-1, 1), ncon, axis=1)
    elif t.ndim == 2:
        if t.shape != (k, ncon):
            raise InputError(f"targets must have shape ({k},) or ({k}, {ncon}), got {t.shape}")
    else:
        raise InputError(f"targets must be a vector of length k = {k}, got shape {t.shape}")
    return check_shares(t, k, allow_zero=True)


def vertex_partition_metrics(graph: Graph, assignment: Any, k: int | None = None,
                             targets: Any = None) -> VertexPartitionMetrics:
    """Recount every quality measure of a vertex partition (definitions in the module docstring).

    Args:
        graph: the partitioned graph (edge and vertex weights are used when present); a NetworkX graph or
            SciPy sparse matrix is converted by `as_graph`.
        assignment: block id of every vertex, length n, ids in [0, k).
        k: number of blocks; default len(targets) if targets are given, else max id + 1.
        targets: relative block sizes, length k (or shape (k, ncon) for per-constraint targets); non-negative
            with a positive sum; equal shares when None.

    Raises:
        InputError: assignment of the wrong length or type, ids outside [0, k), k < 1, bad targets.
    """
    from apportion.graph._metrics_kernels import vertex_partition_counts

    graph = as_graph(graph)
    if k is None and targets is not None:
        k = int(np.asarray(targets).shape[0]) if np.ndim(targets) >= 1 else None
    a, k = _check_assignment(assignment, graph.n, k, "assignment", "vertices")
    weights = graph.vertex_weight_matrix()
    ncon = weights.shape[1]
    block_weights = np.zeros((k, ncon), dtype=np.int64)
    for c in range(ncon):
        block_weights[:, c] = np.bincount(a, weights=weights[:, c], minlength=k).astype(np.int64) \
            if graph.n else 0
    fractions = np.full((k, ncon), 1.0 / k) if targets is None else _check_targets(targets, k, ncon)
    target_weights = fractions * graph.total_vertex_weight().astype(np.float64)

    imbalance = imbalance_against(block_weights, whole_target_weights(target_weights))

    edge_weights = graph.edge_weights if graph.edge_weights is not None else np.zeros(1, dtype=np.int64)
    block_pairs = np.empty(max(graph.indices.shape[0], 1), dtype=np.int64)
    cut, volume, boundary = vertex_partition_counts(graph.indptr, graph.indices, edge_weights,
                                                    graph.edge_weights is not None, a, k, block_pairs)
    neighbouring = sorted_distinct(block_pairs[:volume])
    block_connectivity = np.bincount(neighbouring // k, minlength=k).astype(np.int64)
    sizes = np.bincount(a, minlength=k)

    if ncon == 1:
        block_weights = block_weights[:, 0]
        target_weights = target_weights[:, 0]
    return VertexPartitionMetrics(
        k=int(k), cut=int(cut), block_weights=_frozen(block_weights), target_weights=_frozen(target_weights),
        imbalance=imbalance, communication_volume=int(volume), boundary_vertices=int(boundary),
        block_connectivity=_frozen(block_connectivity), empty_blocks=int(np.count_nonzero(sizes == 0)))


def edge_partition_metrics(graph: Graph, assignment: Any, k: int | None = None) -> EdgePartitionMetrics:
    """Recount the quality of an edge partition (definitions in the module docstring).

    Args:
        graph: the partitioned graph (or a NetworkX graph / SciPy sparse matrix, converted by `as_graph`).
        assignment: part of every undirected edge, length m, in the canonical order of `graph.edges()`
            (u < v, by u then v), ids in [0, k).
        k: number of parts; default max id + 1.

    Raises:
        InputError: assignment of the wrong length or type, ids outside [0, k), k < 1.
    """
    from apportion.graph._metrics_kernels import entry_edge_ids, parts_per_vertex

    graph = as_graph(graph)
    a, k = _check_assignment(assignment, graph.m, k, "edge assignment", "edges")
    edges_per_part = np.bincount(a, minlength=k).astype(np.int64)
    edge_id = entry_edge_ids(graph.indptr, graph.indices)
    parts = parts_per_vertex(graph.indptr, edge_id, a, k)
    touched = int(np.count_nonzero(graph.degrees()))
    total_parts = int(parts.sum())
    m = graph.m
    return EdgePartitionMetrics(
        k=int(k), edges_per_part=_frozen(edges_per_part), vertex_copies=total_parts - touched,
        replication_factor=total_parts / touched if touched else 1.0,
        edge_imbalance=float(edges_per_part.max() / (m / k) - 1.0) if m else 0.0)


__all__ = ["VertexPartitionMetrics", "EdgePartitionMetrics", "vertex_partition_metrics", "edge_partition_metrics",
           "whole_target_weights", "imbalance_against"]
