"""Threshold of the heterogeneous connected components by sampling (seed 004 §III-A).

Sample: √n vertices chosen uniformly at random and the subgraph they induce (`induced_sample`), kept in the
order of their ids so that a prefix of the sample stands for a prefix of the graph (Algorithm 1 gives the CPU a
vertex prefix). The paper notes that such a sample of a sparse graph is nearly edgeless (each sampled vertex
keeps about deg·√n/n of its edges), so the run on it measures vertex work only; `walk_sample` keeps the
structure at the same cost: short random walks from random starts, whose consecutive vertices are
neighbours, collected until √n distinct vertices, then the subgraph they induce.
Identify: Algorithm 1 on the sample at thresholds 0, 8, …, 96, 100, then every 1 within 8 of the best
(`scan`, the paper's: 28 runs); or (`balance`, ours) the threshold where the two sides finish together, found by
regula falsi on the difference of their times, and the two ends (`threshold_common.balance_search`: 5–10 runs).
Extrapolate: t = t'.
"""

from __future__ import annotations

import numpy as np

from apportion._registry import Registry
from apportion.checks import check_seed
from apportion.graph.csr import Graph
from apportion.errors import InputError
from apportion.schedule._threshold_kernels import random_walks
from apportion.schedule.threshold_common import (SEARCHES, Evaluate, Stopwatch, ThresholdEstimate, balance_search,
                                                 coarse_to_fine, induced_subgraph, sample_size)

#: steps of one random walk of `walk_sample`
WALK_LENGTH = 16


def _sample_graph(graph: Graph, vertices: np.ndarray) -> Graph:
    indptr, indices = induced_subgraph(graph.indptr, graph.indices, vertices)
    return Graph._trusted(indptr, indices, name=f"sample of {graph.name or 'graph'}")


def induced_sample(graph: Graph, size: int, seed: int = 0) -> Graph:
    """The subgraph induced by `size` vertices drawn uniformly without replacement (§III-A.1), in id order."""
    rng = np.random.default_rng(seed)
    vertices = np.sort(rng.choice(graph.n, size=min(size, graph.n), replace=False))
    return _sample_graph(graph, vertices)


def walk_sample(graph: Graph, size: int, seed: int = 0) -> Graph:
    """The subgraph induced by the vertices of random walks of WALK_LENGTH steps from uniform random starts,
    until `size` distinct vertices (in id order). The walks of a batch are one compiled loop
    (`_threshold_kernels.random_walks`); a walk at an isolated vertex stays there."""
    rng = np.random.default_rng(seed)
    size = min(size, graph.n)
    indptr, indices = graph.indptr, graph.indices
    chosen = np.zeros(0, dtype=np.int64)
    for _attempt in range(64):
        missing = size - chosen.shape[0]
        if missing <= 0:
            break
        walkers = max(1, -(-missing // WALK_LENGTH))
        starts = rng.integers(0, graph.n, size=walkers)
        visited = random_walks(indptr, indices, starts, rng.random((WALK_LENGTH - 1, walkers)))
        fresh = np.setdiff1d(np.unique(visited), chosen)
        if fresh.shape[0] > missing:
            fresh = rng.choice(fresh, size=missing, replace=False)
        chosen = np.union1d(chosen, fresh)
    return _sample_graph(graph, np.sort(chosen))


SAMPLERS: Registry = Registry("cc sampler", {"induced": induced_sample, "walk": walk_sample})
#: measured in docs/threshold.md
DEFAULT_SAMPLER = "walk"


def sample_statistics(graph: Graph, sample: Graph) -> dict:
    """How much of the input's structure the sample kept: sizes and average degrees of both."""
    return {"vertices": sample.n, "edges": sample.m, "average_degree": 2.0 * sample.m / max(sample.n, 1),
            "input_average_degree": 2.0 * graph.m / max(graph.n, 1)}


def estimate_cc_threshold(graph: Graph, evaluate: Evaluate, *, simulated: bool, seed: int = 0,
                          sampler: str = DEFAULT_SAMPLER, scale: float = 1.0, search: str = "scan",
                          host_seconds_per_operation: float | None = None,
                          host_threads: int = 1) -> ThresholdEstimate:
    """Seed 004 §III-A: sample `scale`·√n vertices with `sampler` ("induced" or "walk"), search the sample
    with `evaluate(sample, t)` — coarse (step 8) then fine (step 1) (`search="scan"`) or for the balance of
    the sides (`"balance"`) — and return t = t'. Sampling costs the sampled vertices and their adjacency."""
    seed = check_seed(seed)
    if search not in SEARCHES:
        raise InputError(f"unknown threshold search {search!r}; choose one of {', '.join(SEARCHES)}")
    draw = SAMPLERS[sampler]
    watch = Stopwatch(simulated, host_seconds_per_operation, host_threads)
    degree = graph.m * 2.0 / max(graph.n, 1)
    sample = watch.host(draw, graph, sample_size(graph.n, scale), seed,
                        operations=lambda s: s.n * (2.0 + degree))
    if search == "scan":
        best = coarse_to_fine(watch, evaluate, sample, coarse_step=8, fine_step=1)
    else:
        best = balance_search(watch, evaluate, sample)
    return ThresholdEstimate(threshold=float(best), seconds=watch.seconds, method=f"sample-{sampler}-{search}",
                             runs=watch.runs, tried=dict(watch.tried), sample=sample_statistics(graph, sample))
