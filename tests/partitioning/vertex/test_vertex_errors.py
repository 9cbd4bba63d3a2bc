"""Bad input to `apportion.partition` is an InputError with a clear message."""

from __future__ import annotations

import numpy as np
import pytest

import apportion
from apportion.graph.csr import Graph

from vertex_helpers import grid


@pytest.mark.parametrize("kwargs,message", [
    (dict(k=0), "k must be at least 1"),
    (dict(k=-3), "k must be at least 1"),
    (dict(k=101), "larger than the number of vertices"),
    (dict(k=2.5), "k must be an integer"),
    (dict(k=3, targets=[1, 2]), "targets has 2 entries but k = 3"),
    (dict(k=2, targets=[1, 0]), "targets must be positive"),
    (dict(k=2, targets=[1, -1]), "targets must be positive"),
    (dict(k=2, targets=[1, float("nan")]), "finite"),
    (dict(k=2, targets=[1, float("inf")]), "finite"),
    (dict(k=2, imbalance=-0.1), "imbalance must be non-negative"),
    (dict(k=2, imbalance=float("nan")), "imbalance must be a finite number"),
    (dict(k=2, preset="turbo"), "unknown preset"),
    (dict(k=2, threads=0), "threads must be a positive integer"),
])
def test_bad_arguments(kwargs, message):
    graph = grid(10, 10)
    k = kwargs.pop("k")
    with pytest.raises(apportion.InputError, match=message):
        apportion.partition(graph, k, **kwargs)


def test_vertex_heavier_than_every_limit():
    weights = np.ones(100, dtype=np.int64)
    weights[7] = 40  # W = 139, limit floor(1.03 * 139 / 4) = 35 < 40
    graph = grid(10, 10).with_weights(vertex_weights=weights)
    with pytest.raises(apportion.InputError, match="vertex 7 weighs 40"):
        apportion.partition(graph, 4)


def test_heavy_vertex_fits_the_big_block_of_unequal_targets():
    weights = np.ones(50, dtype=np.int64)
    weights[7] = 40
    graph = grid(5, 10).with_weights(vertex_weights=weights)
    p = apportion.partition(graph, 3, targets=[8, 1, 1], imbalance=0.1)
    assert p.balanced and p.assignment[7] == 0


def test_multi_constraint_heavy_vertex_names_the_constraint():
    weights = np.ones((20, 2), dtype=np.int64)
    weights[3, 1] = 30
    graph = grid(4, 5).with_weights(vertex_weights=weights)
    with pytest.raises(apportion.InputError, match=r"constraint 1"):
        apportion.partition(graph, 2)


def test_shares_are_rounded_up_before_the_tolerance():
    # 7 unit vertices, two blocks: the limit is ceil(7 / 2) = 4 each at imbalance 0 (floor(3.5) = 3 refused it)
    graph = Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 5], n=7)
    p = apportion.partition(graph, 2, imbalance=0.0)
    assert np.asarray(p.max_block_weights).tolist() == [4, 4]
    assert sorted(np.asarray(p.block_weights).tolist()) == [3, 4] and p.balanced


def test_block_limits_are_capped_at_the_total_and_exact_for_huge_weights():
    """The limits floor((1 + ε)·⌈t·W⌉): a huge finite ε gives every block 2^62 / k (it overflowed int64 and the
    partitioner refused a larger imbalance), ε = 0 on totals past 2^53 still covers the total (⌈W / 3⌉
    of 3e16 + 1 rounded to 1e16 in floats), and an ε written as 0.15 is 0.15."""
    from apportion.partitioning.vertex.balance import max_block_weights

    limits = max_block_weights(np.array([15606, 7]), np.full(4, 0.25), 1e308)
    np.testing.assert_array_equal(limits, [[2**60, 2**60]] * 4)  # 2^62 / k: the sum stays in int64
    limits = max_block_weights(np.array([15606, 7]), np.full(4, 0.25), 1e16)
    assert limits[0, 0] == 2**60 and 2e16 <= limits[0, 1] <= 2e16 * (1 + 1e-11)  # capped beyond it, else the formula
    np.testing.assert_array_equal(max_block_weights(np.array([20]), np.array([1.0]), 0.1), [[22]])  # the formula
    big = np.array([3 * 10**16 + 1])
    limits = max_block_weights(big, np.full(3, 1 / 3), 0.0)
    assert limits.ravel().tolist() == [10**16 + 1] * 3  # ⌈W / 3⌉ each, exactly
    assert max_block_weights(np.array([10**17 * 3]), np.full(3, 1 / 3), 0.0).max() == 10**17  # not 1e17 + 16
    assert max_block_weights(np.array([400]), np.full(4, 0.25), 0.15)[0, 0] == 115  # 1.15 · 100, not 114
    assert max_block_weights(np.array([4 * 10**17]), np.full(4, 0.25), 0.15)[0, 0] == 115 * 10**15


def test_limits_take_the_targets_ratio_exactly():
    """Targets 5 and 8 of W = 13 w give limits from 5 w and 8 w exactly: the float share 5 / 13 written as the
    decimal 0.38461538461538464 put a limit one unit too high at 1e11 weights, so a partition beyond the documented
    limit was returned as balanced where none exists."""
    from apportion.partitioning.vertex.balance import max_block_weights

    w = 15_996_330_337
    limits = max_block_weights(np.array([13 * w]), np.array([5.0, 8.0]), 0.01)
    assert limits.ravel().tolist() == [101 * 5 * w // 100, 101 * 8 * w // 100]
    # the same sizes given as shares, or scaled: the same limits
    np.testing.assert_array_equal(max_block_weights(np.array([13 * w]), np.array([0.5, 0.8]), 0.01), limits)
    graph = Graph.from_edges([0], [1], n=2, vertex_weights=[129_250_349_123, 78_701_945_258])
    with pytest.raises(apportion.InputError, match="vertex 0 weighs 129250349123"):
        apportion.partition(graph, 2, targets=[5, 8], imbalance=0.01)


@pytest.mark.parametrize("targets", [[[1, 2], [1, 2]], [[1, 2, 3], [4, 5, 6]]])
def test_targets_are_one_size_per_block(targets):
    with pytest.raises(apportion.InputError, match=r"targets must be a vector \(one value each\), got shape"):
        apportion.partition(grid(4, 4), 2, targets=targets)
    single_column = apportion.partition(grid(4, 4), 2, targets=[[1], [3]])
    assert single_column.max_block_weights.ravel().tolist() == [4, 12]


def test_exact_balance_with_weights_past_float_precision():
    graph = Graph(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]),
                  vertex_weights=np.array([10**16, 10**16, 10**16 + 1]))
    result = apportion.partition(graph, 3, imbalance=0.0)
    assert sorted(result.block_weights.tolist()) == [10**16, 10**16, 10**16 + 1]


@pytest.mark.parametrize("epsilon", [1e17, 1e308])
def test_a_huge_imbalance_is_allowed(epsilon):
    result = apportion.partition(grid(12, 12), 4, imbalance=epsilon)
    assert result.block_weights.sum() == 144
