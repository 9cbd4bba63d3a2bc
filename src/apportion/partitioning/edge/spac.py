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

Pre-clustered Ψ (`run_cap`, this project's speed-up, not in the paper): the first levels of any multilevel
partitioner spend their time contracting clones of one vertex with each other. `clone_runs` builds that coarse
level directly: the cycle of clones of a vertex of degree d becomes ⌈d / run_cap⌉ *runs* of consecutive clones
(a vertex of degree ≤ run_cap is one run, weight d; a hub is split into runs of at most run_cap clones), dominant
edges join the runs holding their two clones (weight `dominant_weight`; two runs share at most one original
edge, so no weights add up) and consecutive runs of one vertex are linked by the auxiliary edges crossing that
run boundary in Ψ (weight 1; 2 when a cycle has just two runs). The vertex partition of this graph, projected to the clones, is a
vertex partition of Ψ whose cut in Ψ equals its cut here, so Ω, Theorem 3.4 and the rest are unchanged; the
graph has about n + 2m / run_cap vertices instead of 2m. run_cap = 1 is the full Ψ of the paper.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from apportion.graph.csr import Graph
from apportion.partitioning.edge._part_sets import PartSets, slot_offsets
from apportion.partitioning.edge._spac_kernels import (clone_runs_kernel, psi_cut_kernel,
                                                       reconstruct_copy_aware_kernel, reconstruct_kernel)
from apportion.partitioning.edge.incidence import EdgeIncidence, edge_incidence
from apportion.partitioning.edge.metrics import copy_statistics
from apportion.partitioning.edge.vertex_partitioner import partition_vertices
from apportion.partitioning.vertex.options import PartitionOptions, Variant
from apportion.ui import progress

DOMINANT_WEIGHT = 1000
RUN_CAP = 32

# The vertex partitioner's options for the run graph, pinned here so that SPAC does not move when the vertex
# partitioner's presets are retuned: the `fast` preset as of this writing (why, and what it measured:
# docs/edge-partition.md, "Vertex partition"). Fields not named keep PartitionOptions' own defaults; on
# heavy-tailed run graphs (maximum degree at least `heavy_tailed_ratio` times the average) the variant
# RUN_GRAPH_HEAVY_TAILED applies.
RUN_GRAPH_OPTIONS = dict(
    coarsening="clustering", matching="mutual", heavy_tailed_ratio=100.0, matching_rounds=4, clustering_rounds=3, clustering_rating="heavy", clustering_batches=4,
    clustering_stop_fraction=0.02, large_level=500_000, large_level_clustering_rounds=2, coarsest_per_block=20,
    coarsest_min=200, min_shrink=0.9, cluster_weight_fraction=1.0, two_hop_threshold=0.75, initial_tries=5,
    initial_fm_passes=2, bisection_coarsest=80, lp_refine_passes=2, fm_passes=2, fm_stop_fraction=0.1,
    fm_min_improvement=0.002, vcycles=0, multilevel_runs=1,
)


def run_graph_options():
    """SPAC's pinned PartitionOptions for the run graph (RUN_GRAPH_OPTIONS over PartitionOptions' defaults, and
    on heavy-tailed run graphs clustering without k-way FM)."""
    heavy_tailed = Variant.of("heavy-tailed: clustering, no FM", coarsening="clustering", fm_passes=0)
    return replace(PartitionOptions(), heavy_tailed=heavy_tailed, **RUN_GRAPH_OPTIONS).validated()


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


def clone_runs(graph, run_cap: int, dominant_weight: int = DOMINANT_WEIGHT,
               incidence: EdgeIncidence | None = None) -> tuple[Graph, np.ndarray]:
    """Ψ with each vertex's cycle of clones contracted into runs of ≤ `run_cap` consecutive clones.

    Returns (the run graph, run of every clone (2m,) int64). A vertex of degree d gets r = ⌈d / run_cap⌉ runs
    of ⌊d/r⌋ or ⌈d/r⌉ consecutive clones (clone j of the vertex goes to run ⌊j·r / d⌋); run weight = its number
    of clones, so the runs weigh 2m in all. Edges: a dominant edge (weight `dominant_weight`) between the runs
    of the two clones of every original edge, and an auxiliary edge (weight 1) between consecutive runs of one
    vertex (a cycle for r ≥ 3; for r = 2 one edge of weight 2, the two ends of the cycle, or 1 when d = 2). Every Graph invariant holds (sorted neighbour lists, no
    duplicates: two runs of different vertices share at most one original edge). Isolated vertices get no run.
    """
    if run_cap < 1:
        raise ValueError("run_cap must be at least 1")
    inc = incidence if incidence is not None else edge_incidence(graph)
    indptr, indices, weights, edge_weights, clone_run = clone_runs_kernel(
        graph.indptr.astype(np.int64), inc.targets, inc.reverse, int(run_cap), int(dominant_weight))
    run_graph = Graph._trusted(indptr, indices, weights, edge_weights,
                               name=f"runs({graph.name})" if graph.name else "runs")
    return run_graph, clone_run


def psi_cut(graph, clone_part: np.ndarray, incidence: EdgeIncidence | None = None) -> tuple[int, int]:
    """(auxiliary edges cut, dominant edges cut) in Ψ by a partition of its clones, without building Ψ."""
    inc = incidence if incidence is not None else edge_incidence(graph)
    auxiliary, dominant = psi_cut_kernel(np.ascontiguousarray(graph.indptr, dtype=np.int64),
                                         np.ascontiguousarray(clone_part), inc.upper_entries, inc.reverse)
    return int(auxiliary), int(dominant)


def _auxiliary_edges(graph) -> int:
    """Number of auxiliary edges of Ψ: d for a vertex of degree d ≥ 3, 1 for degree 2."""
    degree = np.diff(graph.indptr)
    return int(degree[degree >= 3].sum() + np.count_nonzero(degree == 2))


def transformed_cut(transformed: Graph, clone_part: np.ndarray, dominant_weight: int) -> tuple[int, int]:
    """(auxiliary edges cut, dominant edges cut) by a vertex partition of the transformed graph."""
    src = transformed.sources()
    upper = transformed.indices > src
    cut = clone_part[src[upper]] != clone_part[transformed.indices[upper]]
    dominant = transformed.edge_weights[upper] == dominant_weight
    return int(np.count_nonzero(cut & ~dominant)), int(np.count_nonzero(cut & dominant))


def spac(graph, k: int, imbalance: float, seed: int, *, dominant_weight: int = DOMINANT_WEIGHT,
         vertex_partitioner: str = "apportion", vertex_imbalance: float | None = None,
         vertex_preset=None, copy_aware: bool = True,
         run_cap: int = RUN_CAP, incidence: EdgeIncidence | None = None,
         part_sets_out: list | None = None) -> tuple[np.ndarray, dict]:
    """SPAC steps 1–3 (without the final balancing, which api.partition_edges applies to every method).

    `vertex_imbalance` is the imbalance allowed to the vertex partitioner on the transformed graph (default:
    max(imbalance, 0.03) — a little slack lets it find a smaller cut; balancing then moves few edges).
    `copy_aware` (default) gives a cut dominant edge to the candidate part that already holds more of its
    endpoints (fewer new copies), the lighter part on a tie; False is the paper's rule (the lighter part).
    `vertex_preset`: the vertex partitioner's preset name or PartitionOptions; None = `run_graph_options()`.
    `run_cap` > 1 partitions the pre-clustered Ψ (`clone_runs`; capped at a quarter of a part's 2m/k clones so
    runs stay small against the parts), 1 the full Ψ.
    `incidence`: the graph's edge_incidence when the caller has it. `part_sets_out`: a list to which the
    copy-aware reconstruction appends the part sets of the returned assignment (_part_sets.PartSets), so the
    refinement need not build them again.
    Returns (assignment in canonical edge order, details with the transformed graph's cut and the
    pre-balance copies, for Theorem 3.4).
    """
    t0 = time.perf_counter()
    inc = edge_incidence(graph) if incidence is None else incidence
    cap = max(1, min(int(run_cap), (2 * graph.m // k) // 4))
    if cap > 1:
        transformed, clone_run = clone_runs(graph, cap, dominant_weight, inc)
    else:
        transformed, clone_run = split_and_connect(graph, dominant_weight, inc), None
    t1 = time.perf_counter()
    eps = max(imbalance, 0.03) if vertex_imbalance is None else float(vertex_imbalance)
    preset = run_graph_options() if vertex_preset is None else vertex_preset
    with progress(f"SPAC: partitioning {transformed.n:,} clone vertices into {k} blocks"):
        part, used = partition_vertices(transformed, k, imbalance=eps, seed=seed, which=vertex_partitioner,
                                        preset=preset)
    clone_part = part if clone_run is None else np.ascontiguousarray(part[clone_run])
    t2 = time.perf_counter()
    part_sets = None
    if copy_aware:
        slot_ptr = slot_offsets(np.diff(graph.indptr).astype(np.int64), k)
        assignment, _, slot_part, slot_count, fill = reconstruct_copy_aware_kernel(
            clone_part, inc.upper_entries, inc.reverse, inc.u, inc.v, k, slot_ptr)
        part_sets = PartSets(slot_ptr, slot_part, slot_count, fill)
        copies_before = int(np.maximum(fill.astype(np.int64) - 1, 0).sum())
    else:
        assignment, _ = reconstruct_kernel(clone_part, inc.upper_entries, inc.reverse, k)
        copies_before, _ = copy_statistics(inc.u, inc.v, assignment, graph.n, k)
    t3 = time.perf_counter()
    auxiliary_cut, dominant_cut = psi_cut(graph, clone_part, inc)
    details = {
        "vertex_partitioner": used,
        "run_cap": cap,
        "partitioned_vertices": transformed.n,
        "transformed_vertices": 2 * graph.m,
        "transformed_edges": graph.m + _auxiliary_edges(graph),
        "auxiliary_edges_cut": auxiliary_cut,
        "dominant_edges_cut": dominant_cut,
        "transformed_cut_weight": auxiliary_cut + dominant_weight * dominant_cut,
        "copies_before_balance": copies_before,
        "phase_s": {"transform": t1 - t0, "vertex_partition": t2 - t1, "reconstruct": t3 - t2},
    }
    if part_sets_out is not None and part_sets is not None:
        part_sets_out.append(part_sets)
    return assignment, details
