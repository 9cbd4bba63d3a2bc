"""Vertex copies of an edge partition (seed 001, Definition 3.1): C = Σ_v (p_v − 1).

p_v is the number of distinct parts that hold an edge incident to v. Isolated vertices hold no edge and count
neither as copies nor in the replication factor's denominator. The computation is vectorised: a dense
(vertex, part) presence table when n·k is small, a sort of (vertex, part) keys otherwise.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

DENSE_LIMIT = 50_000_000  # n·k cells up to which a dense boolean table is used


def parts_per_vertex(u: np.ndarray, v: np.ndarray, assignment: np.ndarray, n: int, k: int) -> np.ndarray:
    """p_v for every vertex (int64, length n): how many distinct parts hold an edge of v.

    `u`, `v`, `assignment` are aligned arrays over the edges (any order). Vertices without edges get 0.
    """
    a = np.asarray(assignment, dtype=np.int64)
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    if n * k <= DENSE_LIMIT:
        present = np.zeros(n * k, dtype=bool)
        present[u * k + a] = True
        present[v * k + a] = True
        return present.reshape(n, k).sum(axis=1, dtype=np.int64)
    keys = np.unique(np.concatenate([u * k + a, v * k + a]))
    return np.bincount(keys // k, minlength=n).astype(np.int64)


def copy_statistics(u: np.ndarray, v: np.ndarray, assignment: np.ndarray, n: int, k: int) -> tuple[int, float]:
    """(vertex_copies, replication_factor): Σ(p_v − 1) over non-isolated v, and Σ p_v / #non-isolated."""
    p = parts_per_vertex(u, v, assignment, n, k)
    touched = int(np.count_nonzero(p))
    total = int(p.sum())
    copies = total - touched
    factor = total / touched if touched else 1.0
    return copies, float(factor)


def balanced_capacity(m: int, k: int, imbalance: float) -> tuple[int, int]:
    """(lower, upper) edge-count bounds per part for a requested imbalance ε.

    upper = max(⌈m/k⌉, min(m, ⌊(1+ε)·m/k⌋)): the most a part may hold so that max/avg − 1 ≤ ε (and never more
    than every edge), and never less than the ceiling, which every partition needs when k does not divide m.
    When upper is the ceiling (always at ε = 0) the lower bound is ⌊m/k⌋, so ε = 0 means exact balance: every
    part holds ⌊m/k⌋ or ⌈m/k⌉ edges. Otherwise parts may be lighter (lower = 0).
    """
    ceil = -(-m // k)
    rate = Fraction(repr(float(imbalance)))  # ε as the decimal it was written as (0.15, not the float below it)
    upper = max(ceil, min(m, math.floor((1 + rate) * m / k)))  # exact: 1.749999999999 is not 1.75
    lower = m // k if upper == ceil else 0
    return lower, upper
