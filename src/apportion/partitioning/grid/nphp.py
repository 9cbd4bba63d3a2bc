"""NPHP: partial homogeneous partitioning based on grid shape, with ASGP inside groups (seed 002, §3.4).

ASGP (Algorithm 3-2) chooses per homogeneous group between the factor method (α × β blocks) and the square
method (the largest perfect square s < p as √s × √s blocks, the other p − s as a slab beside them) using the
threshold μ. The dissertation's formula 3-7 is misprinted; we use the re-derived rule of the project notes
(notes/002): square method iff x/y > μ, with x ≤ y the region's sides, α ≥ β the factor pair and

    μ = [s√s + (p − s)² − pβ] / [p(α − √s − 1)],

a zero denominator meaning "always the factor method". μ(10) = 4/5 (as printed) and μ(5) = 2/5 (printed 2/3).
"""

from __future__ import annotations

import math
from fractions import Fraction

from apportion.partitioning.grid._layout import (Piece, Region, bands, factor_pair, grid_of_blocks, speed_groups,
                                                 split_region)
from apportion.partitioning.grid.mgp import multi_group_blocks
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input, rectangles_from_pieces


def square_threshold(p: int) -> Fraction | None:
    """μ(p) of ASGP for a non-square p ≥ 2 (exact); None when the factor method always wins (zero
    denominator). For a perfect square p the threshold is not used."""
    root = math.isqrt(p)
    if root * root == p:
        raise ValueError("μ is defined for non-square p only")
    s = root * root
    alpha, beta = factor_pair(p)
    denominator = p * (alpha - root - 1)
    if denominator == 0:
        return None
    return Fraction(s * root + (p - s) ** 2 - p * beta, denominator)


def advanced_single_group_blocks(region: Region, procs: list[int], speeds) -> list[Piece]:
    """ASGP of a homogeneous group `procs` in `region` (Algorithm 3-2, with the re-derived μ)."""
    k = len(procs)
    r, c, h, w = region
    if k == 1:
        return [(procs[0], *region)]
    shorter, longer = min(h, w), max(h, w)
    root = math.isqrt(k)
    if root * root == k:
        if longer > root * shorter:  # too elongated for q × q: peel one processor off
            first, rest = procs[:1], procs[1:]
            parts = split_region(region, [speeds[first[0]], sum(speeds[i] for i in rest)], [1, k - 1])
            if parts is None:
                return bands(region, procs, speeds)
            return [(first[0], *parts[0])] + advanced_single_group_blocks(parts[1], rest, speeds)
        pieces = grid_of_blocks(region, procs, speeds, root, root)
        return pieces if pieces is not None else bands(region, procs, speeds)
    mu = square_threshold(k)
    if mu is None or Fraction(shorter, longer) <= mu:
        alpha, beta = factor_pair(k)
        pieces = grid_of_blocks(region, procs, speeds, alpha, beta)
        return pieces if pieces is not None else bands(region, procs, speeds)
    # The p − s remainder goes first (top/left), the √s × √s square after it: the text leaves the side open;
    # this side reproduces the example's maximum of 6 messages (the other gives 7; the cut is the same).
    s = root * root
    rest, square = procs[:k - s], procs[k - s:]
    parts = split_region(region, [sum(speeds[i] for i in rest), sum(speeds[i] for i in square)], [k - s, s])
    if parts is None:
        return bands(region, procs, speeds)
    return (advanced_single_group_blocks(parts[0], rest, speeds)
            + advanced_single_group_blocks(parts[1], square, speeds))


def nphp(rows: int, cols: int, speeds) -> Rectangles:
    """NPHP (Algorithm 3-1): MGP over the speed groups, ASGP inside each group."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    pieces = multi_group_blocks((0, 0, rows, cols), speed_groups(s), s.tolist(), advanced_single_group_blocks)
    return rectangles_from_pieces(rows, cols, s, pieces, "nphp")
