"""SPAC — split-and-connect edge partitioning (Li et al., POMACS 2017 = seed 001, §3.2).

1. Ψ (Definition 3.2): every vertex v of degree d becomes d clones, one per incident edge; each original edge
   becomes a *dominant* edge (weight `dominant_weight`, 1000 as in the paper) between the clones of its two
   endpoints; the clones of v are linked by *auxiliary* edges of weight 1 into a cycle (the variant the paper's
   experiments use, footnote 2). The transformed graph has exactly 2m vertices.
2. A balanced k-way vertex partition of the transformed graph (apportion's own partitioner; METIS optional).
3. Ω (Definition 3.3): edge e goes to the part holding both clones of its dominant edge; a cut dominant edge
   goes to the lighter of its two parts (paper), or by default to the part creating fewer new copies. Then
   the group-move refinement (refine.py) and exact edge balance (balance.py).

Theorem 3.4: the copies after step 3 (before balancing) never exceed the number of transformed edges cut in
step 2; `details` reports both so the guarantee can be checked.

Clone numbering: the clone of v for edge {v, w} is the CSR entry (v→w) of the original graph, so the clones
of v are consecutive ids and the transform is a handful of vectorised array operations.
"""

from __future__ import annotations

import time

import numpy as np

from apportion.graph.csr import Graph
from apportion.partitioning.edge._part_sets import slot_offsets
from apportion.partitioning.edge._spac_kernels import reconstruct_copy_aware_kernel, reconstruct_kernel
from apportion.partitioning.edge.incidence import EdgeIncidence, edge_incidence
from apportion.partitioning.edge.metrics import copy_statistics
from apportion.partitioning.edge.vertex_partitioner import partition_vertices

DOMINANT_WEIGHT = 1000


def split_and_connect(graph, dominant_weight: int = DOMINANT_WEIGHT,
                      incidence: EdgeIncidence | None = None) -> Graph:
    """The Ψ transform (cycle variant) of `graph`: 2m clone vertices, dominant and auxiliary edges.

    Clone i is CSR entry i of `graph` (a copy of its source vertex). Its neighbours are its twin clone
    (dominant edge, weight `dominant_weight`) and, when its vertex has degree ≥ 2, the previous and next clone
    of the same vertex in cyclic order (auxiliary edges, weight 1; a degree-2 vertex gives one auxiliary edge,
    a degree-1 vertex none). Neighbour lists are sorted; the result satisfies every Graph invariant.
    """
    inc = incidence if incidence is not None else edge_incidence(graph)
    indptr = graph.indptr
    entries = inc.sources.shape[0]
    position = np.arange(entries, dtype=np.int64)
    start = indptr[inc.sources]
    end = indptr[inc.sources + 1]
    degree = end - start
    following = np.where(position + 1 < end, position + 1, start)
    preceding = np.where(position > start, position - 1, end - 1)
    none = np.int64(-1)
    neighbours = np.stack([
        inc.reverse,
        np.where(degree >= 2, following, none),
        np.where(degree >= 3, preceding, none),
    ], axis=1)
    weights = np.empty_like(neighbours)
    weights[:, 0] = dominant_weight
    weights[:, 1:] = 1
    # sort each row's (up to) three neighbours; missing ones (-1) sort to the end via a large key
    key = np.where(neighbours < 0, np.int64(np.iinfo(np.int64).max), neighbours)
    order = np.argsort(key, axis=1, kind="stable")
    neighbours = np.take_along_axis(neighbours, order, axis=1)
    weights = np.take_along_axis(weights, order, axis=1)
    present = neighbours >= 0
    new_indptr = np.zeros(entries + 1, dtype=np.int64)
    np.cumsum(present.sum(axis=1), out=new_indptr[1:])
    return Graph._trusted(new_indptr, neighbours[present], None, weights[present],
                          name=f"psi({graph.name})" if graph.name else "psi")


def transformed_cut(transformed: Graph, clone_part: np.ndarray, dominant_weight: int) -> tuple[int, int]:
    """(auxiliary edges cut, dominant edges cut) by a vertex partition of the transformed graph."""
    src = transformed.sources()
    upper = transformed.indices > src
    cut = clone_part[src[upper]] != clone_part[transformed.indices[upper]]
    dominant = transformed.edge_weights[upper] == dominant_weight
    return int(np.count_nonzero(cut & ~dominant)), int(np.count_nonzero(cut & dominant))


def spac(graph, k: int, imbalance: float, seed: int, *, dominant_weight: int = DOMINANT_WEIGHT,
         vertex_partitioner: str = "apportion", vertex_imbalance: float | None = None,
         vertex_preset: str = "default", copy_aware: bool = True) -> tuple[np.ndarray, dict]:
    """SPAC steps 1–3 (without the final balancing, which api.edge_partition applies to every method).

    `vertex_imbalance` is the imbalance allowed to the vertex partitioner on the transformed graph (default:
    max(imbalance, 0.03) — a little slack lets it find a smaller cut; balancing then moves few edges).
    `copy_aware` (default) gives a cut dominant edge to the candidate part that already holds more of its
    endpoints (fewer new copies), the lighter part on a tie; False is the paper's rule (the lighter part).
    Returns (assignment in canonical edge order, details with the transformed graph's cut and the
    pre-balance copies, for Theorem 3.4).
    """
    t0 = time.perf_counter()
    inc = edge_incidence(graph)
    transformed = split_and_connect(graph, dominant_weight, inc)
    t1 = time.perf_counter()
    eps = max(imbalance, 0.03) if vertex_imbalance is None else float(vertex_imbalance)
    clone_part, used = partition_vertices(transformed, k, imbalance=eps, seed=seed, which=vertex_partitioner,
                                          preset=vertex_preset)
    t2 = time.perf_counter()
    if copy_aware:
        slot_ptr = slot_offsets(graph.degrees().astype(np.int64), k)
        assignment, _ = reconstruct_copy_aware_kernel(clone_part, inc.upper_entries, inc.reverse, inc.u, inc.v, k,
                                                      slot_ptr)
    else:
        assignment, _ = reconstruct_kernel(clone_part, inc.upper_entries, inc.reverse, k)
    t3 = time.perf_counter()
    auxiliary_cut, dominant_cut = transformed_cut(transformed, clone_part, dominant_weight)
    copies_before, _ = copy_statistics(inc.u, inc.v, assignment, graph.n, k)
    details = {
        "vertex_partitioner": used,
        "transformed_vertices": transformed.n,
        "transformed_edges": transformed.m,
        "auxiliary_edges_cut": auxiliary_cut,
        "dominant_edges_cut": dominant_cut,
        "transformed_cut_weight": auxiliary_cut + dominant_weight * dominant_cut,
        "copies_before_balance": copies_before,
        "phase_s": {"transform": t1 - t0, "vertex_partition": t2 - t1, "reconstruct": t3 - t2},
    }
    return assignment, details
