"""`partition_edges`: the one entry point of balanced edge partitioning (seed 001).

Validates the request, runs the method, restores the requested edge balance with the shared copy-aware step
(balance.py) whenever the method's own result is outside it, and wraps the result with its metrics.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from apportion._registry import Registry
from apportion.checks import check_imbalance, check_k, check_seed, check_threads, integer
from apportion.errors import InputError
from apportion.graph.csr import as_graph
from apportion.partitioning.edge import ne, spac, streaming, wvp
from apportion.partitioning.edge.balance import rebalance
from apportion.partitioning.edge.hypergraph import hypergraph_partition
from apportion.partitioning.edge.incidence import edge_incidence
from apportion.partitioning.edge.options import METHOD_OPTIONS, REFINE_BY_DEFAULT, EdgePartitionOptions
from apportion.partitioning.edge.refine import refine_balanced
from apportion.partitioning.edge.result import EdgePartition, make_edge_partition
from apportion.partitioning.edge.vertex_partitioner import VERTEX_PARTITIONERS
from apportion.partitioning.vertex.options import PRESETS, PartitionOptions


#: bounds of two integer options (beyond them int64 arithmetic in the kernels overflows; no run needs more)
MAX_DOMINANT_WEIGHT = 10**9
MAX_REFINE_PASSES = 10**6


def _check(graph, k, imbalance, seed, method, options) -> EdgePartitionOptions:
    EDGE_METHODS.canonical(method)  # an unknown name: InputError listing the methods
    check_k(k, max(graph.m, 1), what="edges", count=graph.m)
    check_imbalance(imbalance)
    check_seed(seed)
    allowed = METHOD_OPTIONS[method]
    for name in options:
        if name not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise InputError(f"method {method!r} has no option {name!r} (its options: {known})")
    opts = replace(EdgePartitionOptions(), **options)
    if opts.vertex_partitioner not in VERTEX_PARTITIONERS:
        raise InputError(f"vertex_partitioner must be one of {', '.join(VERTEX_PARTITIONERS)}, "
                         f"got {opts.vertex_partitioner!r}")
    # the Ψ-transformed graph's edge weights sum in int64: a billion per dominant edge leaves room for 9·10^9 edges
    integer(opts.dominant_weight, "dominant_weight", low=1, high=MAX_DOMINANT_WEIGHT)
    if opts.vertex_imbalance is not None:
        check_imbalance(opts.vertex_imbalance, name="vertex_imbalance")
    if isinstance(opts.lam, (bool, np.bool_)) or not isinstance(opts.lam, (int, float, np.integer, np.floating)) \
            or not math.isfinite(opts.lam) or opts.lam < 0:
        raise InputError(f"lam (HDRF's λ) must be a finite number ≥ 0, got {opts.lam!r}")
    if opts.refine is not None and not isinstance(opts.refine, (bool, np.bool_)):
        raise InputError(f"refine must be True, False or None, got {opts.refine!r}")
    integer(opts.refine_passes, "refine_passes", low=0, high=MAX_REFINE_PASSES)
    if isinstance(opts.run_cap, bool) or not isinstance(opts.run_cap, (int, np.integer)) or opts.run_cap < 1:
        raise InputError(f"run_cap must be an integer ≥ 1, got {opts.run_cap!r}")
    if opts.vertex_preset is not None and not isinstance(opts.vertex_preset, PartitionOptions) \
            and opts.vertex_preset not in PRESETS:
        raise InputError(f"vertex_preset must be {', '.join(PRESETS.names())} or a PartitionOptions, "
                         f"got {opts.vertex_preset!r}")
    check_threads(opts.threads)
    return opts


# Each method: (graph, k, imbalance, seed, opts, incidence, part_sets_out) -> (assignment, details). The names are
# those of options.METHOD_OPTIONS (which options each method reads); tests/core/test_registry.py keeps them equal.
EDGE_METHODS: Registry = Registry("edge-partitioning method")


@EDGE_METHODS.register("spac")
def _spac(graph, k, imbalance, seed, opts, incidence, part_sets_out):
    return spac.spac(graph, k, imbalance, seed, dominant_weight=int(opts.dominant_weight),
                     vertex_partitioner=opts.vertex_partitioner, vertex_imbalance=opts.vertex_imbalance,
                     vertex_preset=opts.vertex_preset, run_cap=int(opts.run_cap), incidence=incidence,
                     part_sets_out=part_sets_out)


def _streaming(partitioner):
    def run(graph, k, imbalance, seed, opts, incidence, part_sets_out):
        return partitioner(graph, k, imbalance, seed), {}
    return run


EDGE_METHODS.add("random", _streaming(streaming.random_edges))
EDGE_METHODS.add("dbh", _streaming(streaming.dbh))
EDGE_METHODS.add("greedy", _streaming(streaming.greedy))


@EDGE_METHODS.register("hdrf")
def _hdrf(graph, k, imbalance, seed, opts, incidence, part_sets_out):
    return streaming.hdrf(graph, k, imbalance, seed, lam=float(opts.lam)), {"lambda": float(opts.lam)}


def _wvp(greedy: bool):
    def run(graph, k, imbalance, seed, opts, incidence, part_sets_out):
        return wvp.wvp(graph, k, imbalance, seed, greedy=greedy, vertex_partitioner=opts.vertex_partitioner,
                       vertex_imbalance=opts.vertex_imbalance,
                       vertex_preset="default" if opts.vertex_preset is None else opts.vertex_preset)
    return run


EDGE_METHODS.add("wvp-random", _wvp(greedy=False))
EDGE_METHODS.add("wvp-greedy", _wvp(greedy=True))


@EDGE_METHODS.register("ne")
def _ne(graph, k, imbalance, seed, opts, incidence, part_sets_out):
    return ne.neighbourhood_expansion(graph, k, imbalance, seed, incidence=incidence), {}


@EDGE_METHODS.register("hypergraph")
def _hypergraph(graph, k, imbalance, seed, opts, incidence, part_sets_out):
    return hypergraph_partition(graph, k, imbalance, seed, threads=opts.threads, preset=opts.preset)


def partition_edges(graph, k: int, *, method: str = "spac", imbalance: float = 0.0, seed: int = 0,
                   **options) -> EdgePartition:
    """Partition the edges of `graph` into k parts, minimising vertex copies Σ_v (p_v − 1) (seed 001 §3.1).

    Args:
        graph: an apportion Graph (undirected; edge weights are ignored — every edge is one unit of work), or
            a NetworkX graph / SciPy sparse matrix, converted by `as_graph`.
        k: number of parts, 1 ≤ k ≤ m.
        method: "spac" (default; seed 001 §3.2), "random", "dbh", "greedy", "hdrf", "wvp-random",
            "wvp-greedy", "ne", or "hypergraph" (Mt-KaHyPar; needs the mtkahypar package).
        imbalance: ε ≥ 0. Every part holds at most max(⌈m/k⌉, ⌊(1+ε)·m/k⌋) edges; at ε = 0 every part holds
            ⌊m/k⌋ or ⌈m/k⌉ edges (exact balance), whatever the method.
        seed: every random choice follows it; same seed, same result.
        **options: method options (see options.EdgePartitionOptions); an option the method does not read is
            an InputError.

    Returns an EdgePartition whose assignment lists the part of every edge in canonical order (graph.edges()).
    details["balance_moves"] counts the edges the final balancing step moved. With refinement (option `refine`,
    on by default for spac and ne) the method's result is first improved by group moves (refine.py);
    details then carry copies_before_refine and the refinement's statistics.
    Raises InputError on bad arguments, UnavailableError when "hypergraph" lacks mtkahypar.
    """
    graph = as_graph(graph)
    opts = _check(graph, k, imbalance, seed, method, options)
    k = int(k)
    imbalance = float(imbalance)
    seed = int(seed)
    start = time.perf_counter()
    # the entry ↔ edge correspondence, computed once (O(n + m)): canonical endpoints for every method and the
    # graph's own CSR as the incidence lists of the refinement and balancing kernels (no sort needed)
    incidence = edge_incidence(graph) if graph.m > 0 and k > 1 else None
    part_sets: list = []   # SPAC's reconstruction leaves the part sets of its assignment here for the refinement
    if graph.m == 0:
        assignment, details = np.zeros(0, dtype=np.int32), {}
    elif k == 1:
        assignment, details = np.zeros(graph.m, dtype=np.int32), {}
    else:
        assignment, details = EDGE_METHODS[method](graph, k, imbalance, seed, opts, incidence, part_sets)
    if incidence is not None:
        u, v = incidence.u, incidence.v
        lists = (np.ascontiguousarray(graph.indptr, dtype=np.int64), incidence.targets, incidence.edge_of_entry)
    else:
        u, v, _ = graph.edges()
        lists = None
    details = dict(details)
    phase_s = dict(details.get("phase_s", {}))
    refine = method in REFINE_BY_DEFAULT if opts.refine is None else bool(opts.refine)
    balance_s = 0.0
    if refine and k > 1 and graph.m > 0 and opts.refine_passes > 0:
        refine_start = time.perf_counter()
        assignment, stats = refine_balanced(u, v, assignment, graph.n, k, imbalance, seed=seed,
                                            passes=int(opts.refine_passes), lists=lists,
                                            part_sets=part_sets[0] if part_sets else None)
        balance_s = stats.pop("balance_s")
        phase_s["refine"] = time.perf_counter() - refine_start - balance_s
        details.update(stats)
    balance_start = time.perf_counter()
    assignment, moves = rebalance(u, v, assignment, graph.n, k, imbalance, lists=lists)
    phase_s["balance"] = balance_s + time.perf_counter() - balance_start
    elapsed = time.perf_counter() - start
    if "phase_s" in details or refine:
        details["phase_s"] = phase_s
    details["refined"] = bool(refine)
    details["balance_moves"] = moves
    return make_edge_partition(graph, assignment, k, method, elapsed, details)


# The public partition functions are verb first: partition (vertices), partition_edges, partition_grid. The
# earlier name stays an alias.
edge_partition = partition_edges
