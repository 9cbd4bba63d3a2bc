"""Helpers for the vertex-partitioner tests: small graphs and an independent recount of a partition."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from apportion.graph.csr import Graph


def recount(graph: Graph, assignment: np.ndarray, k: int) -> tuple[int, np.ndarray]:
    """Cut and (k, ncon) block weights by plain NumPy, independent of the partitioner's kernels."""
    u, v, w = graph.edges()
    w = np.ones(u.shape[0], dtype=np.int64) if w is None else w
    cut = int(w[assignment[u] != assignment[v]].sum())
    vw = graph.vertex_weight_matrix()
    weights = np.zeros((k, vw.shape[1]), dtype=np.int64)
    np.add.at(weights, assignment, vw)
    return cut, weights


def grid(rows: int, cols: int, **weights) -> Graph:
    return Graph.from_networkx(nx.grid_2d_graph(rows, cols)).with_weights(**weights) if weights else \
        Graph.from_networkx(nx.grid_2d_graph(rows, cols))


def random_graph(n: int, m: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, size=m)
    dst = rng.integers(0, n, size=m)
    return Graph.from_edges(src, dst, n=n)


def whole_targets(graph: Graph, shares: np.ndarray) -> np.ndarray:
    """ceil(share * W) per block and constraint (a product within 1e-9 of a whole number counts as that
    number), computed here independently."""
    total = graph.vertex_weight_matrix().sum(axis=0)
    return np.array([[math.ceil(float(s) * int(w) - 1e-9) for w in total] for s in shares], dtype=np.int64)


def expected_limits(graph: Graph, shares: np.ndarray, epsilon: float) -> np.ndarray:
    """floor((1 + eps) * ceil(share * W)) per block and constraint (METIS's and KaMinPar's limit), computed
    here independently."""
    return np.array([[math.floor((1 + epsilon) * int(c) + 1e-9) for c in row]
                     for row in whole_targets(graph, shares)], dtype=np.int64)
