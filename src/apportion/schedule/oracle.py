"""The oracle split: the division of a load that makes all devices finish together under the true models.

Seed 000 eq. 3.1 states the goal T(ratio_c L) = T(ratio_g1 L) = ...; for simulated devices the models are
known, so the ideal makespan T* is computable: each device runs its share as one run (the best case: one
transfer, one launch), share x_d(T) is the most work device d finishes within T (its time is increasing in the
work), and T* is the smallest T with sum_d x_d(T) = L (bisection). Shares are continuous (fractions of the load),
so T* is a lower bound no chunked schedule can beat by more than one chunk's time per device.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.platform.device import Work


@dataclass(frozen=True)
class OracleSplit:
    makespan: float
    shares: np.ndarray  # fraction of the load per device


def oracle_split(devices, total: Work, iterations: int = 200) -> OracleSplit:
    """Equal-finish split of `total` work over simulated `devices` (each must have `estimate(Work)`)."""

    def time_for(device, fraction: float) -> float:
        if fraction <= 0:
            return 0.0
        return device.estimate(total.scaled(fraction)).total_s

    def most_within(device, budget: float) -> float:
        if time_for(device, 1.0) <= budget:
            return 1.0
        lo, hi = 0.0, 1.0
        for _ in range(iterations // 2):
            mid = (lo + hi) / 2
            if time_for(device, mid) <= budget:
                lo = mid
            else:
                hi = mid
        return lo

    lo, hi = 0.0, min(time_for(d, 1.0) for d in devices)
    for _ in range(iterations // 2):
        mid = (lo + hi) / 2
        if sum(most_within(d, mid) for d in devices) >= 1.0:
            hi = mid
        else:
            lo = mid
    shares = np.array([most_within(d, hi) for d in devices])
    shares = shares / shares.sum()
    return OracleSplit(makespan=hi, shares=shares)
