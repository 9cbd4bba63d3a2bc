"""Multi-group partitioning, MGP (Crandall & Quinn 1994; seed 002, Algorithm 3-3).

The skeleton shared by PHP and NPHP: split the set of speed groups into two sets of nearly equal total speed,
cut the region across its longer side in proportion, recurse; a single group is handed to the single-group
method (SGP for PHP, ASGP for NPHP).
"""

from __future__ import annotations

from typing import Callable

from apportion.partitioning.grid._layout import Piece, Region, bands, split_region

SingleGroup = Callable[[Region, list, list], list]


def split_groups(groups: list[list[int]], speeds) -> tuple[list[list[int]], list[list[int]]]:
    """Two sets of nearly equal total speed: the split of the sorted group list (total speed descending) into
    a prefix and a suffix with the smallest difference of totals (ties: the shorter prefix). This is the split
    the dissertation's example makes ((20, 20) | (20, 15, 5) with the 10×2 and 5×4 groups first)."""
    totals = [sum(speeds[i] for i in g) for g in groups]
    grand = sum(totals)
    best, cut, prefix = float("inf"), 1, 0.0
    for position, total in enumerate(totals[:-1], start=1):
        prefix += total
        difference = abs(2.0 * prefix - grand)
        if difference < best:
            best, cut = difference, position
    return groups[:cut], groups[cut:]


def multi_group_blocks(region: Region, groups: list[list[int]], speeds,
                       single_group: SingleGroup) -> list[Piece]:
    """MGP of `groups` (lists of processor ids) in `region` (Algorithm 3-3)."""
    if len(groups) == 1:
        return single_group(region, groups[0], speeds)
    first, second = split_groups(groups, speeds)
    procs_first = [i for g in first for i in g]
    procs_second = [i for g in second for i in g]
    parts = split_region(region, [sum(speeds[i] for i in procs_first), sum(speeds[i] for i in procs_second)],
                         [len(procs_first), len(procs_second)])
    if parts is None:
        return bands(region, procs_first + procs_second, speeds)
    return (multi_group_blocks(parts[0], first, speeds, single_group)
            + multi_group_blocks(parts[1], second, speeds, single_group))
