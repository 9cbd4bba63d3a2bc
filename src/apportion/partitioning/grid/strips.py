"""Contiguous points, contiguous rows and contiguous columns (seed 002, §3.1–3.2)."""

from __future__ import annotations

import numpy as np

from apportion.errors import InputError
from apportion.partitioning.grid._layout import Piece, split_lengths, strips
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input, rectangles_from_pieces


def contiguous_points(rows: int, cols: int, speeds) -> Rectangles:
    """Row-major runs of grid points, run i of length ≈ rows·cols·s_i/Σs (each ≥ 1) (§3.1).

    A run that spans several rows becomes up to three pieces: the tail of its first row, full middle rows and
    the head of its last row.
    """
    rows, cols, s = check_grid_input(rows, cols, speeds)
    lengths = split_lengths(rows * cols, s)
    pieces: list[Piece] = []
    start = 0
    for i, length in enumerate(lengths):
        end = start + length
        r0, c0 = divmod(start, cols)
        r1, c1 = divmod(end, cols)  # exclusive end position
        if r0 == r1:
            pieces.append((i, r0, c0, 1, c1 - c0))
        else:
            if c0 > 0:
                pieces.append((i, r0, c0, 1, cols - c0))
                r0 += 1
            if r1 > r0:
                pieces.append((i, r0, 0, r1 - r0, cols))
            if c1 > 0:
                pieces.append((i, r1, 0, 1, c1))
        start = end
    return rectangles_from_pieces(rows, cols, s, pieces, "points")


def contiguous_rows(rows: int, cols: int, speeds) -> Rectangles:
    """Horizontal strips of full rows, heights proportional to speed (§3.2). Needs rows ≥ p."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    if len(s) > rows:
        raise InputError(f"method rows: {len(s)} processors but only {rows} rows")
    pieces = strips((0, 0, rows, cols), list(range(len(s))), s.tolist(), across_width=False)
    return rectangles_from_pieces(rows, cols, s, pieces, "rows")


def contiguous_columns(rows: int, cols: int, speeds) -> Rectangles:
    """Vertical strips of full columns, widths proportional to speed (§3.2). Needs cols ≥ p."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    if len(s) > cols:
        raise InputError(f"method columns: {len(s)} processors but only {cols} columns")
    pieces = strips((0, 0, rows, cols), list(range(len(s))), s.tolist(), across_width=True)
    return rectangles_from_pieces(rows, cols, s, pieces, "columns")


def contiguous_strips(rows: int, cols: int, speeds) -> Rectangles:
    """Strips across the longer side (columns when cols ≥ rows), so the cut lines are the short side (§3.2)."""
    if int(cols) >= int(rows):
        out = contiguous_columns(rows, cols, speeds)
    else:
        out = contiguous_rows(rows, cols, speeds)
    return out


_ = np  # numpy used through the helpers
