"""NE — neighbourhood expansion edge partitioning (Zhang, Wu, Chen & Qian, KDD'17, Algorithm 1).

Parts are grown one after another from a core set C inside a boundary set S: the boundary vertex with the
fewest unassigned edges leaving S joins the core, its neighbours join the boundary, and every edge closed
inside S is taken. Each part stops at its exact share (⌊m/k⌋ or ⌈m/k⌉ edges), so NE is exactly balanced;
the last part takes what remains. The expansion runs in a Numba kernel (_ne_kernels.py).
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.edge._ne_kernels import ne_kernel
from apportion.partitioning.edge.incidence import edge_incidence


def exact_part_sizes(m: int, k: int) -> np.ndarray:
    """⌈m/k⌉ for the first m mod k parts, ⌊m/k⌋ for the others."""
    sizes = np.full(k, m // k, dtype=np.int64)
    sizes[: m % k] += 1
    return sizes


def neighbourhood_expansion(graph, k: int, imbalance: float, seed: int, incidence=None) -> np.ndarray:
    """Assignment in canonical edge order; random restarts follow a seeded vertex order. `incidence`: the
    graph's edge_incidence when the caller has it."""
    inc = edge_incidence(graph) if incidence is None else incidence
    order = np.random.default_rng(seed).permutation(graph.n).astype(np.int64)
    return ne_kernel(graph.indptr, inc.targets, inc.edge_of_entry, graph.m, k, exact_part_sizes(graph.m, k),
                     order)
