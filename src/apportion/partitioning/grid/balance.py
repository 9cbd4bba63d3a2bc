"""Grid partitions sized by a performance model: CPM, FPM or FPMC shares fed to a grid partitioner
(seed 002, ch. 4; the FPMC loop re-partitions with NPHP, as in the dissertation)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError
from apportion.partitioning.grid.api import partition_grid
from apportion.partitioning.grid.rectangles import Rectangles
from apportion.perfmodel.fpm import fpm_partition
from apportion.perfmodel.fpmc import fpmc_partition

MODELS = ("cpm", "fpm", "fpmc")


@dataclass(frozen=True)
class BalancedGrid:
    """A partition and what the models predict for it: per-processor area, halo items, speed and time."""

    rectangles: Rectangles
    model: str
    shares: np.ndarray
    comms: np.ndarray
    speeds: np.ndarray
    times: np.ndarray
    alpha_history: tuple = ()

    @property
    def imbalance(self) -> float:
        """Predicted max_i T_i / mean_i T_i − 1."""
        return float(self.times.max() / self.times.mean() - 1.0)


def grid_communication(rows: int, cols: int, method: str = "nphp"):
    """The `communication(shares) -> (areas, items sent per iteration)` callable FPMC iterates with."""
    def communication(shares):
        rect = partition_grid(rows, cols, np.maximum(np.asarray(shares, dtype=np.float64), 1e-9), method=method)
        return rect.areas(), rect.metrics.items_sent
    return communication


def balance_grid(rows: int, cols: int, models, *, model: str = "fpmc", method: str = "nphp") -> BalancedGrid:
    """Partition a rows × cols grid over processors described by speed `models` (one per processor).

    model: "cpm" (each model's speed at the even share and no communication, held constant), "fpm" (the
    Lastovetsky–Reddy bisection on S(w, 0)) or "fpmc" (iterated with the partition's halos). Speeds predicted
    for the final partition always include its communication (S(w_i, c_i))."""
    models = list(models)
    if model not in MODELS:
        raise InputError(f"unknown performance model {model!r}; choose one of {', '.join(MODELS)}")
    n = rows * cols
    alpha = ()
    if model == "cpm":
        shares = np.array([m.speed(n / len(models), 0.0) for m in models])
    elif model == "fpm":
        shares = fpm_partition(models, n)
    else:
        result = fpmc_partition(models, n, grid_communication(rows, cols, method))
        shares, alpha = result.shares, tuple(result.alpha_history)
    rect = partition_grid(rows, cols, shares, method=method)
    areas, comms = rect.areas(), rect.metrics.items_sent
    speeds = np.array([m.speed(a, c) for m, a, c in zip(models, areas, comms)])
    return BalancedGrid(rect, model, np.asarray(shares, dtype=np.float64), comms, speeds, areas / speeds, alpha)
