"""`partition_grid`: the entry point of grid partitioning (seed 002, ch. 3)."""

from __future__ import annotations

from apportion.errors import InputError
from apportion.partitioning.grid.basic import basic_rectangle
from apportion.partitioning.grid.metrics import DEFAULT_BANDWIDTH_BPS, DEFAULT_ITEM_BYTES, DEFAULT_SIGMA_S
from apportion.partitioning.grid.nphp import nphp
from apportion.partitioning.grid.php import partial_homogeneous
from apportion.partitioning.grid.rectangles import Rectangles
from apportion.partitioning.grid.sgp import single_group_partition
from apportion.partitioning.grid.strips import contiguous_columns, contiguous_points, contiguous_rows, \
    contiguous_strips

METHODS = {
    "points": contiguous_points,
    "rows": contiguous_rows,
    "columns": contiguous_columns,
    "strips": contiguous_strips,
    "basic": basic_rectangle,
    "sgp": single_group_partition,
    "php": partial_homogeneous,
    "nphp": nphp,
}
METHOD_NAMES = (*METHODS, "best")


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
        from apportion.partitioning.grid.best import best_partition

        return best_partition(rows, cols, speeds, sigma=sigma, bandwidth=bandwidth, item_bytes=item_bytes)
    if method not in METHODS:
        raise InputError(f"unknown grid method {method!r}; choose one of {', '.join(METHOD_NAMES)}")
    return METHODS[method](rows, cols, speeds).with_metrics(sigma=sigma, bandwidth=bandwidth,
                                                            item_bytes=item_bytes)
