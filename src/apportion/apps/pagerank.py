"""PageRank across several devices by residual push on the asynchronous runtime (seed 003 §4.5, §5.1.3).

`pagerank(graph, devices=2, alpha=0.85, tolerance=1e-3, ...)` returns ranks summing to 1 — the PageRank of the
graph with teleport probability 1 - α and the mass of isolated vertices spread uniformly — within L1 distance
`tolerance` of the exact vector (a guarantee, see below). Every vertex starts with residual (1 - α) / n; a
device processes its vertices whose residual is at least ε (moving the residual to the rank and pushing
α / deg of it to each neighbour, remote shares merged in halo entries and sent in batches), until no residual is
left at ε or above anywhere. The unnormalised ranks x then solve x = α Pᵀ x + (1 - α)/n + r with every
|r_v| < ε, so ‖x - x*‖₁ ≤ n ε / (1 - α), and after normalising (‖x*‖₁ ≥ 1 - α) the L1 error is at most
2 n ε / (1 - α)²; ε = tolerance (1 - α)² / (2 n) makes it ≤ tolerance. Normalising the solution of that linear
system gives the PageRank with isolated (dangling) mass redistributed uniformly (Langville & Meyer).
`pagerank_reference` is the power iteration every result is checked against.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from apportion.apps._pagerank_kernels import pagerank_step
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.runtime.distributed_worklist import (DEFAULT_BATCH, DistributedWorklist, RunResult, WorklistProgram,
                                                    resolve_devices)
from apportion.runtime.placement import resolve_placement
from apportion.runtime.split import split_receive_owner

ALPHA = 0.85
DEFAULT_TOLERANCE = 1e-3


def _check_graph(graph) -> Graph:
    if not isinstance(graph, Graph):
        raise InputError(f"expected an apportion.Graph, got {type(graph).__name__}")
    if graph.n == 0:
        raise InputError("PageRank needs at least one vertex")
    return graph


def _check_parameters(alpha, tolerance) -> tuple[float, float]:
    alpha, tolerance = float(alpha), float(tolerance)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha:g}")
    if not 0.0 < tolerance < 2.0:
        raise InputError(f"tolerance must be in (0, 2), got {tolerance:g}")
    return alpha, tolerance


def residual_threshold(n: int, alpha: float, tolerance: float) -> float:
    """ε for an L1 error of at most `tolerance` (module docstring)."""
    return tolerance * (1.0 - alpha) ** 2 / (2.0 * n)


def pagerank(graph: Graph, *, devices=2, transport: str = "threads", routing: str = "ring",
             placement="partition", seed: int = 0, cluster: str | None = None, alpha: float = ALPHA,
             tolerance: float = DEFAULT_TOLERANCE,
             batch: int = DEFAULT_BATCH) -> RunResult:
    """PageRank (ranks summing to 1, L1 distance ≤ `tolerance` to the exact vector), computed by `devices`.

    Arguments as in `apportion.bfs` (no source), plus `alpha` (damping, 0.85) and `tolerance`.
    Returns a RunResult with float64 `values`. Raises InputError for bad alpha, tolerance, devices, placement.
    """
    graph = _check_graph(graph)
    alpha, tolerance = _check_parameters(alpha, tolerance)
    n = graph.n
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, alpha / np.maximum(degrees, 1), 0.0)
    epsilon = residual_threshold(n, alpha, tolerance)

    def make_extra(size: int) -> np.ndarray:
        extra = np.zeros(size + 1, dtype=np.float64)
        extra[size] = epsilon
        return extra

    device_list = resolve_devices(devices)
    chosen = resolve_placement(placement, graph, device_list, seed)
    program = WorklistProgram("pagerank", pagerank_step, weights=share, initial_value=0.0,
                              dtype=np.dtype(np.float64), on_receive=split_receive_owner, make_extra=make_extra,
                              output=lambda state: state.extra[:n], recovery="restart",
                              gpu_worker=CudaKernel("apportion.apps._worklist_cuda", "pagerank_worklist"))
    run = DistributedWorklist(graph, program, device_list, chosen, routing=routing, batch=batch)
    result = run.run(np.arange(n, dtype=np.int64), np.full(n, (1.0 - alpha) / n), transport=transport,
                     cluster=cluster)
    result.values /= result.values.sum()
    return result


def pagerank_reference(graph: Graph, alpha: float = ALPHA, tolerance: float = 1e-13) -> np.ndarray:
    """PageRank by power iteration (isolated vertices' mass spread uniformly) until the L1 change is under
    `tolerance`: the reference of `pagerank`."""
    graph = _check_graph(graph)
    alpha, _ = _check_parameters(alpha, 1e-3)
    n = graph.n
    degrees = np.diff(graph.indptr).astype(np.float64)
    matrix = csr_matrix((np.ones(len(graph.indices)), graph.indices, graph.indptr), shape=(n, n))
    dangling = degrees == 0
    inverse = np.where(dangling, 0.0, 1.0 / np.maximum(degrees, 1.0))
    ranks = np.full(n, 1.0 / n)
    for _ in range(10000):
        spread = matrix.T @ (ranks * inverse)
        updated = alpha * spread + (alpha * ranks[dangling].sum() + 1.0 - alpha) / n
        change = np.abs(updated - ranks).sum()
        ranks = updated
        if change < tolerance:
            break
    return ranks / ranks.sum()
