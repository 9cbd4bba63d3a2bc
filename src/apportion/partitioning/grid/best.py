"""`best`: run every method and keep the one with the lowest modelled communication time (eq. 3-8)."""

from __future__ import annotations

from apportion.errors import InputError
from apportion.partitioning.grid.methods import LAYOUTS
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input

# Tried in this order; ties keep the earlier method (the simpler layout).
CANDIDATES = ("rows", "columns", "points", "basic", "sgp", "php", "nphp")


def best_partition(rows: int, cols: int, speeds, **cost) -> Rectangles:
    """The candidate method whose partition has the lowest comm_time_s (then the shortest cut); carries its
    metrics and `method` names the winner. Methods that cannot lay out this grid (rows/columns with p larger
    than the side) are skipped."""
    check_grid_input(rows, cols, speeds)
    best: Rectangles | None = None
    for name in CANDIDATES:
        try:
            candidate = LAYOUTS[name](rows, cols, speeds).with_metrics(**cost)
        except InputError:
            continue
        key = (candidate.metrics.comm_time_s, candidate.metrics.cut_length)
        if best is None or key < (best.metrics.comm_time_s, best.metrics.cut_length):
            best = candidate
    assert best is not None  # contiguous points always fits
    return best
