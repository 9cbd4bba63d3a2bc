"""Summary statistics of a graph: sizes, degree statistics, components and weights (what `apportion info` shows)."""

from __future__ import annotations

from typing import Any

import numpy as np

from apportion.graph.csr import Graph


def graph_summary(graph: Graph) -> dict[str, Any]:
    """Plain-typed facts about `graph` (every value is an int, float, bool, str or list).

    Keys: name, n, m, min_degree, max_degree, mean_degree (2m / n), median_degree, isolated_vertices,
    components (connected components, isolated vertices included, via scipy.sparse.csgraph),
    largest_component (vertices in the largest one), ncon, has_vertex_weights, has_edge_weights,
    total_vertex_weight (list, one per constraint), total_edge_weight (each undirected edge once).
    An empty graph (n = 0) has degree statistics 0 and 0 components.
    """
    from scipy.sparse.csgraph import connected_components

    n = graph.n
    degrees = graph.degrees()
    if n:
        count, labels = connected_components(graph.to_scipy(weighted=False), directed=False)
        largest = int(np.bincount(labels).max())
        stats = dict(min_degree=int(degrees.min()), max_degree=int(degrees.max()),
                     mean_degree=float(2 * graph.m / n), median_degree=float(np.median(degrees)),
                     isolated_vertices=int(np.count_nonzero(degrees == 0)))
    else:
        count, largest = 0, 0
        stats = dict(min_degree=0, max_degree=0, mean_degree=0.0, median_degree=0.0, isolated_vertices=0)
    return {
        "name": graph.name,
        "n": n,
        "m": graph.m,
        **stats,
        "components": int(count),
        "largest_component": largest,
        "ncon": graph.ncon,
        "has_vertex_weights": graph.vertex_weights is not None,
        "has_edge_weights": graph.edge_weights is not None,
        "total_vertex_weight": [int(x) for x in graph.total_vertex_weight()],
        "total_edge_weight": int(graph.total_edge_weight()),
    }
