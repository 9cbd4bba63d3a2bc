"""Grid partitions: exact cover, area tolerance and metrics against an independent owner-array recount."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from apportion.errors import InputError
from apportion.partitioning.grid import METHOD_NAMES, partition_grid

ALL = [m for m in METHOD_NAMES]


def recount(owner: np.ndarray, p: int):
    """Brute force from a rows × cols owner array: cut length, items each processor sends, neighbour counts."""
    cut = 0
    sent = np.zeros(p, dtype=np.int64)
    neighbours = [set() for _ in range(p)]
    rows, cols = owner.shape
    for r in range(rows):
        for c in range(cols):
            a = owner[r, c]
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < rows and cc < cols and owner[rr, cc] != a:
                    b = owner[rr, cc]
                    cut += 1
                    sent[a] += 1
                    sent[b] += 1
                    neighbours[a].add(b)
                    neighbours[b].add(a)
    return cut, sent, np.array([len(n) for n in neighbours])


grids = st.tuples(st.integers(1, 40), st.integers(1, 40))
speed_lists = st.lists(st.integers(1, 6), min_size=1, max_size=14)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=grids, speeds=speed_lists, method=st.sampled_from(ALL))
def test_exact_cover_and_metrics_match_recount(grid, speeds, method):
    rows, cols = grid
    assume(len(speeds) <= rows * cols)
    if method in ("rows", "columns", "strips"):
        assume(len(speeds) <= min(rows, cols))
    rect = partition_grid(rows, cols, speeds, method=method)
    rect.validate()
    owner = rect.owner_array()
    assert (owner >= 0).all()
    assert np.array_equal(np.bincount(owner.ravel(), minlength=len(speeds)), rect.areas())
    cut, sent, neighbours = recount(owner, len(speeds))
    m = rect.metrics
    assert m.cut_length == cut
    assert m.data_items == 2 * cut
    assert np.array_equal(m.items_sent, sent)
    assert np.array_equal(m.messages, neighbours)
    assert m.max_messages == neighbours.max() and m.total_messages == neighbours.sum()
    assert m.half_perimeter_sum >= 2 * np.sqrt(rect.areas()).sum() - 1e-9


@settings(max_examples=60, deadline=None)
@given(grid=st.tuples(st.integers(8, 120), st.integers(8, 120)), speeds=st.lists(st.integers(1, 5), min_size=1,
       max_size=10), method=st.sampled_from(["basic", "sgp", "php", "nphp", "rows", "columns", "points"]))
@example(grid=(17, 40), speeds=[2, 2, 5, 2, 5], method="points")  # two exact halves: half-to-even made one size 86
def test_area_within_one_row_and_one_column_strip(grid, speeds, method):
    rows, cols = grid
    s = np.array(speeds, dtype=float)
    targets = rows * cols * s / s.sum()
    # Non-degenerate shares: every processor's target is at least two lines of the longer side.
    assume(targets.min() >= 2 * max(rows, cols))
    rect = partition_grid(rows, cols, speeds, method=method)
    deviation = np.abs(rect.areas() - targets)
    if method == "points":
        assert deviation.max() < 1
        return
    for i in range(len(speeds)):
        (_, _, h, w), = rect.pieces_of(i)
        assert deviation[i] <= h + w


@settings(max_examples=25, deadline=None)
@given(grid=st.tuples(st.integers(10, 200), st.integers(10, 200)), speeds=st.lists(st.integers(1, 8), min_size=2,
       max_size=20))
def test_best_is_never_worse_than_any_method(grid, speeds):
    rows, cols = grid
    best = partition_grid(rows, cols, speeds, method="best")
    for method in ("points", "basic", "sgp", "php", "nphp", "rows", "columns"):
        try:
            other = partition_grid(rows, cols, speeds, method=method)
        except InputError:
            continue
        assert best.metrics.comm_time_s <= other.metrics.comm_time_s + 1e-12


def test_comm_time_formula():
    rect = partition_grid(100, 100, [1, 1], method="columns", sigma=0.002, bandwidth=1e6, item_bytes=8)
    m = rect.metrics
    assert m.cut_length == 100 and m.data_items == 200 and m.max_messages == 1
    assert m.comm_time_s == pytest.approx(0.002 * 1 + 200 * 8 / 1e6)


@pytest.mark.parametrize("rows, cols, speeds, method", [
    (10, 10, [1, 0], "nphp"), (10, 10, [1, -2], "php"), (2, 2, [1] * 5, "nphp"), (0, 5, [1], "rows"),
    (10, 10, [1, float("nan")], "basic"), (10, 10, [], "nphp"), (10, 10, [1, 1], "zigzag"),
    (3, 100, [1] * 4, "rows"), (2.5, 10, [1], "nphp"), (10, 10, [[1, 2], [3, 4]], "nphp"),
])
def test_bad_input_raises_input_error(rows, cols, speeds, method):
    with pytest.raises(InputError):
        partition_grid(rows, cols, speeds, method=method)


def test_a_column_of_speeds_is_a_vector():
    """Speeds given as a (p, 1) column are p speeds; a (2, 2) table was four processors before (now refused)."""
    column = partition_grid(10, 10, [[1], [3]], method="nphp")
    assert np.array_equal(column.owner_array(), partition_grid(10, 10, [1, 3], method="nphp").owner_array())


@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("scale", [2.0 ** 1020, 2.0 ** -1060])
def test_speeds_near_the_float_range_give_the_same_rectangles(method, scale):
    """Relative speeds at the ends of the float range (1e308 and 1, or subnormal ones) are ratios like any other:
    the layouts multiply them by grid lengths, which must not overflow to inf or lose them to zero."""
    speeds = [3.0, 1.0, 2.0]
    small = partition_grid(12, 9, speeds, method=method)
    huge = partition_grid(12, 9, [s * scale for s in speeds], method=method)
    for field in ("owner", "row", "col", "height", "width"):
        assert np.array_equal(getattr(small, field), getattr(huge, field)), field
