"""FPMC: the functional performance model with communication (seed 002, §4.3, Algorithm 4-1).

Speeds depend on workload w and communication volume c, S_i(w, c), and c depends on the partition, so model and
partitioner are iterated:

1. FPM on S_i(w, 0) gives the initial workloads (no communication).
2. Partition with those workloads (NPHP in the dissertation) → each processor's area w_i and halo c_i.
3. The points (w_i, S_i(w_i, c_i)); fit the best line through the origin y = k·x (least squares); d_i is the
   horizontal distance x_i − y_i/k (positive: under the line, overloaded) and α = Σ d_i².
4. MAXP: move every point toward the line with MSXP (a bisection on the move distance that keeps the point on
   its side of the line, re-partitioning to learn its new c), then trim the larger of the total left/right moves
   so the workload stays n.
5. Re-partition with the moved workloads and repeat while α falls.

The printed Algorithm 4-1 initialises α = 0 and α' = MAX and loops `while α < α'`, then immediately sets α' = α,
which stops after one pass; we implement the loop the prose describes: keep going while α decreases, keep the
best workloads seen.

The partitioner is passed in as `communication(workloads) -> (areas, comms)`, so this layer does not depend on
the grid partitioners (apportion.partitioning.grid.balance wires NPHP in).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from apportion.errors import InputError
from apportion.perfmodel.fpm import fpm_partition

Communication = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class FPMCResult:
    """Workloads shares (fractional, Σ = n) to hand to the partitioner, the realised areas and halos of the
    partition they give, predicted per-processor times, and the history of α = Σ d_i² (one entry per pass)."""

    shares: np.ndarray
    areas: np.ndarray
    comms: np.ndarray
    speeds: np.ndarray
    times: np.ndarray
    alpha_history: list = field(default_factory=list)
    iterations: int = 0

    @property
    def imbalance(self) -> float:
        """max_i T_i / mean_i T_i − 1 of the predicted times."""
        return float(self.times.max() / self.times.mean() - 1.0)


def _state(models, shares, communication):
    areas, comms = communication(shares)
    speeds = np.array([m.speed(a, c) for m, a, c in zip(models, areas, comms)])
    return areas, comms, speeds


def best_line(x: np.ndarray, y: np.ndarray) -> float:
    """Slope k of the least-squares line y = k·x through the origin (the BFL of §4.3)."""
    return float(np.dot(x, y) / np.dot(x, x))


def horizontal_distances(x: np.ndarray, y: np.ndarray, k: float) -> np.ndarray:
    """d_i = x_i − y_i / k: positive for points under the line (too much work), negative above it."""
    return x - y / k


def move_single_point(models, shares, i: int, distance: float, k: float, communication: Communication,
                      steps: int = 8) -> float:
    """MSXP: the largest move of processor i toward the line (left when d > 0) found by bisection on the move,
    such that its re-estimated point stays on the same side of the line. The others absorb the opposite change
    evenly while i's new halo is measured. Returns the signed workload change."""
    direction = -1.0 if distance > 0 else 1.0
    p = len(shares)
    lo, hi = 0.0, abs(distance)
    for _ in range(steps):
        move = 0.5 * (lo + hi) if lo > 0 else 0.5 * hi
        trial = shares.copy()
        trial[i] += direction * move
        if p > 1:
            trial[np.arange(p) != i] -= direction * move / (p - 1)
        if trial.min() <= 1.0:
            hi = move
            continue
        areas, comms = communication(trial)
        y = models[i].speed(areas[i], comms[i])
        under = y < k * areas[i]
        if under == (distance > 0):
            lo = move  # still on its side: try a longer move
        else:
            hi = move
        if hi - lo < 0.5:
            break
    return direction * lo


def move_all_points(models, shares, speeds, areas, comms, k: float, communication: Communication) -> np.ndarray:
    """MAXP: MSXP for every point, then cancel the larger side's surplus so Σ moves = 0 (steps 1–5 of §4.3).

    The surplus is taken back from the processors whose move changes their speed the least first."""
    d = horizontal_distances(areas.astype(np.float64), speeds, k)
    moves = np.array([move_single_point(models, shares, i, d[i], k, communication) if abs(d[i]) >= 0.5 else 0.0
                      for i in range(len(shares))])
    right, left = moves.clip(min=0).sum(), (-moves).clip(min=0).sum()
    # expected change of speed for each move (dp for right moves, ip for left moves)
    change = np.array([abs(models[i].speed(areas[i] + moves[i], comms[i]) - speeds[i]) for i in range(len(moves))])
    surplus = right - left
    side = moves > 0 if surplus > 0 else moves < 0
    for i in np.argsort(change, kind="stable"):
        if abs(surplus) < 1e-9:
            break
        if not side[i]:
            continue
        take = min(abs(moves[i]), abs(surplus))
        moves[i] -= np.sign(moves[i]) * take
        surplus -= np.sign(surplus) * take
    return moves


def fpmc_partition(models, n: int, communication: Communication, *, max_iterations: int = 25) -> FPMCResult:
    """Balance `n` work units over processors with S_i(w, c) models (Algorithm 4-1, as the prose describes).

    `communication(shares)` partitions with the given fractional shares and returns (areas, items each
    processor exchanges per iteration)."""
    models = list(models)
    if not models:
        raise InputError("FPMC: need at least one model")
    shares = fpm_partition(models, n)  # FPM: communication 0
    areas, comms, speeds = _state(models, shares, communication)
    k = best_line(areas.astype(np.float64), speeds)
    alpha = float(np.sum(horizontal_distances(areas.astype(np.float64), speeds, k) ** 2))
    history = [alpha]
    best = (alpha, shares, areas, comms, speeds)
    iterations = 0
    while iterations < max_iterations and alpha > 0:
        iterations += 1
        moves = move_all_points(models, shares, speeds, areas, comms, k, communication)
        if not np.any(np.abs(moves) >= 0.5):
            break
        new_shares = np.maximum(shares + moves, 1.0)
        new_shares *= n / new_shares.sum()
        new_areas, new_comms, new_speeds = _state(models, new_shares, communication)
        new_k = best_line(new_areas.astype(np.float64), new_speeds)
        new_alpha = float(np.sum(horizontal_distances(new_areas.astype(np.float64), new_speeds, new_k) ** 2))
        history.append(new_alpha)
        if new_alpha >= alpha:
            break
        shares, areas, comms, speeds, k, alpha = new_shares, new_areas, new_comms, new_speeds, new_k, new_alpha
        best = (alpha, shares, areas, comms, speeds)
    _, shares, areas, comms, speeds = best
    times = areas / speeds
    return FPMCResult(shares=shares, areas=areas, comms=comms, speeds=speeds, times=times, alpha_history=history,
                      iterations=iterations)
