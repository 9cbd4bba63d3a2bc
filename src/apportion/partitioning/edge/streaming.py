"""One-pass streaming edge partitioners: random, DBH, PowerGraph greedy, HDRF.

Each reads the edges once in canonical order (graph.edges()) and places every edge at once, never exceeding
the capacity upper = max(⌈m/k⌉, ⌊(1+ε)·m/k⌋) (metrics.balanced_capacity). These are the speed anchors of
seed 001 §3.3.2 (PowerGraph's random and greedy) plus two later streaming heuristics users compare against:
degree-based hashing (Xie et al., NIPS'14) and HDRF (Petroni et al., CIKM'15). The per-edge work runs in
Numba kernels (_streaming_kernels.py).
"""

from __future__ import annotations

import numpy as np

from apportion.partitioning.edge._part_sets import slot_offsets
from apportion.partitioning.edge._streaming_kernels import dbh_kernel, greedy_kernel, hdrf_kernel
from apportion.partitioning.edge.metrics import balanced_capacity


def _stream(graph):
    u, v, _ = graph.edges()
    return np.ascontiguousarray(u, dtype=np.int64), np.ascontiguousarray(v, dtype=np.int64)


def random_edges(graph, k: int, imbalance: float, seed: int) -> np.ndarray:
    """PowerGraph's random placement, balanced: a seeded shuffle of ⌊m/k⌋ or ⌈m/k⌉ labels per part.

    Exactly balanced for any ε (random placement gains nothing from slack).
    """
    m = graph.m
    rng = np.random.default_rng(seed)
    labels = np.arange(m, dtype=np.int64) % k
    return rng.permutation(labels).astype(np.int32)


def dbh(graph, k: int, imbalance: float, seed: int) -> np.ndarray:
    """Degree-based hashing: each edge goes to the seeded hash of its lower-degree endpoint."""
    u, v = _stream(graph)
    _, upper = balanced_capacity(graph.m, k, imbalance)
    vertex_hash = np.random.default_rng(seed).integers(0, k, size=graph.n).astype(np.int64)
    return dbh_kernel(u, v, graph.degrees().astype(np.int64), vertex_hash, k, upper)


def greedy(graph, k: int, imbalance: float, seed: int) -> np.ndarray:
    """PowerGraph's greedy rules (seed 001 §3.3.2); ties between equally loaded parts by a seeded order."""
    u, v = _stream(graph)
    _, upper = balanced_capacity(graph.m, k, imbalance)
    priority = np.random.default_rng(seed).permutation(k).astype(np.int64)
    degrees = graph.degrees().astype(np.int64)
    return greedy_kernel(u, v, degrees, priority, k, upper, slot_offsets(degrees, k))


def hdrf(graph, k: int, imbalance: float, seed: int, lam: float = 1.0) -> np.ndarray:
    """HDRF with balance weight λ (`lam`, default 1); ties by a seeded order of the parts."""
    u, v = _stream(graph)
    _, upper = balanced_capacity(graph.m, k, imbalance)
    priority = np.random.default_rng(seed).permutation(k).astype(np.int64)
    degrees = graph.degrees().astype(np.int64)
    return hdrf_kernel(u, v, priority, k, upper, float(lam), slot_offsets(degrees, k), graph.n)
