"""Single group partitioning, SGP (Crandall & Quinn 1994; seed 002, §3.3, Figure 3-4)."""

from __future__ import annotations

from apportion.partitioning.grid._layout import Piece, Region, bands, is_prime, split_region
from apportion.partitioning.grid.basic import basic_blocks
from apportion.partitioning.grid.rectangles import Rectangles, check_grid_input, rectangles_from_pieces


def single_group_blocks(region: Region, procs: list[int], speeds) -> list[Piece]:
    """SGP of `procs` in `region`: a prime count (> 2) peels one processor off as a slab across the longer
    side (sized by speed) and partitions the rest recursively; otherwise the basic α × β blocks."""
    k = len(procs)
    if k == 1:
        return [(procs[0], *region)]
    if k > 2 and is_prime(k):
        first, rest = procs[:1], procs[1:]
        parts = split_region(region, [speeds[first[0]], sum(speeds[i] for i in rest)], [1, len(rest)])
        if parts is None:
            return bands(region, procs, speeds)
        return [(first[0], *parts[0])] + single_group_blocks(parts[1], rest, speeds)
    return basic_blocks(region, procs, speeds)


def single_group_partition(rows: int, cols: int, speeds) -> Rectangles:
    """SGP of the whole grid, treating all processors as one group (sizes still follow their speeds)."""
    rows, cols, s = check_grid_input(rows, cols, speeds)
    pieces = single_group_blocks((0, 0, rows, cols), list(range(len(s))), s.tolist())
    return rectangles_from_pieces(rows, cols, s, pieces, "sgp")
