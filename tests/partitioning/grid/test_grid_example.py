"""The dissertation's worked examples (seed 002, §3.3–3.5) and the re-derived μ of the notes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from apportion.partitioning.grid import partition_grid
from apportion.partitioning.grid.nphp import square_threshold

# 29 processors: ten of speed 2, five of 4, four of 5, five of 3, five of 1 (groups 20, 20, 20, 15, 5).
EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5
N = 2000  # divisible by every denominator of the layout, so the n-scaled figures are exact


def test_mu_rederived():
    assert square_threshold(10) == Fraction(4, 5)
    assert square_threshold(5) == Fraction(2, 5)
    assert square_threshold(2) is None and square_threshold(6) is None  # zero denominator: factor method
    with pytest.raises(ValueError):
        square_threshold(9)


@pytest.mark.parametrize("method, items_per_n, max_messages", [
    ("rows", 56.0, {2}), ("php", 18.4, {6, 7}), ("nphp", 17.9, {6}),
])
def test_29_processor_example(method, items_per_n, max_messages):
    rect = partition_grid(N, N, EXAMPLE_29, method=method)
    assert rect.metrics.data_items / N == pytest.approx(items_per_n, rel=1e-3)
    assert rect.metrics.max_messages in max_messages


def test_nphp_beats_php_and_rows_on_the_example():
    items = {m: partition_grid(N, N, EXAMPLE_29, method=m).metrics.data_items for m in ("rows", "php", "nphp")}
    assert items["nphp"] < items["php"] < items["rows"]


def test_sgp_five_processors_cut_14_fifths():
    # Figure 3-4: SGP of 5 homogeneous processors on a square grid, cut lines 14/5 n.
    rect = partition_grid(N, N, [1] * 5, method="sgp")
    assert rect.metrics.cut_length / N == pytest.approx(14 / 5, rel=1e-3)


def test_asgp_ten_processors_9_6n_versus_sgp_10n():
    # Figure 3-7: 10 homogeneous processors on a square grid: SGP 10n data items, ASGP 9.6n.
    sgp = partition_grid(N, N, [1] * 10, method="sgp").metrics.data_items / N
    nphp = partition_grid(N, N, [1] * 10, method="nphp").metrics.data_items / N
    assert sgp == pytest.approx(10.0, rel=1e-3)
    assert nphp == pytest.approx(9.6, rel=1e-3)


def test_narrow_grid_prefers_factor_method():
    # x/y = 1/4 ≤ μ(10) = 4/5: ASGP uses the 5 × 2 factor blocks, same as SGP.
    sgp = partition_grid(N // 4, N, [1] * 10, method="sgp").metrics.cut_length
    nphp = partition_grid(N // 4, N, [1] * 10, method="nphp").metrics.cut_length
    assert nphp == sgp


def test_to_dict_has_required_keys():
    d = partition_grid(40, 40, [3, 1, 1], method="nphp").to_dict()
    for key in ("rectangles", "cut_length", "data_items", "max_messages", "total_messages", "lower_bound",
                "comm_time_s"):
        assert key in d
    assert set(d["rectangles"][0]) == {"processor", "row", "col", "height", "width"}
