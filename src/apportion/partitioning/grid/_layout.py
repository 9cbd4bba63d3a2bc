"""Integer geometry shared by the grid partitioners: proportional cuts, strips, and a feasible fallback.

A region is (row, col, height, width); a piece is (owner, row, col, height, width). Every cut rounds the
cumulative ideal boundaries, so each part's length is within one row/column of its share; parts never get
less than what their processors need to exist (one grid point each). "Cut along the longer dimension" means
the cut lines run across the longer side (they are parallel to the shorter one, so they are short).
"""

from __future__ import annotations

import math

import numpy as np

Region = tuple[int, int, int, int]
Piece = tuple[int, int, int, int, int]


def split_lengths(length: int, weights, minimum=None) -> list[int] | None:
    """Integer lengths ≥ `minimum` summing to `length`, proportional to `weights` (cumulative rounding).

    Returns None when the minimums cannot fit. Plain Python on purpose: the lists are short (≤ p) and this
    runs tens of thousands of times per partition batch, where NumPy's per-call overhead dominated.
    """
    k = len(weights)
    mins = [1] * k if minimum is None else [int(v) for v in minimum]
    if sum(mins) > length:
        return None
    total = float(sum(weights))
    sizes = [0] * k
    previous, running = 0, 0.0
    deficit = False
    for i in range(k - 1):
        running += weights[i]
        # half up, never half to even: every boundary is then within (-1/2, 1/2] of its exact place, so every
        # size is within less than one unit of its exact share (two ties rounded opposite ways made it one)
        bound = math.floor(length * running / total + 0.5)
        size = bound - previous
        sizes[i] = size
        deficit = deficit or size < mins[i]
        previous = bound
    sizes[k - 1] = length - previous
    if not deficit and sizes[k - 1] >= mins[k - 1]:
        return sizes
    # Give parts below their minimum what they need, taken from the parts with the most to spare.
    while True:
        short = next((i for i in range(k) if sizes[i] < mins[i]), None)
        if short is None:
            return sizes
        spare = [sizes[i] - mins[i] for i in range(k)]
        j = max(range(k), key=spare.__getitem__)  # first index of the maximum, as argmax
        sizes[short] += 1
        sizes[j] -= 1


def cut_across_longer(region: Region) -> bool:
    """True when the region is cut across its width (vertical cut lines): width ≥ height (ties: columns)."""
    return region[3] >= region[2]


def split_region(region: Region, weights, counts, across_width: bool | None = None) -> list[Region] | None:
    """Cut `region` into consecutive slabs (left→right or top→bottom) in proportion to `weights`.

    Slab i must hold counts[i] processors, so it gets at least ceil(counts[i]/other side) lines. None when
    that is impossible.
    """
    r, c, h, w = region
    if across_width is None:
        across_width = cut_across_longer(region)
    length, other = (w, h) if across_width else (h, w)
    mins = [max(1, -(-int(k) // other)) for k in counts]
    sizes = split_lengths(length, weights, mins)
    if sizes is None:
        return None
    out: list[Region] = []
    offset = 0
    for s in sizes:
        out.append((r, c + offset, h, s) if across_width else (r + offset, c, s, w))
        offset += s
    return out


def strips(region: Region, procs, speeds, across_width: bool | None = None) -> list[Piece] | None:
    """One slab per processor (contiguous rows or columns of the region); None when too few lines."""
    parts = split_region(region, [speeds[i] for i in procs], [1] * len(procs), across_width)
    if parts is None:
        return None
    return [(int(i), *part) for i, part in zip(procs, parts)]


def grid_of_blocks(region: Region, procs, speeds, along_longer: int, along_shorter: int) -> list[Piece] | None:
    """α × β blocks: the longer side cut into `along_longer` slabs, each cut into `along_shorter` blocks.

    Processors fill slab by slab in the given order; slab and block sizes follow their speeds.
    """
    k = len(procs)
    assert along_longer * along_shorter == k
    groups = [procs[j * along_shorter:(j + 1) * along_shorter] for j in range(along_longer)]
    across_width = cut_across_longer(region)
    slabs = split_region(region, [sum(speeds[i] for i in g) for g in groups],
                         [len(g) for g in groups], across_width)
    if slabs is None:
        return None
    pieces: list[Piece] = []
    for g, slab in zip(groups, slabs):
        sub = strips(slab, g, speeds, not across_width)
        if sub is None:
            return None
        pieces.extend(sub)
    return pieces


def bands(region: Region, procs, speeds) -> list[Piece]:
    """Always feasible when area ≥ number of processors: bands across the longer side, each cut into blocks.

    The last resort of every method when its preferred layout cannot fit (tiny or very narrow regions).
    """
    k = len(procs)
    r, c, h, w = region
    assert h * w >= k, "region smaller than its processor count"
    across_width = cut_across_longer(region)
    length, other = (w, h) if across_width else (h, w)
    if k <= length:
        return strips(region, procs, speeds, across_width)
    per_band = other
    groups = [procs[j:j + per_band] for j in range(0, k, per_band)]
    slabs = split_region(region, [sum(speeds[i] for i in g) for g in groups], [len(g) for g in groups],
                         across_width)
    assert slabs is not None
    pieces: list[Piece] = []
    for g, slab in zip(groups, slabs):
        sub = strips(slab, g, speeds, not across_width)
        assert sub is not None
        pieces.extend(sub)
    return pieces


def factor_pair(p: int) -> tuple[int, int]:
    """(α, β) with α·β = p, α ≥ β and β the largest divisor ≤ √p (the "two largest factors", §3.3)."""
    beta = math.isqrt(p)
    while p % beta:
        beta -= 1
    return p // beta, beta


def is_prime(p: int) -> bool:
    if p < 2:
        return False
    return all(p % d for d in range(2, math.isqrt(p) + 1))


def speed_groups(speeds: np.ndarray) -> list[list[int]]:
    """Processors grouped by equal speed (relative tolerance 1e-9), sorted by group total speed then size,
    both descending (the preprocessing of NPHP, §3.4); processors keep their index order inside a group."""
    order = np.argsort(-speeds, kind="stable")
    groups: list[list[int]] = []
    for i in order:
        if groups and math.isclose(speeds[groups[-1][0]], speeds[i], rel_tol=1e-9):
            groups[-1].append(int(i))
        else:
            groups.append([int(i)])
    groups.sort(key=lambda g: (-float(speeds[g].sum()), -len(g)))
    return groups
