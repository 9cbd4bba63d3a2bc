"""Where the grid partitioners put things, by hand: proportional cuts round the cumulative boundaries, and MGP
places the speed groups of the 29-processor example as the dissertation's layout does."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.partitioning.grid import partition_grid
from apportion.partitioning.grid._layout import split_lengths

EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5
N = 2000


@pytest.mark.parametrize("length, weights, expected", [
    (10, [1, 1, 1], [3, 4, 3]),       # boundaries round(3.33) = 3, round(6.67) = 7
    (7, [1, 1], [4, 3]),              # round(3.5) = 4 (half up)
    (9, [1, 1], [5, 4]),              # round(4.5) = 5 (half up: with half to even two ties could put one size a
                                      # whole unit off its share)
    (11, [1, 2, 2], [2, 5, 4]),       # round(2.2) = 2, round(6.6) = 7
    (5, [1, 1, 1, 1, 1, 1], None),    # six parts of at least one line cannot fit in five
])
def test_split_lengths_rounds_cumulative_boundaries(length, weights, expected):
    assert split_lengths(length, weights) == expected


@pytest.mark.parametrize("method", ["php", "nphp"])
def test_example_groups_sit_where_mgp_puts_them(method):
    """Group totals (speed × count) 20 (2 × 10), 20 (4 × 5), 20 (5 × 4), 15 (3 × 5), 5 (1 × 5), fastest groups
    first. MGP splits the 80 into (20, 20) | (20, 15, 5): the left half of the square holds 2 × 10 over 4 × 5
    (20 | 20: half the height each), the right half 5 × 4 over the 15 | 5 pair, which shares the bottom quarter
    of the square 15 : 5 across its width (3/8 and 1/8 of N)."""
    rect = partition_grid(N, N, EXAMPLE_29, method=method)
    half = N // 2
    boxes = {  # processors -> (top, bottom, left, right)
        range(0, 10): (0, half, 0, half),
        range(10, 15): (half, N, 0, half),
        range(15, 19): (0, half, half, N),
        range(19, 24): (half, N, half, half + 3 * N // 8),
        range(24, 29): (half, N, half + 3 * N // 8, N),
    }
    for processors, box in boxes.items():
        mine = np.isin(rect.owner, list(processors))
        found = (rect.row[mine].min(), (rect.row + rect.height)[mine].max(),
                 rect.col[mine].min(), (rect.col + rect.width)[mine].max())
        assert tuple(int(x) for x in found) == box, (processors, found)
