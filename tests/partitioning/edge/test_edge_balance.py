"""The shared balancing step and the capacity bounds."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.edge.balance import rebalance
from apportion.partitioning.edge.metrics import balanced_capacity, copy_statistics


@settings(max_examples=200, deadline=None)
@given(m=st.integers(1, 10_000), k=st.integers(1, 300), eps=st.floats(0, 2))
def test_capacity_bounds(m, k, eps):
    lower, upper = balanced_capacity(m, k, eps)
    assert upper >= math.ceil(m / k) and k * upper >= m and lower * k <= m
    if upper > math.ceil(m / k):  # exactly: ε as the decimal it was written as
        assert Fraction(upper * k, m) - 1 <= Fraction(repr(eps))
    if eps == 0:
        assert (lower, upper) == (m // k, math.ceil(m / k))


def test_capacity_takes_epsilon_exactly():
    """Just under a threshold stays under it (a 1e-9 slack allowed 3 of m = 12 on k = 11 at ε = 1.749999999999,
    max / avg - 1 = 1.75 > ε), and ε = 0.15 is 0.15, not the float just below it."""
    assert balanced_capacity(12, 11, 1.749999999999)[1] == 2
    assert balanced_capacity(12, 11, 1.75)[1] == 3
    assert balanced_capacity(2000, 20, 0.15)[1] == 115
    assert balanced_capacity(7, 2, 1e300)[1] == 7


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 30), data=st.data(), k=st.integers(1, 6), eps=st.sampled_from([0.0, 0.1, 0.5]))
def test_rebalance_reaches_bounds_from_any_assignment(n, data, k, eps):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=90))
    g = Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs], n=n)
    assume(g.m > k)
    u, v, _ = g.edges()
    skewed = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=g.m, max_size=g.m)), dtype=np.int32)
    out, moves = rebalance(u, v, skewed, g.n, k, eps)
    lower, upper = balanced_capacity(g.m, k, eps)
    counts = np.bincount(out, minlength=k)
    assert counts.max() <= upper and counts.min() >= lower
    assert moves >= int(np.count_nonzero(out != skewed))
    assert skewed.max() < k   # input untouched


def test_balanced_input_is_unchanged():
    g = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])
    u, v, _ = g.edges()
    a = np.array([0, 0, 1, 1], dtype=np.int32)
    out, moves = rebalance(u, v, a, g.n, 2, 0.0)
    assert moves == 0 and np.array_equal(out, a)


def test_rebalance_prefers_cheap_moves():
    # a path 0-1-2-3-4 all in part 0 and k=2: moving the end edges costs fewer copies than the middle ones
    g = Graph.from_edges([0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6])
    u, v, _ = g.edges()
    out, _ = rebalance(u, v, np.zeros(6, dtype=np.int32), g.n, 2, 0.0)
    copies, _ = copy_statistics(u, v, out, g.n, 2)
    assert copies == 1   # one contiguous cut of the path


@settings(max_examples=40, deadline=None)
@given(side=st.integers(4, 14), k=st.integers(2, 6), shift=st.integers(0, 40), eps=st.sampled_from([0.0, 0.05]))
def test_rebalance_from_a_blocky_assignment(side, k, shift, eps):
    """A mesh whose parts are contiguous blocks (few boundary vertices: the balancing scores its boundary edges
    first) still reaches the bounds, and the copies it reports match an independent recount."""
    from apportion.graph.generate import generate
    from apportion.graph.metrics import edge_partition_metrics

    g = generate("grid2d", side * side)
    assert g.m >= k  # side >= 4: at least 24 edges
    u, v, _ = g.edges()
    a = np.minimum((np.arange(g.m) + shift) * k // (g.m + 2 * shift), k - 1).astype(np.int32)
    out, moves = rebalance(u, v, a, g.n, k, eps)
    lower, upper = balanced_capacity(g.m, k, eps)
    counts = np.bincount(out, minlength=k)
    assert counts.max() <= upper and counts.min() >= lower
    assert moves >= int(np.count_nonzero(out != a))
    again, _ = rebalance(u, v, a, g.n, k, eps)
    assert np.array_equal(out, again)
    assert copy_statistics(u, v, out, g.n, k)[0] == edge_partition_metrics(g, out, k).vertex_copies


def test_capacity_never_exceeds_the_edges():
    """A huge finite ε allows a part every edge, never more (inf made an OverflowError, 1e17 an array too big)."""
    assert balanced_capacity(78, 2, 1e308) == (0, 78)
    assert balanced_capacity(78, 2, 1e17) == (0, 78)
    assert balanced_capacity(78, 2, 0.0) == (39, 39)


@pytest.mark.parametrize("method", ["hdrf", "ne", "spac"])
def test_a_huge_imbalance_partitions(method):
    import apportion

    graph = apportion.generate("grid2d", rows=6, cols=6)
    result = apportion.partition_edges(graph, 2, method=method, imbalance=1e308)
    assert result.assignment.shape[0] == graph.m and set(np.unique(result.assignment)) <= {0, 1}
