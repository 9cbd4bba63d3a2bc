"""The FPM partitioner of Lastovetsky and Reddy: bisection of the angle of lines through the origin (seed 002,
§4.1, Figure 4-2).

A line y = k·x through the origin meets each speed curve S_i at the x_i where S_i(x_i)/x_i = k, i.e. where the
execution time x_i/S_i(x_i) equals 1/k: all processors finish together. The line is found by bisecting the angle
between the two lines through the fastest and slowest points at the even split n/p until Σ x_i = n.
"""

from __future__ import annotations

import math

import numpy as np

from apportion.errors import InputError


def _intersection(model, slope: float, limit: float, c: float = 0.0, steps: int = 100) -> float:
    """x in [0, limit] with S(x)/x = slope (time x/S(x) assumed increasing in x); limit when the curve stays
    above the line."""
    if model.speed(limit, c) / limit >= slope:
        return limit
    lo, hi = 0.0, limit
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if mid <= 0 or model.speed(mid, c) / mid >= slope:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * limit:
            break
    return 0.5 * (lo + hi)


def fpm_partition(models, n: float, *, comms=None, tolerance: float = 1e-9, max_steps: int = 200) -> np.ndarray:
    """Fractional workloads x_i (Σ x_i = n) with x_i / S_i(x_i) equal for all i (§4.1).

    `models` answer `speed(w, c)`; `comms` (optional, per processor) fixes each one's communication volume
    (0 by default, the FPM case). The time functions x/S_i(x) must increase with x (assumption 2 of §4.3).
    """
    models = list(models)
    p = len(models)
    if p == 0 or not n > 0:
        raise InputError("FPM: need at least one model and a positive workload")
    c = np.zeros(p) if comms is None else np.asarray(comms, dtype=np.float64)
    if p == 1:
        return np.array([float(n)])
    even = n / p
    slopes = [models[i].speed(even, c[i]) / even for i in range(p)]
    upper, lower = math.atan(max(slopes)), math.atan(min(slopes))  # Σx ≤ n at the upper line, ≥ n at the lower

    def xs(angle: float) -> np.ndarray:
        k = math.tan(angle)
        return np.array([_intersection(models[i], k, float(n), c[i]) for i in range(p)])

    x = xs(upper)
    for _ in range(max_steps):
        middle = 0.5 * (upper + lower)
        x = xs(middle)
        total = x.sum()
        if abs(total - n) <= tolerance * n or upper - lower < 1e-15:
            break
        if total < n:
            upper = middle  # line too steep: processors get too little
        else:
            lower = middle
    return x * (n / x.sum())
