"""`partition_grid`: the entry point of grid partitioning (seed 002, ch. 3)."""

from __future__ import annotations

from apportion.errors import InputError
from apportion.partitioning.grid.best import best_partition
from apportion.partitioning.grid.methods import LAYOUTS
from apportion.partitioning.grid.metrics import DEFAULT_BANDWIDTH_BPS, DEFAULT_ITEM_BYTES, DEFAULT_SIGMA_S
from apportion.partitioning.grid.rectangles import Rectangles

METHODS = LAYOUTS
METHOD_NAMES = (*LAYOUTS, "best")


def partition_grid(rows: int, cols: int, speeds, *, method: str = "nphp", sigma: float = DEFAULT_SIGMA_S,
                   bandwidth: float = DEFAULT_BANDWIDTH_BPS, item_bytes: int = DEFAULT_ITEM_BYTES) -> Rectangles:
    """Partition a rows × cols grid among processors of relative `speeds` into integer rectangles.

    method: points | rows | columns | strips | basic | sgp | php | nphp | best. The result covers the grid
    exactly once, each processor's area is its share rows·cols·s_i/Σs up to rounding (one row/column strip
    per cut level), and it carries `GridMetrics` (σ in seconds, bandwidth in bytes/s, item size in bytes).
    Raises InputError for speeds ≤ 0, more processors than grid points, an unknown method, or a strip method
    with fewer lines than processors.
    """
    if method == "best":
        return best_partition(rows, cols, speeds, sigma=sigma, bandwidth=bandwidth, item_bytes=item_bytes)
    if method not in LAYOUTS:
        raise InputError(f"unknown grid method {method!r}; choose one of {', '.join(METHOD_NAMES)}")
    return LAYOUTS[method](rows, cols, speeds).with_metrics(sigma=sigma, bandwidth=bandwidth,
                                                            item_bytes=item_bytes)
