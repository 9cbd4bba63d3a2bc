"""The result of a grid partition: integer rectangles, one or more per processor (seed 002, ch. 3).

A `Rectangles` holds *pieces*: piece j is the rectangle rows [row[j], row[j]+height[j]) × columns
[col[j], col[j]+width[j]) owned by processor owner[j]. Every method except contiguous points gives exactly one
piece per processor (owner = 0..p-1 in order); contiguous points (a run in row-major order) may give up to three.
The pieces cover the grid exactly once; `validate` checks it without building a rows × cols array.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from apportion.checks import check_shares
from apportion.errors import InputError
from apportion.partitioning.grid.metrics import grid_metrics


@dataclass(frozen=True)
class Rectangles:
    """Integer rectangles covering a rows × cols grid exactly once, sized to the processors' speeds.

    Fields: grid shape (`rows`, `cols`), `speeds` (p,) float64 (relative, > 0), and per piece `owner`, `row`,
    `col`, `height`, `width` (int64 arrays of equal length). `method` names the partitioner and `metrics` holds
    the `GridMetrics` computed for it (None until `with_metrics`).
    """

    rows: int
    cols: int
    speeds: np.ndarray
    owner: np.ndarray
    row: np.ndarray
    col: np.ndarray
    height: np.ndarray
    width: np.ndarray
    method: str = ""
    metrics: Any = field(default=None, compare=False)

    @property
    def p(self) -> int:
        """Number of processors."""
        return int(len(self.speeds))

    @property
    def pieces(self) -> int:
        return int(len(self.owner))

    def areas(self) -> np.ndarray:
        """(p,) number of grid points each processor owns."""
        return np.bincount(self.owner, weights=self.height * self.width, minlength=self.p).astype(np.int64)

    def targets(self) -> np.ndarray:
        """(p,) ideal (fractional) number of grid points: rows·cols·s_i/Σs."""
        return self.rows * self.cols * self.speeds / self.speeds.sum()

    def owner_array(self) -> np.ndarray:
        """rows × cols int32 array of owners (for small grids: tests, plots, the stencil runtime)."""
        grid = np.full((self.rows, self.cols), -1, dtype=np.int32)
        for j in range(self.pieces):
            grid[self.row[j]:self.row[j] + self.height[j], self.col[j]:self.col[j] + self.width[j]] = self.owner[j]
        return grid

    def pieces_of(self, processor: int) -> list[tuple[int, int, int, int]]:
        """(row, col, height, width) of every piece owned by `processor`."""
        return [(int(self.row[j]), int(self.col[j]), int(self.height[j]), int(self.width[j]))
                for j in np.flatnonzero(self.owner == processor)]

    def validate(self) -> None:
        """Raise AssertionError unless the pieces are non-empty, inside the grid and cover it exactly once."""
        assert len(self.owner) == len(self.row) == len(self.col) == len(self.height) == len(self.width)
        assert np.all(self.height >= 1) and np.all(self.width >= 1), "empty piece"
        assert np.all(self.row >= 0) and np.all(self.col >= 0), "piece outside the grid"
        assert np.all(self.row + self.height <= self.rows) and np.all(self.col + self.width <= self.cols), \
            "piece outside the grid"
        assert int((self.height * self.width).sum()) == self.rows * self.cols, "areas do not add up to the grid"
        assert set(np.unique(self.owner).tolist()) == set(range(self.p)), "a processor owns nothing"
        # Disjointness: with total area equal to the grid's, pairwise non-overlap means exact cover.
        r0, c0 = self.row, self.col
        r1, c1 = self.row + self.height, self.col + self.width
        overlap_r = np.minimum(r1[:, None], r1[None, :]) - np.maximum(r0[:, None], r0[None, :])
        overlap_c = np.minimum(c1[:, None], c1[None, :]) - np.maximum(c0[:, None], c0[None, :])
        overlap = (overlap_r > 0) & (overlap_c > 0)
        np.fill_diagonal(overlap, False)
        assert not overlap.any(), "pieces overlap"

    def with_metrics(self, **cost) -> "Rectangles":
        """A copy carrying `GridMetrics` (σ, bandwidth and item size as keyword options)."""
        return Rectangles(self.rows, self.cols, self.speeds, self.owner, self.row, self.col, self.height,
                          self.width, self.method, grid_metrics(self, **cost))

    def to_dict(self) -> dict:
        """JSON-ready: grid shape, method, speeds, per-piece rectangles, and the metrics when attached."""
        out = {
            "rows": self.rows, "cols": self.cols, "method": self.method, "processors": self.p,
            "speeds": self.speeds.tolist(),
            "rectangles": [
                {"processor": int(self.owner[j]), "row": int(self.row[j]), "col": int(self.col[j]),
                 "height": int(self.height[j]), "width": int(self.width[j])}
                for j in range(self.pieces)
            ],
        }
        if self.metrics is not None:
            out.update(self.metrics.to_dict())
        return out


def rectangles_from_pieces(rows: int, cols: int, speeds, pieces: list[tuple[int, int, int, int, int]],
                           method: str) -> Rectangles:
    """Build a `Rectangles` from (owner, row, col, height, width) tuples, sorted by owner then position."""
    pieces = sorted(pieces)
    arr = np.array(pieces, dtype=np.int64).reshape(-1, 5)
    return Rectangles(int(rows), int(cols), np.asarray(speeds, dtype=np.float64).copy(), arr[:, 0].copy(),
                      arr[:, 1].copy(), arr[:, 2].copy(), arr[:, 3].copy(), arr[:, 4].copy(), method)


def check_grid_input(rows, cols, speeds) -> tuple[int, int, np.ndarray]:
    """Validate a grid partitioning request; return (rows, cols, speeds as float64). Bad input → InputError."""
    try:
        rows_i, cols_i = int(rows), int(cols)
    except (TypeError, ValueError):
        raise InputError(f"grid size must be integers, got {rows!r} × {cols!r}") from None
    if rows_i != rows or cols_i != cols or rows_i < 1 or cols_i < 1:
        raise InputError(f"grid size must be positive integers, got {rows!r} × {cols!r}")
    s = check_shares(speeds, name="speeds", normalise=False, vector=True)
    top = float(s.max())
    if not 2.0 ** -500 <= top <= 2.0 ** 500:
        # relative speeds near the float range's ends: the layouts multiply them by grid lengths, so bring the
        # largest near 1 by a power of two (exact: every ratio, and so every rectangle, stays as it was)
        s = np.ldexp(s, -math.frexp(top)[1])
    if s.size > rows_i * cols_i:
        raise InputError(f"{s.size} processors but only {rows_i * cols_i} grid points")
    return rows_i, cols_i, s
