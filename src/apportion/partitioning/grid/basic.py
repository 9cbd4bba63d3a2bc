"""Basic rectangle partitioning: an α × β grid of blocks, α·β = p (seed 002, §3.3)."""

from __future__ import annotations

from apportion.partitioning.grid._layout import Piece, Region, bands, factor_pair, grid_of_blocks
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input, rectangles_from_pieces


def basic_blocks(region: Region, procs: list[int], speeds) -> list[Piece]:
    """Cut the longer edge of `region` into α slabs and the shorter into β, α ≥ β the closest factor pair of
    the processor count; block sizes follow the speeds (equal for a homogeneous set). A prime count gives
    strips. Falls back to bands when the region is too small for that layout."""
    alpha, beta = factor_pair(len(procs))
    pieces = grid_of_blocks(region, procs, speeds, alpha, beta)
    return pieces if pieces is not None else bands(region, procs, speeds)


def basic_rectangle(rows: int, cols: int, speeds) -> Rectangles:
    """The basic α × β rectangle partition of the whole grid (§3.3, Figure 3-3)."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    pieces = basic_blocks((0, 0, rows, cols), list(range(len(s))), s.tolist())
    return rectangles_from_pieces(rows, cols, s, pieces, "basic")
