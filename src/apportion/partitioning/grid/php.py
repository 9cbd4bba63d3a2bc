"""Partial homogeneous partitioning, PHP (Crandall & Quinn 1994; seed 002, §3.3, Figure 3-5)."""

from __future__ import annotations

from apportion.partitioning.grid._layout import speed_groups
from apportion.partitioning.grid.mgp import multi_group_blocks
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input, rectangles_from_pieces
from apportion.partitioning.grid.sgp import single_group_blocks


def partial_homogeneous(rows: int, cols: int, speeds) -> Rectangles:
    """PHP: group processors of equal speed, split the groups by MGP, partition each group with SGP."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    pieces = multi_group_blocks((0, 0, rows, cols), speed_groups(s), s.tolist(), single_group_blocks)
    return rectangles_from_pieces(rows, cols, s, pieces, "php")
