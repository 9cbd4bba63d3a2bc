"""`partition_grid`: the entry point of grid partitioning (seed 002, ch. 3)."""

from __future__ import annotations

from apportion._registry import Registry
from apportion.partitioning.grid.best import best_partition
from apportion.partitioning.grid.methods import LAYOUTS
from apportion.partitioning.grid.metrics import DEFAULT_BANDWIDTH_BPS, DEFAULT_ITEM_BYTES, DEFAULT_SIGMA_S
from apportion.partitioning.grid.rectangles import Rectangles


def _measured(layout):
    """A layout as a method: the same rectangles, with their metrics."""
    def method(rows: int, cols: int, speeds, **cost) -> Rectangles:
        return layout(rows, cols, speeds).with_metrics(**cost)
    return method


# every method takes (rows, cols, speeds, sigma=, bandwidth=, item_bytes=) and returns Rectangles with metrics
GRID_METHODS: Registry = Registry("grid method", {**{name: _measured(layout) for name, layout in LAYOUTS.items()},
                                                  "best": best_partition})
METHOD_NAMES = GRID_METHODS.names()


def partition_grid(rows: int, cols: int, speeds, *, method: str = "nphp", sigma: float = DEFAULT_SIGMA_S,
                   bandwidth: float = DEFAULT_BANDWIDTH_BPS, item_bytes: int = DEFAULT_ITEM_BYTES) -> Rectangles:
    """Partition a rows × cols grid among processors of relative `speeds` into integer rectangles.

    method: points | rows | columns | strips | basic | sgp | php | nphp | best. The result covers the grid
    exactly once, each processor's area is its share rows·cols·s_i/Σs up to rounding (one row/column strip
    per cut level), and it carries `GridMetrics` (σ in seconds, bandwidth in bytes/s, item size in bytes).
    Raises InputError for speeds ≤ 0, more processors than grid points, an unknown method, or a strip method
    with fewer lines than processors.
    """
    return GRID_METHODS[method](rows, cols, speeds, sigma=sigma, bandwidth=bandwidth, item_bytes=item_bytes)
