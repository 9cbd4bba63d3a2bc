"""The grid layouts by name (seed 002, ch. 3): each maps (rows, cols, speeds) to `Rectangles` without metrics.

`best` (best.py) tries these; `partition_grid` (api.py) offers them and `best`.
"""

from __future__ import annotations

from apportion._registry import Registry
from apportion.partitioning.grid.basic import basic_rectangle
from apportion.partitioning.grid.nphp import nphp
from apportion.partitioning.grid.php import partial_homogeneous
from apportion.partitioning.grid.sgp import single_group_partition
from apportion.partitioning.grid.strips import contiguous_columns, contiguous_points, contiguous_rows, \
    contiguous_strips

LAYOUTS: Registry = Registry("grid layout", {
    "points": contiguous_points,
    "rows": contiguous_rows,
    "columns": contiguous_columns,
    "strips": contiguous_strips,
    "basic": basic_rectangle,
    "sgp": single_group_partition,
    "php": partial_homogeneous,
    "nphp": nphp,
})
